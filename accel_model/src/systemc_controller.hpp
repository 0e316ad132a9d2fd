// Internal: the SystemC controller. It runs one planned operation at a time through the tile pipeline of
// pipeline.hpp with three threads, each a TLM-2.0 initiator: the DMA sequencer walks the op's tiles as they
// are generated and, for stage i, waits until tiles 0…i−1 have computed, stores tile i−1 and loads tile i+1
// (one channel, this order: the store frees the output half tile i+1 reuses, the load fills the operand
// halves tile i−1 used), then hands the loaded tile to its unit's executor; the array executor and the
// vector executor each compute their unit's tiles in order, a tile once every earlier tile has computed (with
// config.overlap_units: except the one just before a beside_previous tile). With config.prefetch_weights the
// sequencer loads the next op's first weight tile while this op's last tile computes, when its estimated
// cycles fit before that tile ends (the half it fills, tile T−2's, is free by then). Tiles travel by value
// through two-place fifos: nothing holds an op's whole tile list. Where the configuration allows it
// (fast_forward.hpp), the sequencer passes over steady runs of alike tiles: each such run's periods are charged
// at once and the simulation jumps to the end of the run, with the same cycles as the walk.
#pragma once
#include <deque>
#include <optional>

#include "ecosim/accel_model/pipeline.hpp"
#include "fast_forward.hpp"
#include "systemc_units.hpp"

namespace ecosim::accel::sc {

/// A tile with its place in the op.
struct IndexedTile {
  std::uint64_t index = 0;
  TileWork tile;
};
inline std::ostream& operator<<(std::ostream& out, const IndexedTile& t) { return out << t.index << ": " << t.tile; }

class Controller : public sc_module {
 public:
  tlm_utils::simple_initiator_socket<Controller> dma{"dma"}, array{"array"}, vector{"vector"};

  SC_HAS_PROCESS(Controller);
  /// The units a fast-forward charges directly: `dma` and the compute units `units` (by Unit: array, vector).
  Controller(sc_module_name name, Job& job, Dma& dma, ComputeUnit& array, ComputeUnit& vector)
      : sc_module(name), job_(job), dma_unit_(dma), array_unit_(array), vector_unit_(vector) {
    if (FastForward::enabled(*job.config)) forward_.emplace(*job.config, job.timeline != nullptr);
    SC_THREAD(sequencer);
    SC_THREAD(array_executor);
    SC_THREAD(vector_executor);
  }

  /// Queues one op (the plan, and `next` when given, must live until it has run); the caller then runs
  /// sc_start() until the simulation starves, and finds the op's row in `row`. `next` is the op that follows
  /// (its first weight tile may be prefetched).
  void start(const OpPlan& plan, OpRow& row, const OpPlan* next) {
    plan_ = &plan;
    next_ = next;
    row_ = &row;
    finished_ = false;
    pending_ = true;
    start_.notify(SC_ZERO_TIME);  // wakes the sequencer when it already waits (every op after the first)
  }
  bool finished() const { return finished_; }
  /// The tiles of the last op that ran loaded one by one (the others fast-forwarded).
  std::uint64_t walked() const { return walked_; }

 private:
  void sequencer() {
    for (;;) {
      while (!pending_) wait(start_);
      pending_ = false;
      run_op();
      finished_ = true;
    }
  }

  void run_op() {
    StaticRow tally(*plan_, *job_.config);  // names, tiles, MACs, DRAM bits: independent of timing
    *job_.ledger = EnergyLedger(*job_.config);
    computed_ = 0;
    done_.clear();
    started_ = 0;
    walked_ = 0;
    if (forward_) forward_->clear();
    const std::uint64_t start = now_cycles();
    const std::uint64_t array_before = job_.busy_cycles[0], vector_before = job_.busy_cycles[1],
                        dma_before = job_.busy_cycles[2];
    PlanCursor tiles(*plan_);
    TileWork previous, current;
    std::uint64_t loaded = 0;  // tiles loaded (the next one's index)
    bool more = tiles.next(current);
    if (more) load(current, loaded++, tally);
    std::uint64_t stage = 0;  // the tile computing while the DMA works for this stage
    for (; more; ++stage) {
      wait_computed(stage);
      if (forward_)
        if (const auto skip = forward_->stage(current, now_cycles(), tiles))
          fast_forward(*skip, stage, tiles, previous, current, loaded, tally);
      if (stage > 0 && previous.store_bits) dma_command(tlm::TLM_WRITE_COMMAND, TileCommand{previous});
      previous = current;
      more = tiles.next(current);
      if (more) load(current, loaded++, tally);
    }
    const std::uint64_t prefetch_cycles = prefetch(previous, loaded);
    wait_computed(stage);  // every tile computed: the last one's outputs go out
    if (stage > 0 && previous.store_bits) dma_command(tlm::TLM_WRITE_COMMAND, TileCommand{previous});
    settle(keeper_dma_);
    OpRow& row = *row_ = tally.row();
    row.cycles = now_cycles() - start;
    row.array_cycles = job_.busy_cycles[0] - array_before;
    row.vector_cycles = job_.busy_cycles[1] - vector_before;
    // The DMA's cycles in this op, those of its own weights prefetched before it began included.
    row.dram_cycles = job_.busy_cycles[2] - dma_before - prefetch_cycles + prefetched_cycles_;
    prefetched_cycles_ = prefetch_cycles;
    row.energy = job_.ledger->total();
  }

