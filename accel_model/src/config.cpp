// Parsing and validation of accelerator configurations (JSON merged over the embedded bitfusion-45nm default).
#include "ecosim/accel_model/config.hpp"

#include "ecosim/accel_model/cost_tables.hpp"
#include "ecosim/accel_model/memory_model.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "ecosim/ops_counter/energy.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"
#include "ecosim/ops_counter/text_file.hpp"

namespace ecosim::embedded {
std::string_view accel_bitfusion_45nm();
}

namespace ecosim::accel {

using nlohmann::json;

std::string_view name(Buffer b) {
  constexpr std::array<std::string_view, kBufferCount> names = {"weights", "inputs", "outputs"};
  return names[static_cast<std::size_t>(b)];
}

std::string_view default_config_json() { return embedded::accel_bitfusion_45nm(); }

namespace {

// Plausible values of every configuration number (accel_model/README.md lists them): generous bounds around
// any digital accelerator, so that a typo (clock_mhz: 1e-300, a terabyte buffer) is an error, not a result.
constexpr Range<double> kClockMhz{1, 10'000, " MHz"};
constexpr Range<double> kPjPerBit{0, 1e4, " pJ/bit"};
constexpr Range<std::uint64_t> kArrayDimension{1, 4096, " fusion units"};
constexpr Range<std::uint64_t> kPrecisionBits{2, 16, " bits"};
constexpr Range<std::uint64_t> kAccumulatorBits{8, 64, " bits"};
constexpr Range<std::uint64_t> kBufferBytes{1, std::uint64_t{1} << 30, " bytes"};
constexpr Range<std::uint64_t> kDramBitsPerCycle{1, 65'536, " bits/cycle"};
constexpr Range<std::uint64_t> kDramLatencyCycles{0, 100'000, " cycles"};
constexpr Range<std::uint64_t> kVectorLanes{1, 65'536, " lanes"};
constexpr Range<std::uint64_t> kCyclesPerOp{1, 10'000, " cycles"};
constexpr Range<std::uint64_t> kFloatOperandBits{2, 16, " bits"};
constexpr Range<std::uint64_t> kQuantumCycles{1, 1'000'000'000, " cycles"};

/// Rejects any key of `user` that the default does not have (recursively), naming the file and its path.
void reject_keys_not_in(const json& user, const json& reference, const std::string& origin, const std::string& path) {
  std::vector<std::string_view> known;
  for (const auto& [key, value] : reference.items()) known.push_back(key);
  reject_unknown_keys(user, known, origin, path);
  for (const auto& [key, value] : user.items()) {
    const std::string where = child_path(path, key);
    if (where == "memory") continue;  // its keys depend on its model: the model's factory checks them
    if (value.is_object() && reference[key].is_object()) reject_keys_not_in(value, reference[key], origin, where);
  }
}

/// `patch` merged over `config` (RFC 7386), except its `memory` object, which replaces the one there whole: its
/// keys depend on its model.
void merge_config(json& config, const json& patch) {
  config.merge_patch(patch);
  if (patch.is_object() && patch.contains("memory")) config["memory"] = patch["memory"];
}

void check_fits_one_tile(const AccelConfig& c, const JsonReader& r) {
  // The smallest tile the array can work on: one array load of weights at the widest operand (16 bits), one
  // input vector of `rows` operands, one row of `cols` accumulators.
  const std::array<std::uint64_t, kBufferCount> min_half_bits = {c.rows * c.cols * 16, c.rows * 16,
                                                                 c.cols * c.accumulator_bits};
  for (Buffer b : kAllBuffers) {
    const std::uint64_t need = min_half_bits[static_cast<std::size_t>(b)];
    if (c.buffer(b).half_bits() < need)
      r.fail(fmt::format("buffers.{}.bytes", name(b)),
             fmt::format("{} bytes is too small for one tile (half the buffer must hold {} bits; need at least "
                         "{} bytes)",
                         c.buffer(b).bytes, need, (need * 2 + 7) / 8));
  }
}

/// Lane cycles per operation: the basic ones from the configuration; exp, div and sqrt as the basic operations
/// the technology table decomposes them into (one definition for their energy and their cycles).
void read_vector_cycles(const JsonReader& r, AccelConfig& c) {
  static const TechTable tech = TechTable::builtin_45nm();
  for (OpKind k : kAllOpKinds)
    if (!tech.decomposition(k))
      c.vector_cycles_per_op[static_cast<std::size_t>(k)] =
          r.count(fmt::format("vector_unit.cycles_per_op.{}", ecosim::name(k)), kCyclesPerOp);
  for (OpKind k : kAllOpKinds)
    if (const Decomposition* d = tech.decomposition(k)) {
      std::uint64_t cycles = 0;
      for (OpKind part : kAllOpKinds)
        cycles += d->ops[static_cast<std::size_t>(part)] * c.vector_cycles_per_op[static_cast<std::size_t>(part)];
      c.vector_cycles_per_op[static_cast<std::size_t>(k)] = cycles;
    }
}

/// The array's energy per cycle, leakage and area from the synthesis table; each buffer's banks and, from the
/// CACTI table at its bank size, its energy per bit (one access ÷ the block), leakage and area (× banks).
void derive_costs(const JsonReader& r, AccelConfig& c) {
  try {
    const ArrayCost array = SynthesisTable::builtin_45nm().array(c.rows, c.cols, c.pmax_bits, c.pmin_bits);
    c.array_pj_per_cycle = array.dynamic_pj_per_cycle;
    c.array_leakage_mw = array.leakage_mw;
    c.array_area_mm2 = array.area_mm2;
  } catch (const Error& e) {
    r.fail("array.pmax_bits/pmin_bits", e.what());
  }
  const CactiTable& cacti = CactiTable::builtin_45nm();
  const std::array<std::uint64_t, kBufferCount> banks = {c.rows * c.cols, c.rows, c.cols};
  for (Buffer b : kAllBuffers) {
    BufferConfig& buf = c.buffers[static_cast<std::size_t>(b)];
    buf.banks = banks[static_cast<std::size_t>(b)];
    std::string warning;
    const SramBankCost bank = cacti.bank(double(buf.bytes) / double(buf.banks), b == Buffer::outputs, warning);
    if (!warning.empty())
      c.cost_warnings.push_back(
          fmt::format("buffers.{} ({} bytes in {} banks): {}", name(b), buf.bytes, buf.banks, warning));
    if (const double cycle_ns = 1e3 / c.clock_mhz; cycle_ns < bank.access_ns)
      c.cost_warnings.push_back(fmt::format(
          "clock_mhz {}: its {:.3g} ns cycle is shorter than a buffers.{} bank's access ({:.3g} ns, CACTI, {} bytes "
          "a bank): the replay still reads every bank once a cycle, which these banks cannot do at this clock",
          c.clock_mhz, cycle_ns, name(b), bank.access_ns, double(buf.bytes) / double(buf.banks)));
    buf.read_pj_per_bit = bank.read_pj / double(cacti.block_bits());
    buf.write_pj_per_bit = bank.write_pj / double(cacti.block_bits());
    buf.leakage_mw = bank.leakage_mw * double(buf.banks);
    buf.area_mm2 = bank.area_mm2 * double(buf.banks);
  }
}

}  // namespace

double AccelConfig::leakage_mw() const {
  double mw = array_leakage_mw;
  for (const BufferConfig& b : buffers) mw += b.leakage_mw;
  return mw;
}

double AccelConfig::area_mm2() const {
  double mm2 = array_area_mm2;
  for (const BufferConfig& b : buffers) mm2 += b.area_mm2;
  return mm2;
}

AccelConfig parse_config(std::string_view json_text, const std::string& origin) {
  const json user = parse_json(json_text, origin);
  if (!user.is_object()) throw Error(fmt::format("{}: the configuration must be a JSON object", origin));
  static const json defaults = parse_json(default_config_json(), "builtin bitfusion_45nm.json");
  json merged = defaults;
  reject_keys_not_in(user, merged, origin, "");
  merge_config(merged, user);

  const JsonReader r(merged, origin);
  AccelConfig c;
  c.name = r.text("name");
  if (!user.contains("name") && merged != defaults)  // the default changed: not to be taken for it in a report
    c.name += " (changed by " + std::filesystem::path(origin).filename().string() + ")";
  c.clock_mhz = r.number("clock_mhz", kClockMhz);
  c.rows = r.count("array.rows", kArrayDimension);
  c.cols = r.count("array.cols", kArrayDimension);
  c.pmax_bits = r.count("array.pmax_bits", kPrecisionBits);
  c.pmin_bits = r.count("array.pmin_bits", kPrecisionBits);
  c.accumulator_bits = r.count("array.accumulator_bits", kAccumulatorBits);
  for (Buffer b : kAllBuffers) {
    const std::string key = fmt::format("buffers.{}", name(b));
    BufferConfig& buf = c.buffers[static_cast<std::size_t>(b)];
    buf.bytes = r.count(key + ".bytes", kBufferBytes);
  }
  c.dram_bits_per_cycle = r.count("dram.bits_per_cycle", kDramBitsPerCycle);
  c.dram_latency_cycles = r.count("dram.latency_cycles", kDramLatencyCycles);
  c.dram_pj_per_bit = r.number("dram.pj_per_bit", kPjPerBit);
  c.vector_lanes = r.count("vector_unit.lanes", kVectorLanes);
  const auto float_dtype = parse_dtype(r.text("vector_unit.float_dtype"));
  if (!float_dtype || !is_float(*float_dtype)) r.fail("vector_unit.float_dtype", "must be fp32, fp16 or bf16");
  c.vector_float_dtype = *float_dtype;
  read_vector_cycles(r, c);
  c.float_operand_bits = r.count("mapping.float_operand_bits", kFloatOperandBits);
  if (c.float_operand_bits != 2 && c.float_operand_bits != 4 && c.float_operand_bits != 8 && c.float_operand_bits != 16)
    r.fail("mapping.float_operand_bits", "must be 2, 4, 8 or 16 (BitFusion's fused precisions)");
  // narrower partial sums would wrap on a single product of the widest operands the array fuses (or floats map to)
  if (const std::uint64_t widest = std::max(c.pmax_bits, c.float_operand_bits); c.accumulator_bits < 2 * widest)
    r.fail("array.accumulator_bits",
           fmt::format("must hold a product of two {}-bit operands (array.pmax_bits, mapping.float_operand_bits): "
                       "at least {}",
                       widest, 2 * widest));
  const std::string binary = r.text("mapping.binary_codes");
  if (binary == "array")
    c.binary_codes = BinaryMapping::array;
  else if (binary == "vector")
    c.binary_codes = BinaryMapping::vector;
  else
    r.fail("mapping.binary_codes", "must be 'array' or 'vector'");
  c.fuse_attention = r.flag("mapping.fuse_attention");
  c.overlap_units = r.flag("systemc.overlap");
  c.prefetch_weights = r.flag("systemc.prefetch");
  c.quantum_cycles = r.count("systemc.quantum_cycles", kQuantumCycles);
  c.fast_forward = r.flag("systemc.fast_forward");
  check_fits_one_tile(c, r);
  derive_costs(r, c);
  c.effective = std::move(merged);
  c.effective["name"] = c.name;
  try {
    std::shared_ptr<const MemoryModel> memory = make_memory_model(c);
    if (memory->name() != kSimpleMemoryModel) c.memory_bound = std::move(memory);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", origin, e.what()));
  }
  // the simple model's timing keys mean nothing to another model: set (away from the defaults a full
  // configuration repeats) beside one, they would be ignored
  if (c.memory_bound && user.contains("dram") && user["dram"].is_object())
    for (const char* key : {"bits_per_cycle", "latency_cycles"})
      if (user["dram"].contains(key) && user["dram"][key] != defaults["dram"][key])
        throw Error(
            fmt::format("{}: dram.{} times the 'simple' memory model; memory.model '{}' times transfers "
                        "from its device (remove dram.{}; dram.pj_per_bit applies to every model)",
                        origin, key, c.memory_bound->name(), key));
  return c;
}

AccelConfig builtin_config(std::string_view name) {
  if (name == "bitfusion-45nm") return parse_config("{}", "bitfusion-45nm");
  throw Error(fmt::format("unknown accelerator '{}' (built in: bitfusion-45nm)", name));
}

AccelConfig load_config(const std::string& path) {
  return parse_config(read_text_file(path, kMaxJsonDocumentBytes), path);
}

AccelConfig with_overrides(const AccelConfig& base, const json& patch, const std::string& origin) {
  json merged = base.effective;
  merge_config(merged, patch);
  return parse_config(merged.dump(), origin);
}

}  // namespace ecosim::accel
