// Internal: the SystemC controller. It runs one planned operation at a time with three threads — loader
// (walks the op's tiles as they are generated, DMA-loading each into a free half of the double-buffered
// inputs), executor (array or vector unit) and storer (DMA write-back) — so the load of tile i+1 overlaps the
// computation of tile i. Tiles travel by value through two-place fifos: nothing holds an op's whole tile list.
#pragma once
#include "systemc_units.hpp"

namespace ecosim::accel::sc {

class Controller : public sc_module {
 public:
  sc_port<DramIf> dma{"dma"};
  sc_port<ComputeIf> array{"array"}, vector{"vector"};

  SC_HAS_PROCESS(Controller);
  Controller(sc_module_name name, Job& job) : sc_module(name), job_(job) {
    SC_THREAD(loader);
    SC_THREAD(executor);
    SC_THREAD(storer);
  }

  /// Queues one op (the plan must live until it has run); the caller then runs sc_start() until the
  /// simulation starves, and finds the op's row in `row`.
  void start(const OpPlan& plan, OpRow& row) {
    plan_ = &plan;
    row_ = &row;
    finished_ = false;
    pending_ = true;
    start_.notify(SC_ZERO_TIME);  // wakes the loader when it already waits (every op after the first)
  }
  bool finished() const { return finished_; }

 private:
  void loader() {
    for (;;) {
      while (!pending_) wait(start_);
      pending_ = false;
      StaticRow tally(*plan_, *job_.config);  // names, tiles, MACs, DRAM bits: independent of timing
      loaded_ = stored_ = 0;
      const std::uint64_t start = now_cycles();
      const EnergyBreakdown energy_before = job_.ledger->total();
      const std::uint64_t array_before = job_.busy_cycles[0], vector_before = job_.busy_cycles[1],
                          dma_before = job_.busy_cycles[2];
      PlanCursor tiles(*plan_);
      TileWork tile;
      while (tiles.next(tile)) {
        tally.add(tile);
        input_slots_.wait();
        if (tile.load_total_bits()) dma->load(tile);
        ++loaded_;
        to_compute_.write(tile);
      }
      while (stored_ < loaded_) wait(op_done_);
      OpRow& row = *row_ = tally.row();
      row.cycles = now_cycles() - start;
      row.array_cycles = job_.busy_cycles[0] - array_before;
      row.vector_cycles = job_.busy_cycles[1] - vector_before;
      row.dram_cycles = job_.busy_cycles[2] - dma_before;
      row.energy = job_.ledger->total() - energy_before;
      finished_ = true;
    }
  }

  void executor() {
    for (;;) {
      TileWork tile;
      to_compute_.read(tile);
      output_slots_.wait();
      if (tile.unit == Unit::array) array->execute(tile);
      if (tile.unit == Unit::vector) vector->execute(tile);
      input_slots_.post();
      to_store_.write(tile);
    }
  }

  void storer() {
    for (;;) {
      TileWork tile;
      to_store_.read(tile);
      if (tile.store_bits) dma->store(tile);
      output_slots_.post();
      ++stored_;
      op_done_.notify();
    }
  }

  Job& job_;
  const OpPlan* plan_ = nullptr;
  OpRow* row_ = nullptr;
  bool pending_ = false, finished_ = false;
  std::uint64_t loaded_ = 0, stored_ = 0;
  sc_event start_, op_done_;
  sc_semaphore input_slots_{2}, output_slots_{2};  // double-buffered halves
  sc_fifo<TileWork> to_compute_{2}, to_store_{2};
};

}  // namespace ecosim::accel::sc
