// Internal: the SystemC units of the accelerator — SRAM buffers, the DMA engine and the two compute units
// (fusion-unit array, vector unit) — as TLM-2.0 targets. Each transaction is one tile transfer or one tile
// computation; its cycles come back as annotated delay (the DMA's from the memory target, see
// systemc_memory.hpp).
#pragma once
#include "systemc_memory.hpp"

namespace ecosim::accel::sc {

struct BufferIf : virtual sc_interface {
  virtual void access(std::uint64_t bits, bool write) = 0;
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

/// The DMA engine: a read command loads a tile's operands (DRAM → buffers), a write command stores its
/// outputs (outputs buffer → DRAM), as one memory transaction (the memory target times it).
class Dma : public sc_module {
 public:
  tlm_utils::simple_target_socket<Dma> target{"target"};
  tlm_utils::simple_initiator_socket<Dma> memory{"memory"};
  sc_port<BufferIf> buffers[kBufferCount];
  Dma(sc_module_name name, Job& job) : sc_module(name), job_(job) {
    target.register_b_transport(this, &Dma::b_transport);
    access_.set_extension(&transfer_);
  }
  ~Dma() override { access_.clear_extension(&transfer_); }  // owned here, not by the payload

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_time& delay) {
    const TileCommand& c = command_of(payload);
    const bool store = payload.is_write();
    const std::uint64_t start = now_cycles() + to_cycles(delay);
    const sc_time before = delay;
    transfer_.command = &c;
    access_.set_command(payload.get_command());
    access_.set_address(0);         // the memory target finds the tile's addresses from its tensors
    access_.set_data_ptr(nullptr);  // timing only: no data moves
    access_.set_data_length(0);
    access_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    memory->b_transport(access_, delay);
    account(c, store, 1);
    job_.busy(Unit::dma, store, start, to_cycles(delay - before));
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
  }

 public:
  /// The buffer accesses and energy of `count` transfers of `c` (a store, or a load), without time: b_transport's
  /// own, and a fast-forward's for the transfers it passes over.
  void account(const TileCommand& c, bool store, std::uint64_t count) {
    for (Buffer b : kAllBuffers) {
      const std::uint64_t bits = store ? (b == Buffer::outputs ? c.tile.store_bits : 0)
                                       : (c.move[std::size_t(b)] ? c.tile.load_bits[std::size_t(b)] : 0);
      if (bits) buffers[std::size_t(b)]->access(bits * count, !store);
    }
    if (c.charge) {
      if (store)
        charge_store(c.tile, *job_.ledger, count);
      else
        charge_load(c.tile, *job_.ledger, count);
    }
  }

 private:
  Job& job_;
  DmaTransferExtension transfer_;
  tlm::tlm_generic_payload access_;
};

/// A compute unit (the fusion-unit array or the vector unit): reads and writes its buffers for a tile and is
/// busy for the tile's cycles.
class ComputeUnit : public sc_module {
 public:
  tlm_utils::simple_target_socket<ComputeUnit> target{"target"};
  sc_port<BufferIf> buffers[kBufferCount];
  ComputeUnit(sc_module_name name, Unit unit, Job& job) : sc_module(name), unit_(unit), job_(job) {
    target.register_b_transport(this, &ComputeUnit::b_transport);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_time& delay) {
    const TileWork& tile = command_of(payload).tile;
    const std::uint64_t start = now_cycles() + to_cycles(delay);
    delay += cycles_time(tile.compute_cycles);
    account(tile, 1);
    job_.busy(unit_, false, start, tile.compute_cycles);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
  }

 public:
  /// The buffer accesses and energy of computing `tile` `count` times, without time (b_transport's own, and a
  /// fast-forward's).
  void account(const TileWork& tile, std::uint64_t count) {
    for (Buffer b : kAllBuffers) buffers[std::size_t(b)]->access(tile.unit_read_bits[std::size_t(b)] * count, false);
    for (Buffer b : kAllBuffers) buffers[std::size_t(b)]->access(tile.unit_write_bits[std::size_t(b)] * count, true);
    charge_compute(tile, *job_.ledger, count);
  }

 private:
  Unit unit_;
  Job& job_;
};

}  // namespace ecosim::accel::sc
