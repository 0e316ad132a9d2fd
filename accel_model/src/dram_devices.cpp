// DRAM device table: strict reading of accel_model/data/dram_devices.json, each timing in ns (rounded up to DRAM
// clocks) or in clocks, with its source.
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
constexpr Range<std::uint64_t> kBankGroups{1, 1024, " bank groups"};
constexpr Range<std::uint64_t> kRowBytes{16, std::uint64_t{1} << 20, " bytes"};
constexpr Range<std::uint64_t> kRows{1, std::uint64_t{1} << 32, " rows"};
constexpr Range<double> kTimeNs{0.1, 1e6, " ns"};
constexpr Range<std::uint64_t> kTimeClocks{1, 10'000'000, " clocks"};

bool power_of_two(std::uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

/// `ns` in whole DRAM clocks of `clock_khz`, rounded up (JEDEC's nCK = ceil(t / tCK)), through integer ps so
/// that a time of exactly n clocks (10 ns at 1,200 MHz) stays n.
std::uint64_t clocks(double ns, std::uint64_t clock_khz) {
  const auto ps = static_cast<std::uint64_t>(std::llround(ns * 1e3));
  const std::uint64_t ps_khz = ps * clock_khz, per_clock = 1'000'000'000;
  return ps_khz / per_clock + (ps_khz % per_clock != 0);
}

/// A timing `key`: {"ns": t, "source": "..."} (ceil(t / tCK) clocks) or {"clocks": n, "source": "..."}.
std::uint64_t read_timing(const JsonReader& d, const std::string& origin, const char* key, std::uint64_t clock_khz) {
  const JsonReader t(d.at(key), fmt::format("{}: {}", origin, key));
  t.exact_keys({"source"}, {"ns", "clocks"});
  t.text("source");
  if (t.has("ns") == t.has("clocks")) t.fail("ns", "give the time either in ns or in clocks (one of the two)");
  return t.has("ns") ? clocks(t.number("ns", kTimeNs), clock_khz) : t.count("clocks", kTimeClocks);
}

DramDevice read_device(const JsonReader& d, const std::string& origin) {
  constexpr const char* kTimings[] = {"tCL",  "tCWL",  "tRCD",   "tRP",    "tRAS",   "tWR",    "tRTP",
                                      "tRFC", "tREFI", "tCCD_S", "tCCD_L", "tRRD_S", "tRRD_L", "tFAW"};
  d.exact_keys({"name",        "source",     "data_rate_mts", "bus_bits",   "burst_length", "banks",
                "bank_groups", "row_bytes",  "rows",          kTimings[0],  kTimings[1],    kTimings[2],
                kTimings[3],   kTimings[4],  kTimings[5],     kTimings[6],  kTimings[7],    kTimings[8],
                kTimings[9],   kTimings[10], kTimings[11],    kTimings[12], kTimings[13]});
  DramDevice v;
  v.name = d.text("name");
  d.text("source");
  const std::tuple<const char*, std::uint64_t DramDevice::*, Range<std::uint64_t>> counts[] = {
      {"data_rate_mts", &DramDevice::data_rate_mts, kDataRateMts},
      {"bus_bits", &DramDevice::bus_bits, kBusBits},
      {"burst_length", &DramDevice::burst_length, kBurstLength},
      {"banks", &DramDevice::banks, kBanks},
      {"bank_groups", &DramDevice::bank_groups, kBankGroups},
      {"row_bytes", &DramDevice::row_bytes, kRowBytes},
      {"rows", &DramDevice::rows, kRows}};
  for (const auto& [key, field, range] : counts) v.*field = d.count(key, range);
  for (const auto& [key, value] :
       {std::pair{"bus_bits", v.bus_bits}, std::pair{"burst_length", v.burst_length}, std::pair{"banks", v.banks},
        std::pair{"bank_groups", v.bank_groups}, std::pair{"row_bytes", v.row_bytes}})
    if (!power_of_two(value)) d.fail(key, fmt::format("{} is not a power of two", value));
  if (v.bank_groups > v.banks)
    d.fail("bank_groups", fmt::format("{} bank groups for {} banks", v.bank_groups, v.banks));
  if (v.row_bytes < v.burst_bytes())
    d.fail("row_bytes", fmt::format("{} bytes is less than one burst ({} bytes)", v.row_bytes, v.burst_bytes()));
  std::uint64_t DramDevice::*const fields[] = {
      &DramDevice::cl,    &DramDevice::cwl,   &DramDevice::rcd,   &DramDevice::rp,   &DramDevice::ras,
      &DramDevice::wr,    &DramDevice::rtp,   &DramDevice::rfc,   &DramDevice::refi, &DramDevice::ccd_s,
      &DramDevice::ccd_l, &DramDevice::rrd_s, &DramDevice::rrd_l, &DramDevice::faw};
  static_assert(std::size(fields) == std::size(kTimings));
  for (std::size_t i = 0; i < std::size(kTimings); ++i)
    v.*fields[i] = read_timing(d, origin, kTimings[i], v.clock_khz());
  // Short timings in JEDEC's order: a column command cannot come faster than its burst's data, and the same bank
  // group is never faster than another.
  if (v.ccd_s < v.burst_clocks())
    d.fail("tCCD_S",
           fmt::format("{} clocks is less than a burst's data (BL/2 = {} clocks)", v.ccd_s, v.burst_clocks()));
  if (v.ccd_l < v.ccd_s) d.fail("tCCD_L", fmt::format("{} clocks is less than tCCD_S ({} clocks)", v.ccd_l, v.ccd_s));
  if (v.rrd_l < v.rrd_s) d.fail("tRRD_L", fmt::format("{} clocks is less than tRRD_S ({} clocks)", v.rrd_l, v.rrd_s));
  // Between two refreshes a burst must fit whatever the commands before the refresh left: precharge, the
  // activation window, activate and a column command in the same bank group.
  const std::uint64_t burst_after_refresh = v.rfc + v.rp + v.faw + v.rcd + v.ccd_l;
  if (v.refi <= burst_after_refresh)
    d.fail("tREFI", fmt::format("{} clocks leave no time between refreshes (tRFC + tRP + tFAW + tRCD + tCCD_L = {} "
                                "clocks)",
                                v.refi, burst_after_refresh));
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
    const std::string where = fmt::format("{}: devices[{}]", origin, i);
    const JsonReader d(devices[i], where);
    DramDevice v = read_device(d, where);
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
