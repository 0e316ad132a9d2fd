// Internal: the SystemC controller. It runs one planned operation at a time through the tile pipeline of
// pipeline.hpp with two threads: the DMA sequencer walks the op's tiles as they are generated and, for stage
// i, waits until tile i−1 has computed, stores it and loads tile i+1 (one channel, this order: the store frees
// the output half tile i+1 reuses, the load fills the operand halves tile i−1 used); the executor computes
// each tile on the array or vector unit once it is loaded. Tiles travel by value through a two-place fifo:
// nothing holds an op's whole tile list.
#pragma once
#include "systemc_units.hpp"

namespace ecosim::accel::sc {

class Controller : public sc_module {
 public:
  sc_port<DramIf> dma{"dma"};
  sc_port<ComputeIf> array{"array"}, vector{"vector"};

  SC_HAS_PROCESS(Controller);
  Controller(sc_module_name name, Job& job) : sc_module(name), job_(job) {
    SC_THREAD(sequencer);
    SC_THREAD(executor);
  }

  /// Queues one op (the plan must live until it has run); the caller then runs sc_start() until the
  /// simulation starves, and finds the op's row in `row`.
  void start(const OpPlan& plan, OpRow& row) {
    plan_ = &plan;
    row_ = &row;
    finished_ = false;
    pending_ = true;
    start_.notify(SC_ZERO_TIME);  // wakes the sequencer when it already waits (every op after the first)
  }
  bool finished() const { return finished_; }

 private:
  void sequencer() {
    for (;;) {
      while (!pending_) wait(start_);
      pending_ = false;
      StaticRow tally(*plan_, *job_.config);  // names, tiles, MACs, DRAM bits: independent of timing
      *job_.ledger = EnergyLedger(*job_.config);
      computed_ = 0;
      const std::uint64_t start = now_cycles();
      const std::uint64_t array_before = job_.busy_cycles[0], vector_before = job_.busy_cycles[1],
                          dma_before = job_.busy_cycles[2];
      PlanCursor tiles(*plan_);
      TileWork previous, current;
      bool more = tiles.next(current);
      if (more) load(current, tally);
      std::uint64_t stage = 0;  // the tile computing while the DMA works for this stage
      for (; more; ++stage) {
        wait_computed(stage);
        if (stage > 0 && previous.store_bits) dma->store(previous);
        previous = current;
        more = tiles.next(current);
        if (more) load(current, tally);
      }
      wait_computed(stage);  // every tile computed: the last one's outputs go out
      if (stage > 0 && previous.store_bits) dma->store(previous);
      OpRow& row = *row_ = tally.row();
      row.cycles = now_cycles() - start;
      row.array_cycles = job_.busy_cycles[0] - array_before;
      row.vector_cycles = job_.busy_cycles[1] - vector_before;
      row.dram_cycles = job_.busy_cycles[2] - dma_before;
      row.energy = job_.ledger->total();
      finished_ = true;
    }
  }

  /// DMA-loads a tile (when it needs data) and hands it to the executor.
  void load(const TileWork& tile, StaticRow& tally) {
    tally.add(tile);
    if (tile.load_total_bits()) dma->load(tile);
    to_compute_.write(tile);
  }

  void wait_computed(std::uint64_t tiles) {
    while (computed_ < tiles) wait(computed_event_);
  }

  void executor() {
    for (;;) {
      TileWork tile;
      to_compute_.read(tile);
      if (tile.unit == Unit::array) array->execute(tile);
      if (tile.unit == Unit::vector) vector->execute(tile);
      ++computed_;
      computed_event_.notify();  // the sequencer re-checks the count, so an immediate notification is enough
    }
  }

  Job& job_;
  const OpPlan* plan_ = nullptr;
  OpRow* row_ = nullptr;
  bool pending_ = false, finished_ = false;
  std::uint64_t computed_ = 0;  // tiles of the current op computed
  sc_event start_, computed_event_;
  sc_fifo<TileWork> to_compute_{2};  // loaded tiles: the one computing and the next
};

}  // namespace ecosim::accel::sc
