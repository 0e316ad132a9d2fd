// Internal: what every SystemC module of the accelerator shares — the replay's state (Job), simulated time in
// cycles (1 cycle = 1 ns of SystemC time; latency in ms uses the clock) and loosely-timed TLM-2.0 transport:
// each initiator thread keeps a tlm_quantumkeeper, b_transport adds a transaction's cycles to its local time,
// and the thread synchronises before any handshake with another thread (so timing is exact whatever the
// global quantum, which only bounds how far a thread runs ahead between handshakes).
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <ostream>
#include <systemc>
#include <tlm>

#include "ecosim/accel_model/replay.hpp"

namespace ecosim::accel {

/// sc_fifo of tiles prints its contents with this (SystemC's fifo dump).
inline std::ostream& operator<<(std::ostream& out, const TileWork& tile) {
  return out << name(tile.unit) << " tile, " << tile.compute_cycles << " cycles";
}

}  // namespace ecosim::accel

namespace ecosim::accel::sc {

using namespace sc_core;

/// State of the replay being simulated, shared by its modules.
struct Job {
  const AccelConfig* config = nullptr;
  EnergyLedger* ledger = nullptr;
  TimelineWriter* timeline = nullptr;
  const ReplayProgress* progress = nullptr;  // told of ops and tiles done, when not null
  ReplayWork done;                           // ops finished, and their tiles
  std::uint64_t busy_cycles[3] = {0, 0, 0};  // by Unit: array, vector, dma

  /// `unit` busy for `cycles` from `start`, and `repeats` − 1 times more, each `period` cycles after the one
  /// before (a fast-forward's).
  void busy(Unit unit, bool store, std::uint64_t start, std::uint64_t cycles, std::uint64_t repeats = 1,
            std::uint64_t period = 0) {
    busy_cycles[std::size_t(unit)] += cycles * repeats;
    if (timeline) timeline->busy(unit, store, start, cycles, repeats, period);
  }
};

inline std::uint64_t to_cycles(const sc_time& t) { return t.value() / sc_time(1, SC_NS).value(); }
inline std::uint64_t now_cycles() { return to_cycles(sc_time_stamp()); }
inline sc_time cycles_time(std::uint64_t n) { return sc_time(double(n), SC_NS); }

/// A unit's command: the tile a transfer or computation is for, carried by the generic payload's data
/// pointer, and which of its load parts to move (the DMA; all but prefetched weights) and whether to charge
/// the tile's energy with it.
struct TileCommand {
  TileWork tile;
  std::array<bool, kBufferCount> move{true, true, true};
  bool charge = true;
};
inline void set_command(tlm::tlm_generic_payload& payload, tlm::tlm_command command, TileCommand& c) {
  payload.set_command(command);
  payload.set_address(0);
  payload.set_data_ptr(reinterpret_cast<unsigned char*>(&c));
  payload.set_data_length(sizeof(TileCommand));
  payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}
inline const TileCommand& command_of(tlm::tlm_generic_payload& payload) {
  return *reinterpret_cast<const TileCommand*>(payload.get_data_ptr());
}

/// Brings the thread's time up to its keeper's local time (nothing, not even a delta cycle, when it is there).
inline void settle(tlm_utils::tlm_quantumkeeper& keeper) {
  if (keeper.get_local_time() != SC_ZERO_TIME) keeper.sync();
}

/// One blocking transaction at the keeper's local time; its delay becomes the new local time.
template <class Socket>
void transport(Socket& socket, tlm::tlm_generic_payload& payload, tlm_utils::tlm_quantumkeeper& keeper) {
  sc_time delay = keeper.get_local_time();
  socket->b_transport(payload, delay);
  keeper.set(delay);
  if (keeper.need_sync()) keeper.sync();
}

}  // namespace ecosim::accel::sc
