// The `dram` model's achieved bandwidth on streams of one-burst reads issued at once, on every device, against
// the bound each stream's binding timing gives by hand (timings read through the device table's loader):
// sequential across bank groups (one burst per tCCD_S), sequential in one bank group (tCCD_L), row misses over
// all banks (tRRD and four activations per tFAW) and row conflicts in one bank (tRAS + tRP). The accelerator is
// clocked at the DRAM clock, so cycles are DRAM clocks; bandwidth is measured in the steady state, before the
// first refresh.
#include <fmt/core.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "ecosim/accel_model/dram_model.hpp"
#include "ecosim/accel_model/memory_model.hpp"

using namespace ecosim;
using namespace ecosim::accel;

namespace {

/// Bursts left out at the start of a stream (its first activations) before its bandwidth is measured.
constexpr std::size_t kWarmUpBursts = 16;
/// The measured stream agrees with the hand bound within this fraction.
constexpr double kTolerance = 0.01;

double clock_ns(const DramDevice& d) { return 2000.0 / static_cast<double>(d.data_rate_mts); }

/// GB/s of one burst every `clocks` DRAM clocks.
double gb_per_s(const DramDevice& d, double clocks) {
  return static_cast<double>(d.burst_bytes()) / (clocks * clock_ns(d));
}

/// The byte address of (bank, row, column burst) under the default mapping RoBaCoBgCh on one channel: from the
/// least significant field, the bank group (bank mod groups), the column, the bank within its group, the row.
std::uint64_t address(const DramDevice& d, std::uint64_t bank, std::uint64_t row, std::uint64_t column) {
  const std::uint64_t groups = d.bank_groups, columns = d.row_bytes / d.burst_bytes();
  const std::uint64_t burst = ((row * (d.banks / groups) + bank / groups) * columns + column) * groups + bank % groups;
  return burst * d.burst_bytes();
}

/// Reads one burst at each of `addresses`, all issued at cycle 0, and returns the GB/s from the completion of
/// burst kWarmUpBursts − 1 to the last one's.
double achieved_gb_per_s(const DramDevice& d, const std::vector<std::uint64_t>& addresses, bool write = false) {
  const AccelConfig c = parse_config(
      fmt::format(R"({{"clock_mhz": {}, "memory": {{"model": "dram", "device": "{}"}}}})", d.data_rate_mts / 2, d.name),
      "c.json");
  auto model = make_memory_model(c);
  std::vector<std::uint64_t> done;
  for (std::uint64_t a : addresses) done.push_back(model->complete_cycle({a, d.burst_bytes(), write}, 0));
  REQUIRE(std::is_sorted(done.begin(), done.end()));
  REQUIRE(done.back() < d.refi);  // no refresh in the stream
  const std::uint64_t bursts = done.size() - kWarmUpBursts, clocks = done.back() - done[kWarmUpBursts - 1];
  return gb_per_s(d, static_cast<double>(clocks) / static_cast<double>(bursts));
}

struct Figures {
  const char* device;
  double sequential, one_group, misses;  // GB/s, as the issue worked them out from the JEDEC figures
};
// DDR4-2400: 64 B per 4 clocks of 0.833 ns = 19.2; per tCCD_L 6 clocks = 12.8; four 64 B activations per tFAW
// 21.67 ns = 11.8. LPDDR4-3200: 32 B per 5 ns = 6.4, no bank groups; four 32 B per tFAW 40 ns = 3.2. HBM2
// pseudo channel: 32 B per 2 ns = 16; per tCCD_L 3 ns = 10.7; four 32 B per tFAW 16 ns = 8.
constexpr Figures kFigures[] = {
    {"DDR4-2400", 19.2, 12.8, 11.8}, {"LPDDR4-3200", 6.4, 6.4, 3.2}, {"HBM2", 16.0, 10.67, 8.0}};

}  // namespace