  /// DMA-loads tile `index` (the bits not prefetched, when it needs data) and hands it to its executor; tells
  /// the progress callback every kProgressTiles tiles.
  void load(const TileWork& tile, std::uint64_t index, StaticRow& tally) {
    tally.add(tile);
    ++walked_;
    if (job_.progress && index % kProgressTiles == kProgressTiles - 1)
      (*job_.progress)({job_.done.ops, job_.done.tiles + index + 1, job_.done.walked_tiles + walked_});
    TileCommand c{tile};
    if (index == 0 && weights_prefetched_) c.move[std::size_t(Buffer::weights)] = false;
    if (index == 0) weights_prefetched_ = false;
    if (tile.load_total_bits()) dma_command(tlm::TLM_READ_COMMAND, c);
    settle(keeper_dma_);  // the tile is loaded now: the executor may start it
    (tile.unit == Unit::vector ? to_vector_ : to_array_).write(IndexedTile{index, tile});
  }

  /// With config.prefetch_weights and a next op: once this op's last tile (`last`, the `tiles`-th) has started,
  /// loads the next op's first weight tile if its estimated cycles end before that tile does (so the op
  /// takes no longer). Returns the DMA cycles spent.
  std::uint64_t prefetch(const TileWork& last, std::uint64_t tiles) {
    if (!job_.config->prefetch_weights || !next_) return 0;
    TileWork first;
    PlanCursor next_tiles(*next_);
    if (!next_tiles.next(first) || first.load_bits[std::size_t(Buffer::weights)] == 0) return 0;
    settle(keeper_dma_);
    while (started_ < tiles) wait(started_event_);
    const std::uint64_t estimate = dram_cycles(first.load_bits[std::size_t(Buffer::weights)], *job_.config);
    if (now_cycles() + estimate > last_start_cycle_ + tile_times(last, *job_.config).compute) return 0;
    TileCommand c{first};
    c.move = {true, false, false};
    c.charge = false;  // the next op's first load charges the whole tile
    const std::uint64_t before = job_.busy_cycles[2];
    dma_command(tlm::TLM_READ_COMMAND, c);
    weights_prefetched_ = true;
    return job_.busy_cycles[2] - before;
  }

  /// At stage σ (tile σ just started computing, the DMA idle): passes over the stages σ … σ + K − 1 of `skip`
  /// (K = periods × period), each a copy of the stage one period earlier. Their stores (tiles σ − 1 … σ + K − 2),
  /// loads (σ + 1 … σ + K) and computations (σ + 1 … σ + K − 1) are charged at the times the walk would give
  /// them; once tile σ has computed, time jumps to the start of stage σ + K, and tile σ + K, loaded, starts
  /// computing as in the walk. `stage`, the tiles around the cursor and the count loaded move on accordingly.
  void fast_forward(const FastForwardSkip& skip, std::uint64_t& stage, PlanCursor& tiles, TileWork& previous,
                    TileWork& current, std::uint64_t& loaded, StaticRow& tally) {
    const AccelConfig& config = *job_.config;
    const std::uint64_t p = skip.period, m = skip.periods, stages = p * m;
    for (std::uint64_t r = 0; r < p; ++r) {  // stage σ − p + r of the period walked, repeated m times
      const WalkedStage &at = forward_->back(p - r), &stored = forward_->back(p - r + 1),
                        &fetched = forward_->back(p - r - 1);
      const std::uint64_t first = at.start_cycle + skip.period_cycles;  // its first copy: stage σ + r
      const std::uint64_t store = stored.tile.store_bits ? store_cycles(stored.tile, config) : 0;
      if (store) {
        dma_unit_.account(TileCommand{stored.tile}, true, m);
        job_.busy(Unit::dma, true, first, store, m, skip.period_cycles);
      }
      tally.add(fetched.tile, m);
      if (fetched.tile.load_total_bits()) {
        dma_unit_.account(TileCommand{fetched.tile}, false, m);
        job_.busy(Unit::dma, false, first + store, load_cycles(fetched.tile, config), m, skip.period_cycles);
      }
      if (at.tile.unit != Unit::dma) {  // stage σ's tile computes in the walk, and so does σ + K's
        const std::uint64_t copies = r == 0 ? m - 1 : m;
        (at.tile.unit == Unit::vector ? vector_unit_ : array_unit_).account(at.tile, copies);
        job_.busy(at.tile.unit, false, r == 0 ? first + skip.period_cycles : first, at.tile.compute_cycles, copies,
                  skip.period_cycles);
      }
    }
    const std::uint64_t resume = forward_->back(0).start_cycle + m * skip.period_cycles;  // stage σ + K starts
    while (computed_ < stage + 1) wait(computed_event_);
    if (resume > now_cycles()) wait(cycles_time(resume - now_cycles()));  // (tile σ ends within its period)
    FastForward::pass_over(skip, tiles, previous, current);
    forward_->clear();
    const std::uint64_t loaded_before = loaded;
    stage += stages;
    loaded += stages;
    computed_ = stage;  // every tile before σ + K (done_ is empty: only tile σ was in flight)
    if (job_.progress && loaded / kProgressTiles != loaded_before / kProgressTiles)
      (*job_.progress)({job_.done.ops, job_.done.tiles + loaded, job_.done.walked_tiles + walked_});
    (current.unit == Unit::vector ? to_vector_ : to_array_).write(IndexedTile{stage, current});
  }

