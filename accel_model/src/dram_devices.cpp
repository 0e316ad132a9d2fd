// DRAM device table: strict reading of accel_model/data/dram_devices.json, times in ns rounded up to DRAM clocks.
#include <cmath>
#include <tuple>

#include <fmt/core.h>

#include "ecosim/accel_model/dram_model.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"

namespace ecosim::embedded {
std::string_view accel_dram_devices();
}

namespace ecosim::accel {

namespace {

// Plausible values of a device entry: generous bounds around any DRAM, so that a typo is an error.
constexpr Range<std::uint64_t> kDataRateMts{100, 100'000, " MT/s"};
constexpr Range<std::uint64_t> kBusBits{8, 4096, " bits"};
constexpr Range<std::uint64_t> kBurstLength{2, 64, " beats"};
constexpr Range<std::uint64_t> kBanks{1, 1024, " banks"};
constexpr Range<std::uint64_t> kRowBytes{16, std::uint64_t{1} << 20, " bytes"};
constexpr Range<std::uint64_t> kRows{1, std::uint64_t{1} << 32, " rows"};
constexpr Range<double> kTimeNs{0.1, 1e6, " ns"};

bool power_of_two(std::uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

/// `ns` in whole DRAM clocks of `clock_khz`, rounded up (JEDEC's nCK = ceil(t / tCK)), through integer ps so
/// that a time of exactly n clocks (10 ns at 1,200 MHz) stays n.
std::uint64_t clocks(double ns, std::uint64_t clock_khz) {
  const auto ps = static_cast<std::uint64_t>(std::llround(ns * 1e3));
  const std::uint64_t ps_khz = ps * clock_khz, per_clock = 1'000'000'000;
  return ps_khz / per_clock + (ps_khz % per_clock != 0);
}

DramDevice read_device(const JsonReader& d) {
  d.exact_keys({"name", "data_rate_mts", "bus_bits", "burst_length", "banks", "row_bytes", "rows", "tCL_ns", "tCWL_ns",
                "tRCD_ns", "tRP_ns", "tRAS_ns", "tWR_ns", "tRFC_ns", "tREFI_ns"});
  DramDevice v;
  v.name = d.text("name");
  const std::tuple<const char*, std::uint64_t DramDevice::*, Range<std::uint64_t>> counts[] = {
      {"data_rate_mts", &DramDevice::data_rate_mts, kDataRateMts},
      {"bus_bits", &DramDevice::bus_bits, kBusBits},
      {"burst_length", &DramDevice::burst_length, kBurstLength},
      {"banks", &DramDevice::banks, kBanks},
      {"row_bytes", &DramDevice::row_bytes, kRowBytes},
      {"rows", &DramDevice::rows, kRows}};
  for (const auto& [key, field, range] : counts) v.*field = d.count(key, range);
  for (const auto& [key, value] : {std::pair{"bus_bits", v.bus_bits}, std::pair{"burst_length", v.burst_length},
                                   std::pair{"banks", v.banks}, std::pair{"row_bytes", v.row_bytes}})
    if (!power_of_two(value)) d.fail(key, fmt::format("{} is not a power of two", value));
  if (v.row_bytes < v.burst_bytes())
    d.fail("row_bytes", fmt::format("{} bytes is less than one burst ({} bytes)", v.row_bytes, v.burst_bytes()));
  auto time = [&](const char* key) { return clocks(d.number(key, kTimeNs), v.clock_khz()); };
  v.cl = time("tCL_ns"), v.cwl = time("tCWL_ns"), v.rcd = time("tRCD_ns"), v.rp = time("tRP_ns");
  v.ras = time("tRAS_ns"), v.wr = time("tWR_ns"), v.rfc = time("tRFC_ns"), v.refi = time("tREFI_ns");
  // Between two refreshes a bank must be able to precharge, activate and issue a column command.
  if (v.refi <= v.rfc + v.rp + v.rcd)
    d.fail("tREFI_ns", fmt::format("{} clocks leave no time between refreshes (tRFC + tRP + tRCD = {} clocks)", v.refi,
                                   v.rfc + v.rp + v.rcd));
  return v;
}

}  // namespace

const DramDeviceTable& DramDeviceTable::builtin() {
  static const DramDeviceTable table = parse(embedded::accel_dram_devices(), "builtin dram_devices.json");
  return table;
}

DramDeviceTable DramDeviceTable::parse(std::string_view json_text, const std::string& origin) {
  const nlohmann::json doc = parse_json(json_text, origin);
  const JsonReader r(doc, origin);
  r.exact_keys({"source", "devices"});
  r.text("source");
  DramDeviceTable t;
  const nlohmann::json& devices = r.list("devices");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const JsonReader d(devices[i], fmt::format("{}: devices[{}]", origin, i));
    DramDevice v = read_device(d);
    for (const DramDevice& other : t.devices_)
      if (other.name == v.name) d.fail("name", fmt::format("'{}' is listed twice", v.name));
    t.devices_.push_back(std::move(v));
  }
  if (t.devices_.empty()) r.fail("devices", "lists no device");
  return t;
}

const DramDevice& DramDeviceTable::device(std::string_view name) const {
  std::string names;
  for (const DramDevice& d : devices_) {
    if (d.name == name) return d;
    names += (names.empty() ? "" : ", ") + d.name;
  }
  throw Error(fmt::format("unknown DRAM device '{}' (known: {})", name, names));
}

}  // namespace ecosim::accel
