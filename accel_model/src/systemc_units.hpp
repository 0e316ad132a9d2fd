// Internal: the SystemC modules of the accelerator — SRAM buffers, DMA/DRAM, fusion-unit array, vector unit —
// and the interfaces they are connected by. Each transaction is one tile transfer or one tile computation;
// time advances by wait() for the cycles it costs (1 cycle = 1 ns of SystemC time; latency uses the clock).
#pragma once
#include <ostream>
#include <systemc>

#include "ecosim/accel_model/replay.hpp"

namespace ecosim::accel {

/// sc_fifo<TileWork> prints its contents with this (SystemC's fifo dump).
inline std::ostream& operator<<(std::ostream& out, const TileWork& tile) {
  return out << name(tile.unit) << " tile, " << tile.compute_cycles << " cycles";
}

}  // namespace ecosim::accel

namespace ecosim::accel::sc {

using namespace sc_core;

/// State of the replay being simulated, shared by the modules (one replay at a time per process).
struct Job {
  const AccelConfig* config = nullptr;
  EnergyLedger* ledger = nullptr;
  TimelineWriter* timeline = nullptr;
  std::uint64_t origin_cycle = 0;            // simulated time when the replay began (timelines start at 0)
  std::uint64_t busy_cycles[3] = {0, 0, 0};  // by Unit: array, vector, dma

  void busy(Unit unit, bool store, std::uint64_t start, std::uint64_t cycles) {
    busy_cycles[std::size_t(unit)] += cycles;
    if (timeline) timeline->busy(unit, store, start - origin_cycle, cycles);
  }
};

inline std::uint64_t now_cycles() { return sc_time_stamp().value() / sc_time(1, SC_NS).value(); }
inline void wait_cycles(std::uint64_t n) {
  if (n) wait(sc_time(double(n), SC_NS));
}

struct BufferIf : virtual sc_interface {
  virtual void access(std::uint64_t bits, bool write) = 0;
};
struct DramIf : virtual sc_interface {
  virtual void load(const TileWork& tile) = 0;   // DRAM → weights/inputs/outputs buffers
  virtual void store(const TileWork& tile) = 0;  // outputs buffer → DRAM
};
struct ComputeIf : virtual sc_interface {
  virtual void execute(const TileWork& tile) = 0;
};

/// One SRAM buffer: counts the bits read and written (their energy is charged by the step that moves them).
class SramBuffer : public sc_module, public BufferIf {
 public:
  sc_export<BufferIf> target{"target"};
  explicit SramBuffer(sc_module_name name) : sc_module(name) { target.bind(*this); }
  void access(std::uint64_t bits, bool write) override { (write ? write_bits_ : read_bits_) += bits; }
  std::uint64_t read_bits() const { return read_bits_; }
  std::uint64_t write_bits() const { return write_bits_; }

 private:
  std::uint64_t read_bits_ = 0, write_bits_ = 0;
};

/// The DMA engine and DRAM interface: a transfer takes a fixed latency plus its bits over `bits_per_cycle`.
/// One channel: only the controller's DMA sequencer calls it, one transfer after another.
class Dma : public sc_module, public DramIf {
 public:
  sc_export<DramIf> target{"target"};
  sc_port<BufferIf> buffers[kBufferCount];
  Dma(sc_module_name name, Job& job) : sc_module(name), job_(job) { target.bind(*this); }

  void load(const TileWork& tile) override {
    const std::uint64_t start = now_cycles(), cycles = dram_cycles(tile.load_total_bits(), *job_.config);
    wait_cycles(cycles);
    for (Buffer b : kAllBuffers) buffers[std::size_t(b)]->access(tile.load_bits[std::size_t(b)], true);
    charge_load(tile, *job_.ledger);
    job_.busy(Unit::dma, false, start, cycles);
  }
  void store(const TileWork& tile) override {
    const std::uint64_t start = now_cycles(), cycles = dram_cycles(tile.store_bits, *job_.config);
    wait_cycles(cycles);
    buffers[std::size_t(Buffer::outputs)]->access(tile.store_bits, false);
    charge_store(tile, *job_.ledger);
    job_.busy(Unit::dma, true, start, cycles);
  }

 private:
  Job& job_;
};

/// A compute unit (the fusion-unit array or the vector unit): reads and writes its buffers for a tile and is
/// busy for the tile's cycles.
class ComputeUnit : public sc_module, public ComputeIf {
 public:
  sc_export<ComputeIf> target{"target"};
  sc_port<BufferIf> buffers[kBufferCount];
  ComputeUnit(sc_module_name name, Unit unit, Job& job) : sc_module(name), unit_(unit), job_(job) {
    target.bind(*this);
  }
  void execute(const TileWork& tile) override {
    const std::uint64_t start = now_cycles();
    for (Buffer b : kAllBuffers) buffers[std::size_t(b)]->access(tile.unit_read_bits[std::size_t(b)], false);
    wait_cycles(tile.compute_cycles);
    for (Buffer b : kAllBuffers) buffers[std::size_t(b)]->access(tile.unit_write_bits[std::size_t(b)], true);
    charge_compute(tile, *job_.ledger);
    job_.busy(unit_, false, start, tile.compute_cycles);
  }

 private:
  Unit unit_;
  Job& job_;
};

}  // namespace ecosim::accel::sc
