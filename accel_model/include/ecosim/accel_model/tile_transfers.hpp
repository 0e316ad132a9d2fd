// The DMA's view of DRAM: each op's tensors placed (tensor_layout.hpp) and each tile's load and store timed by
// a memory model (memory_model.hpp) as the row segments it moves — what an engine calls per tile transfer.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "ecosim/accel_model/memory_model.hpp"
#include "ecosim/accel_model/op_plan.hpp"
#include "ecosim/accel_model/tensor_layout.hpp"

namespace ecosim::accel {

class TileTransfers {
 public:
  /// Times transfers on `memory` (which must outlive this).
  explicit TileTransfers(MemoryModel& memory) : memory_(memory) {}
  /// Places the tensors of every run of `plan` apart from address 0 (call before its first tile; `plan` must
  /// outlive its tiles' use). Each op starts again from 0: addresses do not grow along a trace, and the next
  /// op's tensors fall on the rows the last one used (the model keeps its open rows and its clock).
  void start_op(const OpPlan& plan);
  /// The cycle `tile`'s load, issued at `issue_cycle`, completes (issue_cycle when it loads nothing).
  std::uint64_t load_complete(const TileWork& tile, std::uint64_t issue_cycle);
  /// The cycle `tile`'s store, issued at `issue_cycle`, completes (issue_cycle when it stores nothing).
  std::uint64_t store_complete(const TileWork& tile, std::uint64_t issue_cycle);

 private:
  /// Fills loads_ and stores_ with `tile`'s row segments (left empty under `simple`, which needs none).
  void segments(const TileWork& tile);

  MemoryModel& memory_;
  std::vector<std::pair<const TileRun*, std::vector<TensorLayout>>> placed_;  // the current op's runs
  std::vector<MemoryAccess> loads_, stores_;                                  // reused: no allocation per tile
};

}  // namespace ecosim::accel
