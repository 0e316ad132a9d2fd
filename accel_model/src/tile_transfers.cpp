// Tile transfers timed by a memory model through the tiles' row segments.
#include "ecosim/accel_model/tile_transfers.hpp"

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::accel {

void TileTransfers::start_op(const OpPlan& plan, const OpPlan* next) {
  placed_.clear();
  for (const OpPlan* p : {&plan, next}) {
    if (!p) continue;
    LayoutAllocator allocator;
    for (const auto& run : p->runs) placed_.emplace_back(run.get(), allocator.place(*run));
  }
}

const std::vector<TensorLayout>& TileTransfers::tensors_of(const TileWork& tile) const {
  for (const auto& [run, tensors] : placed_)
    if (run == tile.run) return tensors;
  throw Error("TileTransfers: a tile of an op not started (call start_op with its plan first)");
}

std::uint64_t TileTransfers::load_complete(const TileWork& tile, std::uint64_t issue_cycle,
                                           std::array<bool, kBufferCount> parts) {
  std::uint64_t bits = 0;
  for (Buffer b : kAllBuffers)
    if (parts[std::size_t(b)]) bits += tile.load_bits[std::size_t(b)];
  segments_.clear();
  if (memory_.name() != kSimpleMemoryModel && bits) {  // `simple`: a transfer's bits are all it needs
    const auto& tensors = tensors_of(tile);            // first: a tile of no placed run is refused before its boxes
    const TileBoxes boxes = tile.run->boxes(tile);
    for (Buffer b : kAllBuffers) {
      const TensorBox& box = boxes.load[std::size_t(b)];
      if (parts[std::size_t(b)] && box.tensor != TensorBox::kNone)
        box_accesses(tensor_at(tensors, box), box, false, segments_);
    }
  }
  return transfer_complete_cycle(memory_, segments_, bits, issue_cycle);
}

std::uint64_t TileTransfers::store_complete(const TileWork& tile, std::uint64_t issue_cycle) {
  segments_.clear();
  if (memory_.name() != kSimpleMemoryModel && tile.store_bits) {
    const auto& tensors = tensors_of(tile);
    const TensorBox box = tile.run->boxes(tile).store;
    if (box.tensor != TensorBox::kNone) box_accesses(tensor_at(tensors, box), box, true, segments_);
  }
  return transfer_complete_cycle(memory_, segments_, tile.store_bits, issue_cycle);
}

}  // namespace ecosim::accel
