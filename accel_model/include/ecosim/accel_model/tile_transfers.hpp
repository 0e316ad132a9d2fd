// The DMA's view of DRAM: each op's tensors placed (tensor_layout.hpp) and each tile transfer timed by a memory
// model (memory_model.hpp) as the row segments it moves — what an engine calls per tile transfer (the SystemC
// memory target does, per DMA command).
#pragma once
#include <array>
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
  /// Places the tensors of every run of `plan`, and of `next` when given (the op after it, whose first
  /// weight tile may be prefetched while `plan` runs), apart from address 0 (call before the plan's first
  /// tile; the plans must outlive their tiles' use). Each op starts again from 0: addresses do not grow along
  /// a trace, and the next op's tensors fall on the rows the last one used (the model keeps its open rows and
  /// its clock).
  void start_op(const OpPlan& plan, const OpPlan* next = nullptr);
  /// The cycle `tile`'s load of the buffers `parts` selects, issued at `issue_cycle`, completes (issue_cycle
  /// when it loads nothing).
  std::uint64_t load_complete(const TileWork& tile, std::uint64_t issue_cycle,
                              std::array<bool, kBufferCount> parts = {true, true, true});
  /// The cycle `tile`'s store, issued at `issue_cycle`, completes (issue_cycle when it stores nothing).
  std::uint64_t store_complete(const TileWork& tile, std::uint64_t issue_cycle);

 private:
  /// The placed tensors of `tile`'s run.
  const std::vector<TensorLayout>& tensors_of(const TileWork& tile) const;

  MemoryModel& memory_;
  std::vector<std::pair<const TileRun*, std::vector<TensorLayout>>> placed_;  // the current and next op's runs
  std::vector<MemoryAccess> segments_;                                        // reused: no allocation per tile
};

}  // namespace ecosim::accel
