// Row-major tensor layouts, their bump allocator, and the row segments of a tile's boxes.
#include "ecosim/accel_model/tensor_layout.hpp"

#include <fmt/core.h>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::accel {

std::uint64_t TensorLayout::row_bytes() const {
  const std::uint64_t bits = checked_mul(shape.dims[3], shape.element_bits);
  return bits / 8 + (bits % 8 != 0);
}

std::uint64_t TensorLayout::bytes() const {
  return checked_product({shape.dims[0], shape.dims[1], shape.dims[2], row_bytes()});
}

TensorLayout LayoutAllocator::place(const TensorShape& shape) {
  const TensorLayout layout{shape, next_};
  const std::uint64_t end = checked_add(next_, layout.bytes());
  next_ = checked_mul(end / kAlignmentBytes + (end % kAlignmentBytes != 0), kAlignmentBytes);
  return layout;
}

std::vector<TensorLayout> LayoutAllocator::place(const TileRun& run) {
  std::vector<TensorLayout> layouts;
  for (const TensorShape& shape : run.tensors()) layouts.push_back(place(shape));
  return layouts;
}

void box_accesses(const TensorLayout& layout, const TensorBox& box, bool write, std::vector<MemoryAccess>& out) {
  const auto& dims = layout.shape.dims;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (box.start[d] + box.extent[d] > dims[d] || box.start[d] + box.extent[d] < box.start[d])
      throw Error(fmt::format("tile box [{}, +{}) exceeds dimension {} of its tensor ({})", box.start[d], box.extent[d],
                              d, dims[d]));
  const std::uint64_t bits = layout.shape.element_bits, row = layout.row_bytes();
  const std::uint64_t first_bit = box.start[3] * bits, end_bit = (box.start[3] + box.extent[3]) * bits;
  const std::uint64_t offset = first_bit / 8, bytes = end_bit / 8 + (end_bit % 8 != 0) - offset;
  if (bytes == 0) return;
  for (std::uint64_t i = 0; i < box.extent[0]; ++i)
    for (std::uint64_t j = 0; j < box.extent[1]; ++j)
      for (std::uint64_t k = 0; k < box.extent[2]; ++k) {
        const std::uint64_t r = ((box.start[0] + i) * dims[1] + box.start[1] + j) * dims[2] + box.start[2] + k;
        const std::uint64_t address = layout.base + r * row + offset;
        if (!out.empty() && out.back().write == write && out.back().address + out.back().bytes == address)
          out.back().bytes += bytes;
        else
          out.push_back({address, bytes, write});
      }
}

const TensorLayout& tensor_at(std::span<const TensorLayout> tensors, const TensorBox& box) {
  if (box.tensor >= tensors.size())
    throw Error(fmt::format("tile box names tensor {} of {}", box.tensor, tensors.size()));
  return tensors[box.tensor];
}

void tile_accesses(const TileWork& tile, std::span<const TensorLayout> tensors, std::vector<MemoryAccess>& loads,
                   std::vector<MemoryAccess>& stores) {
  loads.clear();
  stores.clear();
  if (!tile.run) throw Error("tile_accesses: the tile comes from no run's cursor");
  const TileBoxes boxes = tile.run->boxes(tile);
  for (const TensorBox& box : boxes.load)
    if (box.tensor != TensorBox::kNone) box_accesses(tensor_at(tensors, box), box, false, loads);
  if (boxes.store.tensor != TensorBox::kNone) box_accesses(tensor_at(tensors, boxes.store), boxes.store, true, stores);
}

}  // namespace ecosim::accel