  void dma_command(tlm::tlm_command command, TileCommand c) {
    set_command(payload_dma_, command, c);
    transport(dma, payload_dma_, keeper_dma_);
  }

  void wait_computed(std::uint64_t tiles) {
    settle(keeper_dma_);
    while (computed_ < tiles) wait(computed_event_);
  }

  void array_executor() { execute(to_array_, array, keeper_array_, payload_array_); }
  void vector_executor() { execute(to_vector_, vector, keeper_vector_, payload_vector_); }

  /// Computes one unit's tiles in order, each once the tiles it waits for have computed.
  void execute(sc_fifo<IndexedTile>& queue, tlm_utils::simple_initiator_socket<Controller>& unit,
               tlm_utils::tlm_quantumkeeper& keeper, tlm::tlm_generic_payload& payload) {
    for (;;) {
      IndexedTile t;
      queue.read(t);
      const std::uint64_t waits_for = overlaps_previous(t.tile, *job_.config) ? t.index - 1 : t.index;
      while (computed_ < waits_for) wait(computed_event_);
      if (t.index >= started_) {
        started_ = t.index + 1;
        last_start_cycle_ = now_cycles();
        started_event_.notify();
      }
      if (t.tile.unit != Unit::dma) {
        TileCommand c{t.tile};
        set_command(payload, tlm::TLM_WRITE_COMMAND, c);
        transport(unit, payload, keeper);
        settle(keeper);  // the tile has computed now: the others may react
      }
      mark_computed(t.index);
    }
  }

  /// Tile i computed: `computed_` counts the tiles 0…n−1 all computed (tiles may finish out of order).
  void mark_computed(std::uint64_t i) {
    if (done_.size() <= i - computed_) done_.resize(i - computed_ + 1, false);
    done_[i - computed_] = true;
    while (!done_.empty() && done_.front()) {
      done_.pop_front();
      ++computed_;
    }
    computed_event_.notify();  // waiters re-check the count, so an immediate notification is enough
  }

  Job& job_;
  Dma& dma_unit_;
  ComputeUnit &array_unit_, &vector_unit_;
  std::optional<FastForward> forward_;  // when the configuration allows fast-forward
  std::uint64_t walked_ = 0;            // tiles of the current op loaded one by one
  const OpPlan *plan_ = nullptr, *next_ = nullptr;
  OpRow* row_ = nullptr;
  bool pending_ = false, finished_ = false;
  bool weights_prefetched_ = false;      // the current op's first weight tile is already on chip
  std::uint64_t prefetched_cycles_ = 0;  // the DMA cycles of that prefetch (spent in the op before)
  std::uint64_t computed_ = 0;           // tiles of the current op computed: all of 0…computed_−1
  std::deque<bool> done_;                // tiles computed_… : computed out of order or not yet
  std::uint64_t started_ = 0;            // tiles up to the last one started (its index + 1)
  std::uint64_t last_start_cycle_ = 0;   // when that one started
  sc_event start_, computed_event_, started_event_;
  sc_fifo<IndexedTile> to_array_{2}, to_vector_{2};  // loaded tiles of each unit: the one computing and the next
  tlm::tlm_generic_payload payload_dma_, payload_array_, payload_vector_;
  tlm_utils::tlm_quantumkeeper keeper_dma_, keeper_array_, keeper_vector_;
};

}  // namespace ecosim::accel::sc
