// Tile transfers timed by a memory model through the tiles' row segments.
#include "ecosim/accel_model/tile_transfers.hpp"

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::accel {

void TileTransfers::start_op(const OpPlan& plan) {
  placed_.clear();
  LayoutAllocator allocator;
  for (const auto& run : plan.runs) placed_.emplace_back(run.get(), allocator.place(*run));
}

void TileTransfers::segments(const TileWork& tile) {
  loads_.clear();
  stores_.clear();
  if (memory_.name() == kSimpleMemoryModel) return;  // `simple`: a transfer's bits are all it needs
  for (const auto& [run, tensors] : placed_)
    if (run == tile.run) return tile_accesses(tile, tensors, loads_, stores_);
  throw Error("TileTransfers: a tile of an op not started (call start_op with its plan first)");
}

std::uint64_t TileTransfers::load_complete(const TileWork& tile, std::uint64_t issue_cycle) {
  segments(tile);
  return transfer_complete_cycle(memory_, loads_, tile.load_total_bits(), issue_cycle);
}

std::uint64_t TileTransfers::store_complete(const TileWork& tile, std::uint64_t issue_cycle) {
  segments(tile);
  return transfer_complete_cycle(memory_, stores_, tile.store_bits, issue_cycle);
}

}  // namespace ecosim::accel
