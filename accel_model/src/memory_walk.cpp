// An op's tiles alone through the pipeline recurrence, each transfer timed by a fresh memory model.
#include "memory_walk.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include "ecosim/accel_model/memory_model.hpp"
#include "ecosim/accel_model/tile_transfers.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::accel {

namespace {

/// Where a walk stopped: the cycle its last stage ended and the DRAM bits moved by then.
struct WalkedSample {
  std::uint64_t cycles = 0, bits = 0;
};

/// The walk of memory_walked_cycles, stopped after the first DMA stage that brings the bits moved to
/// `stop_bits` or walks its `stop_tiles`-th tile (then the cycle that stage and the computation beside it end, and
/// the bits moved by then).
WalkedSample walk(const std::shared_ptr<const TileRun>& run, const AccelConfig& config, std::uint64_t stop_bits,
                  std::uint64_t stop_tiles) {
  OpPlan plan;
  plan.runs = {run};
  const std::unique_ptr<MemoryModel> memory = make_memory_model(config);
  TileTransfers transfers(*memory);
  transfers.start_op(plan);
  PlanCursor cursor(plan);
  TileWork pending;  // loaded, not computed yet
  if (!cursor.next(pending)) return {};
  std::uint64_t dma = transfers.load_complete(pending, 0);  // when the DMA finished its last transfer
  std::uint64_t pending_loaded = dma, computed = 0;         // computed: when every tile before `pending` had
  std::uint64_t bits = pending.load_total_bits(), walked = 0;
  std::optional<TileWork> to_store;  // the tile computed last, its outputs still on chip
  TileWork next;
  for (bool more = cursor.next(next);; more = cursor.next(next)) {
    if (pending.beside_previous && config.overlap_units)
      throw std::logic_error("memory_walked_cycles: a tile computing beside the one before it");
    // The DMA's stage for `pending`, once every tile before it has computed: the last one's store, the next load.
    std::uint64_t t = std::max(dma, computed);
    if (to_store) t = transfers.store_complete(*to_store, t), bits += to_store->store_bits;
    if (more) t = transfers.load_complete(next, t), bits += next.load_total_bits();
    dma = t;
    computed = checked_add(std::max(pending_loaded, computed), pending.unit == Unit::dma ? 0 : pending.compute_cycles);
    if (!more)
      return {transfers.store_complete(pending, std::max(dma, computed)), checked_add(bits, pending.store_bits)};
    if (bits >= stop_bits || ++walked >= stop_tiles) return {std::max(dma, computed), bits};
    to_store = pending;
    pending = next;
    pending_loaded = dma;
  }
}

}  // namespace

std::uint64_t memory_walked_cycles(const std::shared_ptr<const TileRun>& run, const AccelConfig& config) {
  return walk(run, config, ~std::uint64_t{0}, ~std::uint64_t{0}).cycles;
}

double memory_walked_estimate(const std::shared_ptr<const TileRun>& run, const AccelConfig& config,
                              std::uint64_t dram_bits, std::uint64_t bound_cycles) {
  const WalkedSample sample = walk(run, config, kMemorySampleBits, kMemorySampleTiles);
  const double rate = sample.bits ? double(sample.cycles) / double(sample.bits) : 0;
  return std::max(double(bound_cycles), rate * double(dram_bits));
}

}  // namespace ecosim::accel