TEST_CASE("dram bandwidth: sequential streams, across bank groups and in one, and row misses over banks") {
  for (const Figures& f : kFigures) {
    INFO(f.device);
    const DramDevice& d = DramDeviceTable::builtin().device(f.device);
    const std::uint64_t columns = d.row_bytes / d.burst_bytes();
    const double burst_clocks = static_cast<double>(d.burst_clocks());

    // (a) Consecutive bursts alternate bank groups (RoBaCoBgCh): one column command per tCCD_S, each moving one
    // burst of BL/2 clocks — the data bus's peak when tCCD_S = BL/2.
    const double sequential = gb_per_s(d, std::max(burst_clocks, static_cast<double>(d.ccd_s)));
    CHECK(sequential == Approx(f.sequential).epsilon(kTolerance));
    std::vector<std::uint64_t> stream;
    for (std::uint64_t i = 0; i < 256; ++i) stream.push_back(i * d.burst_bytes());
    CHECK(achieved_gb_per_s(d, stream) == Approx(sequential).epsilon(kTolerance));

    // (b) The same columns of one bank (stride of one burst per group: every burst in bank 0's group):
    // column commands tCCD_L apart.
    const double one_group = gb_per_s(d, std::max(burst_clocks, static_cast<double>(d.ccd_l)));
    CHECK(one_group == Approx(f.one_group).epsilon(kTolerance));
    stream.clear();
    for (std::uint64_t column = 0; column < columns; ++column) stream.push_back(address(d, 0, 0, column));
    CHECK(achieved_gb_per_s(d, stream) == Approx(one_group).epsilon(kTolerance));

    // (c) Each burst in the next bank, a new row on every return to a bank: an activation per burst, consecutive
    // ones in other bank groups (tRRD_S), those `groups` apart in the same group (tRRD_L), four per tFAW, and
    // each bank's row cycle tRC = tRAS + tRP shared by all the banks.
    const double activation_clocks =
        std::max({burst_clocks, static_cast<double>(d.ccd_s), static_cast<double>(d.rrd_s),
                  static_cast<double>(d.rrd_l) / static_cast<double>(d.bank_groups), static_cast<double>(d.faw) / 4.0,
                  static_cast<double>(d.ras + d.rp) / static_cast<double>(d.banks)});
    const double misses = gb_per_s(d, activation_clocks);
    CHECK(misses == Approx(f.misses).epsilon(kTolerance));
    stream.clear();
    for (std::uint64_t i = 0; i < 8 * d.banks; ++i) stream.push_back(address(d, i % d.banks, i / d.banks, 0));
    CHECK(achieved_gb_per_s(d, stream) == Approx(misses).epsilon(kTolerance));
  }
}

TEST_CASE("dram bandwidth: row conflicts in one bank cost a row cycle each, after tRTP or tWR") {
  for (const Figures& f : kFigures) {
    INFO(f.device);
    const DramDevice& d = DramDeviceTable::builtin().device(f.device);
    // (d) Every burst another row of bank 0: precharge once tRAS has passed since the activation and tRTP since
    // the read (tWR after a write's data), then tRP; the next activation follows.
    std::vector<std::uint64_t> stream;
    for (std::uint64_t row = 0; row < 40; ++row) stream.push_back(address(d, 0, row, 0));
    const double read_cycle = static_cast<double>(std::max(d.ras, d.rcd + d.rtp) + d.rp);
    CHECK(achieved_gb_per_s(d, stream) == Approx(gb_per_s(d, read_cycle)).epsilon(kTolerance));
    const double write_cycle = static_cast<double>(std::max(d.ras, d.rcd + d.cwl + d.burst_clocks() + d.wr) + d.rp);
    CHECK(achieved_gb_per_s(d, stream, true) == Approx(gb_per_s(d, write_cycle)).epsilon(kTolerance));
  }
  // DDR4-2400 by hand: tRAS 39 + tRP 16 = 55 clocks a read (tRCD 16 + tRTP 9 < 39), 16 + 12 + 4 + 18 + 16 = 66 a
  // write: 64 B per 45.8 ns = 1.40 GB/s and per 55 ns = 1.16 GB/s.
  const DramDevice& ddr4 = DramDeviceTable::builtin().device("DDR4-2400");
  CHECK(gb_per_s(ddr4, 55) == Approx(1.396).epsilon(kTolerance));
  CHECK(gb_per_s(ddr4, 66) == Approx(1.164).epsilon(kTolerance));
}
