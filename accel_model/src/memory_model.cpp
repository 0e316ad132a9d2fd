// The memory-model registry (each model by name, with the factory reading its `memory` object) and the
// `simple` model: a fixed latency plus the bits at a fixed bandwidth per transfer, no state.
#include "ecosim/accel_model/memory_model.hpp"

#include <algorithm>
#include <array>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "ecosim/accel_model/dram_model.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_reader.hpp"

namespace ecosim::accel {

namespace {

constexpr Range<std::uint64_t> kChannels{1, 64, " channels"};

class SimpleMemory : public MemoryModel {
 public:
  SimpleMemory(std::uint64_t bits_per_cycle, std::uint64_t latency_cycles)
      : bits_per_cycle_(bits_per_cycle), latency_cycles_(latency_cycles) {}
  std::string_view name() const override { return kSimpleMemoryModel; }
  std::uint64_t complete_cycle(const MemoryAccess& access, std::uint64_t issue_cycle) override {
    return checked_add(issue_cycle, lower_bound_cycles(checked_mul(access.bytes, 8)));
  }
  std::uint64_t lower_bound_cycles(std::uint64_t bits) const override {
    return bandwidth_latency_cycles(bits, bits_per_cycle_, latency_cycles_);
  }
  std::uint64_t peak_cycles(std::uint64_t bits) const override {
    return bandwidth_latency_cycles(bits, bits_per_cycle_, 0);
  }

 private:
  std::uint64_t bits_per_cycle_, latency_cycles_;
};

/// `simple`: {"model"} only; its numbers are dram.bits_per_cycle and dram.latency_cycles.
std::unique_ptr<MemoryModel> make_simple(const JsonReader& r, const AccelConfig& c) {
  r.exact_keys({"model"});
  return std::make_unique<SimpleMemory>(c.dram_bits_per_cycle, c.dram_latency_cycles);
}

/// `dram`: {"model", "device"} and optionally "channels" (1) and "mapping" (kDefaultDramMapping).
std::unique_ptr<MemoryModel> make_dram(const JsonReader& r, const AccelConfig& c) {
  r.exact_keys({"model", "device"}, {"channels", "mapping"});
  const DramDevice* device = nullptr;
  try {
    device = &DramDeviceTable::builtin().device(r.text("device"));
  } catch (const Error& e) {
    r.fail("device", e.what());
  }
  const std::uint64_t channels = r.has("channels") ? r.count("channels", kChannels) : 1;
  const std::string mapping = r.has("mapping") ? r.text("mapping") : std::string(kDefaultDramMapping);
  try {
    return std::make_unique<DramModel>(*device, channels, mapping, c.clock_mhz);
  } catch (const Error& e) {
    r.fail("mapping", e.what());
  }
}

struct Registered {
  std::string_view name;
  std::unique_ptr<MemoryModel> (*make)(const JsonReader&, const AccelConfig&);
};
constexpr std::array<Registered, 2> kModels = {{{kSimpleMemoryModel, make_simple}, {"dram", make_dram}}};
constexpr std::array<std::string_view, kModels.size()> kNames = {kModels[0].name, kModels[1].name};

}  // namespace

std::span<const std::string_view> memory_model_names() { return kNames; }

std::unique_ptr<MemoryModel> make_memory_model(const AccelConfig& config) {
  if (!config.effective.is_object() || !config.effective.contains("memory"))
    throw Error("make_memory_model: the configuration was not read by parse_config (it has no 'memory')");
  const nlohmann::json& memory = config.effective["memory"];
  const JsonReader r(memory, "memory");
  const std::string model = r.text("model");
  for (const Registered& m : kModels)
    if (m.name == model) return m.make(r, config);
  r.fail("model", fmt::format("unknown memory model '{}' (registered: {})", model, fmt::join(kNames, ", ")));
}

std::uint64_t transfer_complete_cycle(MemoryModel& model, std::span<const MemoryAccess> accesses, std::uint64_t bits,
                                      std::uint64_t issue_cycle) {
  if (model.name() == kSimpleMemoryModel) return checked_add(issue_cycle, model.lower_bound_cycles(bits));
  std::uint64_t last = issue_cycle;
  for (const MemoryAccess& a : accesses) last = std::max(last, model.complete_cycle(a, issue_cycle));
  return last;
}

}  // namespace ecosim::accel
