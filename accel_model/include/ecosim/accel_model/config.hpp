// AccelConfig: every parameter of the BitFusion-like accelerator (array, buffers, DRAM, vector unit, how trace
// data types map onto the hardware), read from a JSON data file (format in accel_model/README.md), with the
// array's and buffers' energies, leakage and area derived from the 45 nm cost tables (cost_tables.hpp).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/dtype.hpp"
#include "ecosim/ops_counter/op_counts.hpp"

namespace ecosim::accel {

enum class Buffer : std::uint8_t { weights, inputs, outputs };
inline constexpr std::size_t kBufferCount = 3;
inline constexpr std::array<Buffer, kBufferCount> kAllBuffers = {Buffer::weights, Buffer::inputs, Buffer::outputs};
std::string_view name(Buffer b);

struct BufferConfig {
  std::uint64_t bytes = 0;
  std::uint64_t banks = 0;  // weights rows·cols, inputs rows, outputs cols (one bank per array port)
  // Derived from the CACTI table at bytes / banks per bank: energy of one bank access ÷ its block, and
  // leakage and area of all banks.
  double read_pj_per_bit = 0, write_pj_per_bit = 0, leakage_mw = 0, area_mm2 = 0;
  std::uint64_t half_bits() const { return bytes * 8 / 2; }  // double buffering: one tile may use half
};

/// Where popcount_accumulate (binary codes × values) runs: on the array with codes as 2-bit operands, or as
/// additions/subtractions on the vector unit.
enum class BinaryMapping : std::uint8_t { array, vector };

class MemoryModel;  // memory_model.hpp

struct AccelConfig {
  std::string name;
  double clock_mhz = 0;
  std::uint64_t rows = 0, cols = 0;            // fusion units
  std::uint64_t pmax_bits = 0, pmin_bits = 0;  // precision range of a fusion unit (widest, narrowest operand)
  // Derived from the synthesis table for rows × cols units of range pmax/pmin:
  double array_pj_per_cycle = 0;  // dynamic energy per non-stalled array cycle
  double array_leakage_mw = 0, array_area_mm2 = 0;
  std::uint64_t accumulator_bits = 0;
  std::array<BufferConfig, kBufferCount> buffers{};
  std::uint64_t dram_bits_per_cycle = 0, dram_latency_cycles = 0;
  double dram_pj_per_bit = 0;
  // `memory.model`'s model, fresh (memory_model.hpp): its lower bounds are dram_cycles() and
  // dram_peak_cycles(). Null under `simple`, whose bounds follow dram_bits_per_cycle and dram_latency_cycles.
  std::shared_ptr<const MemoryModel> memory_bound;
  std::uint64_t vector_lanes = 0;
  DType vector_float_dtype = DType::fp16;                          // float work on the vector unit runs at this type
  std::array<std::uint64_t, kOpKindCount> vector_cycles_per_op{};  // lane cycles per operation, by OpKind
  std::uint64_t float_operand_bits = 0;  // fp32/fp16/bf16 trace operands run (and are stored) at this width
  BinaryMapping binary_codes = BinaryMapping::array;
  bool fuse_attention = false;  // softmax-attention groups as one tiled op whose scores stay on chip
  // Dynamic effects of the tile pipeline (pipeline.hpp): the array and the vector unit computing side by side
  // where a tile allows it (TileWork::after), and the next op's first weight tile loaded during this op's last.
  bool overlap_units = true, prefetch_weights = true;
  std::uint64_t quantum_cycles = 0;  // SystemC's global quantum: how far a unit's thread may run ahead unsynced
  bool fast_forward = true;  // SystemC passes over steady runs of alike tiles at once (same cycles; fast_forward.hpp)
  nlohmann::json effective;  // the merged document all of the above was read from (reports record it)
  std::vector<std::string> cost_warnings;  // bank sizes outside the CACTI table (their costs are extrapolated)

  const BufferConfig& buffer(Buffer b) const { return buffers[static_cast<std::size_t>(b)]; }
  double cycles_to_ms(double cycles) const { return cycles / (clock_mhz * 1e3); }
  /// Array and buffers: the power drawn whenever the accelerator is on, and the silicon area.
  double leakage_mw() const;
  double area_mm2() const;
};

/// The embedded default, `bitfusion-45nm` (accel_model/data/bitfusion_45nm.json).
std::string_view default_config_json();
/// Parses a configuration: `json_text` is merged over the default (so a file may override any subset),
/// then validated. Throws ecosim::Error naming the unknown key or impossible value.
AccelConfig parse_config(std::string_view json_text, const std::string& origin);
/// A built-in configuration by name ("bitfusion-45nm"); throws ecosim::Error listing valid names.
AccelConfig builtin_config(std::string_view name);
AccelConfig load_config(const std::string& path);
/// `base` with `patch` merged over its document (e.g. a command-line switch), validated again.
AccelConfig with_overrides(const AccelConfig& base, const nlohmann::json& patch, const std::string& origin);

}  // namespace ecosim::accel
