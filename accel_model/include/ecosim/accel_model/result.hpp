// Results of replaying a trace on the accelerator: cycles, latency, energy by component (leakage included),
// per-operation rows (handed to a RowSink as each op finishes), utilisation, stall cycles and the silicon area;
// and the energy ledger both models charge as tiles move and compute.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/op_plan.hpp"

namespace ecosim::accel {

struct EnergyBreakdown {
  double array_pj = 0, vector_pj = 0, dram_pj = 0;  // dynamic energy of the units
  std::array<double, kBufferCount> sram_pj{};       // dynamic energy of the buffers, by Buffer
  double leakage_pj = 0;                            // array and buffers: leakage power × simulated time
  double total_pj() const { return array_pj + vector_pj + dram_pj + sram_pj[0] + sram_pj[1] + sram_pj[2] + leakage_pj; }
  EnergyBreakdown operator-(const EnergyBreakdown& o) const;
  EnergyBreakdown& operator+=(const EnergyBreakdown& o);
};

/// Charges dynamic energy for what the units do, from the configuration's per-cycle and per-bit energies. It
/// tallies bits and cycles as integers and prices them once in total(), so the energy of a sequence of tiles
/// does not depend on the order (or grouping) in which they are charged; a vector tile's energy is summed as
/// runs of equal per-tile values (an op's vector tiles share one value).
class EnergyLedger {
 public:
  explicit EnergyLedger(const AccelConfig& config) : config_(&config) {}
  void dram(std::uint64_t bits);
  void sram(Buffer buffer, std::uint64_t bits, bool write);
  void array(std::uint64_t cycles);
  /// `tiles` vector tiles of `pj` each.
  void vector(double pj, std::uint64_t tiles = 1);
  EnergyBreakdown total() const;

 private:
  const AccelConfig* config_;
  std::uint64_t dram_bits_ = 0, array_cycles_ = 0;
  std::array<std::uint64_t, kBufferCount> sram_read_bits_{}, sram_write_bits_{};
  double vector_done_pj_ = 0, vector_tile_pj_ = 0;  // runs of vector tiles ended; the current run's per-tile value
  std::uint64_t vector_tiles_ = 0;                  // tiles in the current run
};

struct OpRow {
  std::string name;
  OpClass kind = OpClass::gemm;
  std::string mapping;
  std::uint64_t tiles = 0, macs = 0;
  std::uint64_t cycles = 0;                                                     // first load to last store
  std::uint64_t array_cycles = 0, vector_cycles = 0;                            // busy cycles of each compute unit
  std::uint64_t dram_cycles = 0, dram_bits = 0;                                 // DMA busy cycles and bits moved
  std::array<std::uint64_t, kBufferCount> sram_read_bits{}, sram_write_bits{};  // by Buffer
  /// Cycles no compute unit was busy, at least (exact unless the array and the vector unit overlapped); a sum of
  /// rows (ReplayResult::total), the sum of theirs: one op's overlap hides no other op's stalls.
  std::uint64_t stall_cycles() const {
    if (summed_stall_cycles) return *summed_stall_cycles;
    const std::uint64_t busy = array_cycles + vector_cycles;
    return cycles > busy ? cycles - busy : 0;
  }
  EnergyBreakdown energy;
  std::optional<std::uint64_t> summed_stall_cycles = {};  // a sum of rows' (ReplayResult::add)
};

/// Receives each op's row as soon as the op has been replayed (rows are not kept by the replay).
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void row(const OpRow& row) = 0;
};

/// Silicon area of the array and each buffer (from the configuration's cost tables).
struct AreaBreakdown {
  double array_mm2 = 0;
  std::array<double, kBufferCount> sram_mm2{};  // by Buffer
  double total_mm2() const { return array_mm2 + sram_mm2[0] + sram_mm2[1] + sram_mm2[2]; }
};
AreaBreakdown area_breakdown(const AccelConfig& config);
/// {"array", "sram_weights", "sram_inputs", "sram_outputs", "total"} in mm².
nlohmann::json to_json(const AreaBreakdown& area);

struct ReplayResult {
  std::string accelerator;
  std::string engine;  // "systemc" or "closed-form"
  double clock_mhz = 0;
  std::uint64_t peak_macs_per_cycle = 0;  // rows·cols·(pmax/pmin)²: at the narrowest operands (2-bit on BitFusion)
  double leakage_mw = 0;                  // array and buffers
  AreaBreakdown area;
  OpRow total;  // summed over ops (ops run one after another)

  double latency_ms() const { return double(total.cycles) / (clock_mhz * 1e3); }
  double array_utilisation() const { return total.cycles ? double(total.array_cycles) / double(total.cycles) : 0; }
  /// MACs performed over the array's peak in the same cycles (at most 1; 8-bit operands reach 1/16 on BitFusion).
  double mac_utilisation() const {
    return total.cycles ? double(total.macs) / (double(total.cycles) * double(peak_macs_per_cycle)) : 0;
  }
  /// Adds an op's row to the total.
  void add(const OpRow& row);
};

ReplayResult make_result(const AccelConfig& config, std::string engine);
/// What one tile costs, defined once for both engines in its three steps: the DMA load (DRAM bits read, buffer
/// bits written), the computation (buffer bits read and written, array cycles or vector-unit energy) and the
/// DMA store (output-buffer bits read, DRAM bits written), for `count` tiles alike. The SystemC units charge
/// each step as it happens.
void charge_load(const TileWork& tile, EnergyLedger& ledger, std::uint64_t count = 1);
void charge_compute(const TileWork& tile, EnergyLedger& ledger, std::uint64_t count = 1);
void charge_store(const TileWork& tile, EnergyLedger& ledger, std::uint64_t count = 1);
/// All three steps at once, for `count` tiles alike (the closed-form model).
void charge_tile(const TileWork& tile, EnergyLedger& ledger, std::uint64_t count = 1);
/// Sets an op's leakage energy from its cycles (first load to last store): the configuration's leakage power
/// × that time. Both engines call it once the op's cycles are known.
void charge_leakage(OpRow& row, const AccelConfig& config);

/// Per-op energy and counters that do not depend on timing — tiles, MACs, busy cycles, DRAM bits/cycles,
/// SRAM bits — summed tile by tile as an engine replays the op, or class by class (`count` tiles alike).
class StaticRow {
 public:
  StaticRow(const OpPlan& plan, const AccelConfig& config);
  void add(const TileWork& tile, std::uint64_t count = 1);
  /// The sums of the tiles added so far, with their energy.
  OpRow row() const;

 private:
  const AccelConfig& config_;
  OpRow row_;
  EnergyLedger ledger_;
};

/// One op's row: name, kind, mapping, counters, latency and energy by component.
nlohmann::json to_json(const OpRow& row, double clock_mhz);
/// The totals, accelerator, engine, clock, utilisations, leakage power and area (`area_mm2`: array, each
/// buffer, total).
nlohmann::json to_json(const ReplayResult& result);

}  // namespace ecosim::accel
