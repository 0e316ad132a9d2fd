// The 45 nm cost tables the accelerator's energies, leakage and area are derived from (shared/data/
// bitfusion_costs.md, kept as accel_model/data/cacti_45nm_sram.json and bitfusion_45nm_synthesis.json): CACTI
// SRAM banks, interpolated log–log in bank size, and synthesised fusion-unit arrays, scaled by unit count and
// precision range.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ecosim::accel {

/// One SRAM bank: energy per access of one block (CactiTable::block_bits), leakage and area.
struct SramBankCost {
  double read_pj = 0, write_pj = 0, leakage_mw = 0, area_mm2 = 0;
  double access_ns = 0;  // CACTI's access time: the shortest cycle in which the bank is read
};

class CactiTable {
 public:
  /// accel_model/data/cacti_45nm_sram.json.
  static const CactiTable& builtin_45nm();
  /// Reads a table strictly (unknown or missing keys, numbers out of range, fewer than two sizes of a port
  /// kind, a size listed twice: ecosim::Error naming `origin` and the entry).
  static CactiTable parse(std::string_view json_text, const std::string& origin);

  std::uint64_t block_bits() const { return block_bits_; }
  /// A bank of `bytes` with (`rw_port`) or without a separate read-write port: each quantity interpolated
  /// log–log between the two table sizes of that port kind around `bytes`. Outside the table it is
  /// extrapolated along the two nearest sizes and `warning` says so (otherwise `warning` is left alone).
  SramBankCost bank(double bytes, bool rw_port, std::string& warning) const;

 private:
  struct Row {
    double bytes = 0;
    bool rw_port = false;
    SramBankCost cost;
  };
  std::string origin_;
  std::uint64_t block_bits_ = 0;
  std::vector<Row> rows_;  // by bytes
};

/// A fusion-unit array: dynamic energy per array cycle, leakage and area.
struct ArrayCost {
  double dynamic_pj_per_cycle = 0, leakage_mw = 0, area_mm2 = 0;
};

class SynthesisTable {
 public:
  /// accel_model/data/bitfusion_45nm_synthesis.json.
  static const SynthesisTable& builtin_45nm();
  /// Reads a table strictly, as CactiTable::parse; the `scale_from` array and the 1×1 array must be listed.
  static SynthesisTable parse(std::string_view json_text, const std::string& origin);

  /// rows × cols fusion units of precision range pmax/pmin bits: the array of that size where the table lists
  /// one (as the BitFusion simulator looks it up), else the `scale_from` array's dynamic power (per cycle at the
  /// synthesis clock), leakage and area × rows·cols / its unit count; at a precision range
  /// other than the table's, area × the single fusion unit's area at pmax/pmin ÷ the 1×1 array's, power
  /// (dynamic and leakage) × its total power ÷ the 1×1 array's. Throws ecosim::Error for a range not listed.
  ArrayCost array(std::uint64_t rows, std::uint64_t cols, std::uint64_t pmax_bits, std::uint64_t pmin_bits) const;

 private:
  struct Synthesised {
    std::uint64_t rows = 0, cols = 0;
    double area_um2 = 0, leakage_uw = 0, dynamic_uw = 0;
  };
  struct FusionUnit {
    std::uint64_t pmax_bits = 0, pmin_bits = 0;
    double area_um2 = 0, total_uw = 0;
  };
  double clock_mhz_ = 0;
  std::uint64_t pmax_bits_ = 0, pmin_bits_ = 0;
  Synthesised reference_, single_;  // the `scale_from` array and the 1×1 array
  std::vector<Synthesised> arrays_;  // every array listed
  std::vector<FusionUnit> fusion_units_;
};

}  // namespace ecosim::accel
