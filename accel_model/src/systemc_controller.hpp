// Internal: the SystemC controller. It walks the planned tiles of each operation with three threads — loader
// (DMA loads into a free half of the double-buffered inputs), executor (array or vector unit) and storer (DMA
// write-back) — so the load of tile i+1 overlaps the computation of tile i. Operations run one after another.
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

  /// Queues a replay; the caller then runs sc_start() until the simulation starves.
  void start(const std::vector<OpPlan>& plans, ReplayResult& result) {
    plans_ = &plans;
    result_ = &result;
    finished_ = false;
    pending_ = true;
    start_.notify(SC_ZERO_TIME);  // wakes the loader when it already waits (every replay after the first)
  }
  bool finished() const { return finished_; }

 private:
  void loader() {
    for (;;) {
      while (!pending_) wait(start_);
      pending_ = false;
      for (const OpPlan& plan : *plans_) {
        tiles_ = &plan.tiles;
        job_.op = plan.name;
        stored_ = 0;
        const std::uint64_t start = now_cycles();
        const EnergyBreakdown energy_before = job_.ledger->total();
        const std::uint64_t array_before = job_.busy_cycles[0], vector_before = job_.busy_cycles[1],
                            dma_before = job_.busy_cycles[2];
        for (std::size_t i = 0; i < tiles_->size(); ++i) {
          input_slots_.wait();
          if ((*tiles_)[i].load_total_bits()) dma->load((*tiles_)[i]);
          to_compute_.write(i);
        }
        while (stored_ < tiles_->size()) wait(op_done_);
        OpRow row = static_row(plan, *job_.config);  // names, tiles, MACs, DRAM bits: independent of timing
        row.cycles = now_cycles() - start;
        row.array_cycles = job_.busy_cycles[0] - array_before;
        row.vector_cycles = job_.busy_cycles[1] - vector_before;
        row.dram_cycles = job_.busy_cycles[2] - dma_before;
        row.energy = job_.ledger->total() - energy_before;
        result_->add(std::move(row));
      }
      finished_ = true;
    }
  }

  void executor() {
    for (;;) {
      std::size_t i = 0;
      to_compute_.read(i);
      output_slots_.wait();
      const TileWork& tile = (*tiles_)[i];
      if (tile.unit == Unit::array) array->execute(tile);
      if (tile.unit == Unit::vector) vector->execute(tile);
      input_slots_.post();
      to_store_.write(i);
    }
  }

  void storer() {
    for (;;) {
      std::size_t i = 0;
      to_store_.read(i);
      if ((*tiles_)[i].store_bits) dma->store((*tiles_)[i]);
      output_slots_.post();
      ++stored_;
      op_done_.notify();
    }
  }

  Job& job_;
  const std::vector<OpPlan>* plans_ = nullptr;
  const std::vector<TileWork>* tiles_ = nullptr;
  ReplayResult* result_ = nullptr;
  bool pending_ = false, finished_ = false;
  std::size_t stored_ = 0;
  sc_event start_, op_done_;
  sc_semaphore input_slots_{2}, output_slots_{2};  // double-buffered halves
  sc_fifo<std::size_t> to_compute_{2}, to_store_{2};
};

}  // namespace ecosim::accel::sc
