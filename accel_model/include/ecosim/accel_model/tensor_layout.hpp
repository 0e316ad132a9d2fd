// Addresses from tensor layouts: each op's tensors (TileRun::tensors) placed row-major at distinct, aligned
// DRAM addresses by a bump allocator, and each tile's loads and store (the boxes its cursor gives) turned into
// the row segments a DMA reads and writes — what a memory model such as `dram` is fed.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "ecosim/accel_model/memory_model.hpp"
#include "ecosim/accel_model/op_plan.hpp"

namespace ecosim::accel {

/// A tensor placed in DRAM: row-major, each innermost row (dims[3] elements) starting on a byte.
struct TensorLayout {
  TensorShape shape;
  std::uint64_t base = 0;  // byte address of element 0
  std::uint64_t row_bytes() const;
  std::uint64_t bytes() const;
};

/// Places tensors one after another from `base`, each at a multiple of kAlignmentBytes (so no two share a
/// DRAM row of up to that size).
class LayoutAllocator {
 public:
  static constexpr std::uint64_t kAlignmentBytes = 4096;
  explicit LayoutAllocator(std::uint64_t base = 0) : next_(base) {}
  TensorLayout place(const TensorShape& shape);
  /// The tensors of `run`, in order, so that a tile's TensorBox::tensor indexes them.
  std::vector<TensorLayout> place(const TileRun& run);

 private:
  std::uint64_t next_;
};

/// The tensor of `tensors` that `box` names (an error when it names none).
const TensorLayout& tensor_at(std::span<const TensorLayout> tensors, const TensorBox& box);

/// Appends the row segments of `box` in `layout` to `out` (one per innermost row of the box, byte-rounded
/// outwards when elements are narrower than a byte; contiguous rows merged into one segment).
void box_accesses(const TensorLayout& layout, const TensorBox& box, bool write, std::vector<MemoryAccess>& out);

/// Replaces `loads` with the row segments of `tile`'s loads (reads; weights, inputs, outputs in turn) and
/// `stores` with those of its store (writes): its run's boxes (TileRun::boxes) in `tensors`, that run's tensors
/// placed. No allocation once the vectors have grown to a tile's segment count.
void tile_accesses(const TileWork& tile, std::span<const TensorLayout> tensors, std::vector<MemoryAccess>& loads,
                   std::vector<MemoryAccess>& stores);

}  // namespace ecosim::accel
