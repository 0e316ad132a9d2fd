// Memory models: the registry and its configuration errors, `simple` equal to today's dram_cycles, the DRAM
// device table (times to clocks, strict reading), and the `dram` model against hand-computed DDR4-2400 schedules
// (row hits, misses, conflicts, write recovery, read-to-precharge, bank groups and the activation window,
// refresh, clock conversion, its counts), its lower bounds against random access sequences on every device.
// (Achieved bandwidths of whole streams: dram_bandwidth_test.cpp.)
#include <fmt/core.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>

#include "ecosim/accel_model/dram_model.hpp"
#include "ecosim/accel_model/memory_model.hpp"
#include "ecosim/accel_model/op_plan.hpp"
#include "ecosim/ops_counter/error.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using Catch::Matchers::Contains;

namespace {

AccelConfig with_memory(const std::string& memory, double clock_mhz = 500) {
  return parse_config(fmt::format(R"({{"clock_mhz": {}, "memory": {}}})", clock_mhz, memory), "c.json");
}

// DDR4-2400 at a 1,200 MHz accelerator clock, one accelerator cycle per DRAM clock. In clocks (data/
// dram_devices.json, ceil(t / 0.833 ns)): tCL 16, tCWL 12, tRCD 16, tRP 16, tRAS 39, tWR 18, tRTP 9, tRFC 420,
// tREFI 9,360, tCCD_S 4, tCCD_L 6, tRRD_S 4, tRRD_L 6, tFAW 26; BL8 on 64 bits: a 64-byte burst in 4 clocks;
// 8 KB rows (128 bursts), 16 banks in 4 bank groups (a bank's group: its number mod 4). Mapping RoBaCoCh: an
// address's row-offset bits pick the column, the next 4 bits the bank, the rest the row.
constexpr std::uint64_t kCL = 16, kCWL = 12, kRCD = 16, kRP = 16, kRAS = 39, kWR = 18, kRTP = 9, kRFC = 420,
                        kREFI = 9360, kCCD_L = 6, kRRD_S = 4, kRRD_L = 6, kFAW = 26;
constexpr std::uint64_t kBurst = 4, kBurstBytes = 64, kRowBytes = 8192, kBanks = 16;

std::unique_ptr<MemoryModel> ddr4_at_dram_clock(const char* mapping = "RoBaCoCh") {
  return make_memory_model(
      with_memory(fmt::format(R"({{"model": "dram", "device": "DDR4-2400", "mapping": "{}"}})", mapping), 1200));
}

MemoryAccess read(std::uint64_t address) { return {address, kBurstBytes, false}; }

}  // namespace

TEST_CASE("memory models are chosen by name, and unknown names and keys are errors listing the valid ones") {
  CHECK(make_memory_model(builtin_config("bitfusion-45nm"))->name() == "simple");
  CHECK(builtin_config("bitfusion-45nm").memory_bound == nullptr);
  CHECK(std::vector<std::string_view>(memory_model_names().begin(), memory_model_names().end()) ==
        std::vector<std::string_view>{"simple", "dram"});
  const AccelConfig dram = with_memory(R"({"model": "dram", "device": "HBM2", "channels": 8, "mapping": "RoCoBaCh"})");
  CHECK(make_memory_model(dram)->name() == "dram");
  CHECK(dram.memory_bound->name() == "dram");
  CHECK_THROWS_WITH(with_memory(R"({"model": "ramulator"})"),
                    Contains("c.json: memory: model: unknown memory model 'ramulator' (registered: simple, dram)"));
  CHECK_THROWS_WITH(with_memory(R"({"model": "dram", "device": "DDR5"})"),
                    Contains("memory: device: unknown DRAM device 'DDR5' (known: DDR4-2400, LPDDR4-3200, HBM2)"));
  CHECK_THROWS_WITH(with_memory(R"({"model": "dram"})"), Contains("memory: device: missing"));
  // the simple model's timing keys beside another model would be ignored: refused, naming them
  CHECK_THROWS_WITH(
      parse_config(R"({"memory": {"model": "dram", "device": "HBM2"}, "dram": {"bits_per_cycle": 16}})", "c.json"),
      Contains("c.json: dram.bits_per_cycle times the 'simple' memory model"));
  CHECK_THROWS_WITH(
      parse_config(R"({"memory": {"model": "dram", "device": "HBM2"}, "dram": {"latency_cycles": 9}})", "c.json"),
      Contains("dram.latency_cycles"));
  CHECK(parse_config(R"({"memory": {"model": "dram", "device": "HBM2"}, "dram": {"pj_per_bit": 4}})", "c.json")
            .dram_pj_per_bit == 4);
  CHECK_THROWS_WITH(with_memory(R"({"model": "simple", "device": "HBM2"})"), Contains("memory: device: unknown key"));
  CHECK_THROWS_WITH(with_memory(R"({"model": "dram", "device": "HBM2", "banks": 4})"),
                    Contains("memory: banks: unknown key"));
  CHECK_THROWS_WITH(with_memory(R"({"model": "dram", "device": "HBM2", "channels": 0})"),
                    Contains("memory: channels: 0 is out of range [1, 64] channels"));
  CHECK_THROWS_WITH(with_memory(R"({"model": "dram", "device": "HBM2", "mapping": "RoRoCoCh"})"),
                    Contains("memory: mapping: 'RoRoCoCh' must name Ro, Ba, Co and Ch once each"));
  for (const char* bad : {"RoBgBaBgCoCh", "RoBgBaCo", "RoBaCoChX", "RoBgBaCoChCh"})
    CHECK_THROWS_WITH(with_memory(fmt::format(R"({{"model": "dram", "device": "HBM2", "mapping": "{}"}})", bad)),
                      Contains("and Bg at most once, most significant first (e.g. RoBaCoBgCh)"));
  CHECK_THROWS_WITH(with_memory(R"({"model": "dram", "device": "HBM2", "mapping": ""})"),
                    Contains("memory: mapping: must not be empty"));
  CHECK(make_memory_model(with_memory(R"({"model": "dram", "device": "HBM2", "mapping": "BgRoBaCoCh"})"))->name() ==
        "dram");
  CHECK_THROWS_WITH(with_memory(R"({"model": 3})"), Contains("memory: model: must be a string"));
  CHECK_THROWS_WITH(with_memory(R"("dram")"), Contains("memory: model: missing"));
  // The memory object is replaced whole, so switching back to `simple` needs no other key removed.
  CHECK(with_overrides(dram, {{"clock_mhz", 400}}, "clock").memory_bound->name() == "dram");
  CHECK(with_overrides(dram, {{"memory", {{"model", "simple"}}}}, "back").memory_bound == nullptr);
}

TEST_CASE("simple: every transfer takes today's dram_cycles, with no state") {
  for (const char* dram :
       {R"({"bits_per_cycle": 192, "latency_cycles": 0})", R"({"bits_per_cycle": 7, "latency_cycles": 30})"}) {
    const AccelConfig c = parse_config(fmt::format(R"({{"dram": {}}})", dram), "c.json");
    const auto model = make_memory_model(c);
    for (std::uint64_t bits : {0, 1, 7, 8, 191, 192, 193, 4096, 1'000'003}) {
      INFO(dram << " " << bits << " bits");
      CHECK(model->lower_bound_cycles(bits) == dram_cycles(bits, c));
      CHECK(model->complete_cycle({123, bits, bits % 2 == 1}, 1000) - 1000 == dram_cycles(8 * bits, c));
      CHECK(model->complete_cycle({0, bits, false}, 1000) - 1000 == dram_cycles(8 * bits, c));  // again: no state
      // A transfer of sub-byte bits split in row segments still takes dram_cycles(bits), once.
      const MemoryAccess segments[] = {{0, bits / 8 + 1, false}, {1 << 20, 3, false}};
      CHECK(transfer_complete_cycle(*model, segments, bits, 50) == 50 + dram_cycles(bits, c));
      CHECK(model->peak_cycles(bits) == dram_peak_cycles(bits, c));
    }
  }
}

TEST_CASE("dram: sequential accesses hit the open row, strided ones pay tRP + tRCD + tCL each") {
  auto model = ddr4_at_dram_clock();
  // Accesses 1,000 clocks apart (every bank idle again, tRAS long past), before the first refresh.
  for (std::uint64_t i = 0; i < 9; ++i) {
    const std::uint64_t issue = 1000 * i, cost = model->complete_cycle(read(i * kBurstBytes), issue) - issue;
    CHECK(cost == (i == 0 ? kRCD + kCL + kBurst : kCL + kBurst));  // a closed bank, then row hits
  }
  model = ddr4_at_dram_clock();
  const std::uint64_t same_bank_next_row = kRowBytes * kBanks;
  for (std::uint64_t i = 0; i < 9; ++i) {
    const std::uint64_t issue = 1000 * i, cost = model->complete_cycle(read(i * same_bank_next_row), issue) - issue;
    CHECK(cost == (i == 0 ? kRCD + kCL + kBurst : kRP + kRCD + kCL + kBurst));  // then row conflicts
  }
  model = ddr4_at_dram_clock();
  for (std::uint64_t i = 0; i < kBanks; ++i) {  // a new bank each time: misses, no precharge
    const std::uint64_t issue = 1000 * i;
    CHECK(model->complete_cycle(read(i * kRowBytes), issue) - issue == kRCD + kCL + kBurst);
  }
}

TEST_CASE(
    "dram: a stream issued at once runs at tCCD_L in one bank group, at the bus rate across groups, one tRAS + tRP "
    "per access when strided") {
  const std::uint64_t n = 100;
  // RoBaCoCh keeps consecutive bursts in one row of one bank, so in one bank group: column commands tCCD_L apart.
  auto model = ddr4_at_dram_clock();
  std::uint64_t last = 0;
  for (std::uint64_t i = 0; i < n; ++i) last = model->complete_cycle(read(i * kBurstBytes), 0);
  CHECK(last == kRCD + kCL + (n - 1) * kCCD_L + kBurst);
  // The default RoBaCoBgCh alternates bank groups from burst to burst: the first four open a row in each group
  // tRRD_S apart, and the data bus stays busy (tCCD_S = a burst's 4 clocks).
  model = ddr4_at_dram_clock("RoBaCoBgCh");
  for (std::uint64_t i = 0; i < n; ++i) last = model->complete_cycle(read(i * kBurstBytes), 0);
  CHECK(last == kRCD + kCL + n * kBurst);
  model = ddr4_at_dram_clock();
  for (std::uint64_t i = 0; i < n; ++i) last = model->complete_cycle(read(i * kRowBytes * kBanks), 0);
  CHECK(last == kRCD + kCL + kBurst + (n - 1) * (kRAS + kRP));  // activations tRC apart in one bank
  // One access over several bursts: the same as its bursts one by one.
  model = ddr4_at_dram_clock();
  CHECK(model->complete_cycle({0, n * kBurstBytes, false}, 0) == kRCD + kCL + (n - 1) * kCCD_L + kBurst);
  // A 1-byte access still moves one burst; one straddling two bursts moves both.
  model = ddr4_at_dram_clock();
  CHECK(model->complete_cycle({kBurstBytes - 1, 2, false}, 0) == kRCD + kCL + kCCD_L + kBurst);
}

TEST_CASE("dram: activations are tRRD_S apart, tRRD_L in one bank group, and at most four in any tFAW") {
  // Row misses in banks 0–4: groups 0, 1, 2, 3, 0. Activations at 0, 4, 8, 12 (tRRD_S); the fifth waits for the
  // window of the first four, 0 + tFAW = 26 (tRRD_L after bank 0 would allow 6). Each ends tRCD + tCL + burst
  // after its activation.
  auto model = ddr4_at_dram_clock();
  const std::uint64_t activations[] = {0, kRRD_S, 2 * kRRD_S, 3 * kRRD_S, kFAW};
  for (std::uint64_t bank = 0; bank < 5; ++bank)
    CHECK(model->complete_cycle(read(bank * kRowBytes), 0) == activations[bank] + kRCD + kCL + kBurst);
  // Banks 0, 4, 8, 12 share group 0: activations tRRD_L apart, inside one tFAW (3 · 6 < 26).
  model = ddr4_at_dram_clock();
  for (std::uint64_t i = 0; i < 4; ++i)
    CHECK(model->complete_cycle(read(4 * i * kRowBytes), 0) == i * kRRD_L + kRCD + kCL + kBurst);
}

TEST_CASE("dram: a precharge waits tRTP after the row's last read") {
  // Bank 0 opened at 0; a hit issued at 100 reads at 100; a conflict issued with it precharges at 100 + tRTP
  // (tRAS ended at 39), activates tRP later and reads tRCD after that.
  auto model = ddr4_at_dram_clock();
  CHECK(model->complete_cycle(read(0), 0) == kRCD + kCL + kBurst);
  CHECK(model->complete_cycle(read(kBurstBytes), 100) == 100 + kCL + kBurst);
  CHECK(model->complete_cycle(read(kRowBytes * kBanks), 100) == 100 + kRTP + kRP + kRCD + kCL + kBurst);
}

TEST_CASE("dram: writes have write latency, and a precharge after a write waits tWR") {
  auto model = ddr4_at_dram_clock();
  CHECK(model->complete_cycle({0, kBurstBytes, true}, 0) == kRCD + kCWL + kBurst);
  CHECK(model->complete_cycle({kRowBytes * kBanks, kBurstBytes, false}, 0) ==
        kRCD + kCWL + kBurst + kWR + kRP + kRCD + kCL + kBurst);
}

TEST_CASE("dram: all banks refresh for tRFC every tREFI and lose their open rows") {
  auto model = ddr4_at_dram_clock();
  CHECK(model->complete_cycle(read(0), 0) == kRCD + kCL + kBurst);
  // A hit whose column command precedes the refresh is served (its data may overlap the refresh's start).
  CHECK(model->complete_cycle(read(64), kREFI - 10) == kREFI - 10 + kCL + kBurst);
  // A conflict that cannot activate before the refresh starts again after it, the bank now closed.
  CHECK(model->complete_cycle(read(kRowBytes * kBanks), kREFI - 20) == kREFI + kRFC + kRCD + kCL + kBurst);
  // An access issued during a refresh waits for its end; the row it opened stays open until the next one.
  model = ddr4_at_dram_clock();
  CHECK(model->complete_cycle(read(0), 0) == kRCD + kCL + kBurst);
  CHECK(model->complete_cycle(read(0), kREFI + 5) == kREFI + kRFC + kRCD + kCL + kBurst);  // was open: now a miss
  CHECK(model->complete_cycle(read(64), kREFI + kRFC + 100) == kREFI + kRFC + 100 + kCL + kBurst);
  // Every tREFI again: accesses 500 clocks apart to one row cost a hit, except the first after each refresh.
  model = ddr4_at_dram_clock();
  std::uint64_t misses = 0, refreshes_met = 0;
  for (std::uint64_t issue = 0; issue < 5 * kREFI; issue += 500) {
    const std::uint64_t epoch = issue / kREFI, refresh_end = epoch * kREFI + kRFC;
    const bool in_refresh = epoch > 0 && issue < refresh_end;
    const bool first_of_epoch = issue == 0 || (issue - 500) / kREFI != epoch;
    const std::uint64_t start = in_refresh ? refresh_end : issue;
    const std::uint64_t expected = start + (first_of_epoch ? kRCD : 0) + kCL + kBurst;
    misses += first_of_epoch, refreshes_met += in_refresh;
    CHECK(model->complete_cycle(read(0), issue) == expected);
  }
  CHECK(misses == 5);
  CHECK(refreshes_met == 3);  // 9,500, 19,000 and 37,500 fall in a refresh; 28,080–28,500 holds no multiple of 500
}

TEST_CASE("dram: times convert between the DRAM clock and the accelerator clock, rounding up") {
  // DDR4-2400's clock is 1,200 MHz; at 500 MHz an accelerator cycle is 2.4 DRAM clocks.
  auto model = make_memory_model(with_memory(R"({"model": "dram", "device": "DDR4-2400"})", 500));
  // Issued at cycle 1 = DRAM clock ceil(2.4) = 3; done at clock 3 + 36 = 39 = cycle ceil(16.25) = 17.
  CHECK(model->complete_cycle(read(0), 1) == 17);
  CHECK(model->lower_bound_cycles(512) == 7);    // ceil((tCWL 12 + 512 / 128 bits a clock) / 2.4)
  CHECK(model->peak_cycles(1'228'800) == 4000);  // 128 bits a clock: 307.2 bits a cycle
  CHECK(model->lower_bound_cycles(0) == 0);
}

TEST_CASE("dram: lower bounds never exceed what random access sequences take, on every device") {
  std::mt19937_64 rng(10);
  for (const char* device : {"DDR4-2400", "LPDDR4-3200", "HBM2"})
    for (const char* memory : {R"({{"model": "dram", "device": "{}"}})",
                               R"({{"model": "dram", "device": "{}", "channels": 4, "mapping": "RoCoBaCh"}})"})
      for (double clock_mhz : {500.0, 1333.0}) {
        const AccelConfig c = with_memory(fmt::format(fmt::runtime(memory), device), clock_mhz);
        auto model = make_memory_model(c);
        std::uint64_t issue = 0;
        for (int batch = 0; batch < 60; ++batch) {
          issue += rng() % 3000;
          std::uint64_t batch_bits = 0, last = issue;
          const int accesses = 1 + int(rng() % 6);
          for (int a = 0; a < accesses; ++a) {
            const bool nearby = rng() % 2;  // half near the last address (row hits), half anywhere (conflicts)
            const MemoryAccess access{nearby ? (issue * 64) % (1 << 16) : rng() % (std::uint64_t{1} << 33),
                                      1 + rng() % 4096, rng() % 3 == 0};
            const std::uint64_t done = model->complete_cycle(access, issue);
            INFO(device << " " << clock_mhz << " MHz, " << access.bytes << " bytes at " << access.address);
            CHECK(done - issue >= model->lower_bound_cycles(8 * access.bytes));
            CHECK(model->lower_bound_cycles(8 * access.bytes) == dram_cycles(8 * access.bytes, c));
            batch_bits += 8 * access.bytes, last = std::max(last, done);
          }
          // A transfer's segments issued together: bounded by the transfer's bound, and the peak-rate bound of
          // any split is at most the sum of the parts' bounds.
          CHECK(last - issue >= model->lower_bound_cycles(batch_bits));
          CHECK(model->peak_cycles(batch_bits) <=
                model->lower_bound_cycles(batch_bits / 3) + model->lower_bound_cycles(batch_bits - batch_bits / 3));
        }
      }
}

TEST_CASE(
    "dram devices: JEDEC times in ns become whole DRAM clocks, each timing has a source, the table is read strictly") {
  struct Clocks {
    const char* name;
    std::uint64_t cl, cwl, rcd, rp, ras, wr, rtp, rfc, refi, ccd_s, ccd_l, rrd_s, rrd_l, faw, groups, burst_bytes;
  };
  // ⌈t / tCK⌉ by hand: tCK 0.8333 ns (DDR4-2400), 0.625 ns (LPDDR4-3200), 1 ns (HBM2); clocks as given. The
  // refresh of LPDDR4's 8 Gb channel is 280 ns, of HBM2's 4 Gb channel 260 ns; HBM2's tCWL is 4 clocks of 2 ns
  // and its tRAS 17 (Ramulator's HBM table).
  for (const Clocks& e : {Clocks{"DDR4-2400", 16, 12, 16, 16, 39, 18, 9, 420, 9360, 4, 6, 4, 6, 26, 4, 64},
                          Clocks{"LPDDR4-3200", 28, 14, 29, 29, 68, 29, 12, 448, 6247, 8, 8, 16, 16, 64, 1, 32},
                          Clocks{"HBM2", 14, 8, 14, 14, 34, 16, 14, 260, 3900, 2, 3, 4, 6, 16, 4, 32}}) {
    INFO(e.name);
    const DramDevice& d = DramDeviceTable::builtin().device(e.name);
    CHECK(std::array{d.cl, d.cwl, d.rcd, d.rp, d.ras, d.wr, d.rtp, d.rfc, d.refi} ==
          std::array{e.cl, e.cwl, e.rcd, e.rp, e.ras, e.wr, e.rtp, e.rfc, e.refi});
    CHECK(std::array{d.ccd_s, d.ccd_l, d.rrd_s, d.rrd_l, d.faw, d.bank_groups, d.burst_bytes()} ==
          std::array{e.ccd_s, e.ccd_l, e.rrd_s, e.rrd_l, e.faw, e.groups, e.burst_bytes});
  }
  const std::string device =
      R"({"name": "X", "source": "test", "data_rate_mts": 2400, "bus_bits": 64, "burst_length": 8, "banks": 16,
          "bank_groups": 4, "row_bytes": 8192, "rows": 65536, "tCL": {"ns": 13.32, "source": "s"},
          "tCWL": {"clocks": 12, "source": "s"}, "tRCD": {"ns": 13.32, "source": "s"},
          "tRP": {"ns": 13.32, "source": "s"}, "tRAS": {"ns": 32, "source": "s"}, "tWR": {"ns": 15, "source": "s"},
          "tRTP": {"ns": 7.5, "source": "s"}, "tRFC": {"ns": 350, "source": "s"}, "tREFI": {"ns": 7800, "source": "s"},
          "tCCD_S": {"clocks": 4, "source": "s"}, "tCCD_L": {"ns": 5, "source": "s"},
          "tRRD_S": {"clocks": 4, "source": "s"}, "tRRD_L": {"ns": 4.9, "source": "s"},
          "tFAW": {"ns": 21, "source": "s"}})";
  auto table = [&](const std::string& devices) {
    return DramDeviceTable::parse(R"({"source": "test", "devices": [)" + devices + "]}", "t.json");
  };
  CHECK(table(device).device("X").refi == 9360);
  CHECK(table(device).device("X").cwl == 12);
  CHECK(table(device).device("X").faw == 26);
  CHECK_THROWS_WITH(table(device + "," + device), Contains("t.json: devices[1]: name: 'X' is listed twice"));
  auto with = [&](const std::string& key, const std::string& value) {
    nlohmann::json d = nlohmann::json::parse(device);
    d[key] = nlohmann::json::parse(value);
    return d.dump();
  };
  CHECK_THROWS_WITH(table(with("banks", "12")), Contains("devices[0]: banks: 12 is not a power of two"));
  CHECK_THROWS_WITH(table(with("bank_groups", "3")), Contains("devices[0]: bank_groups: 3 is not a power of two"));
  CHECK_THROWS_WITH(table(with("bank_groups", "32")), Contains("bank_groups: 32 bank groups for 16 banks"));
  CHECK_THROWS_WITH(table(with("row_bytes", "32")), Contains("row_bytes: 32 bytes is less than one burst (64 bytes)"));
  CHECK_THROWS_WITH(table(with("tREFI", R"({"ns": 300, "source": "s"})")),
                    Contains("devices[0]: tREFI: 360 clocks leave no time between refreshes (tRFC + tRP + tFAW + "
                             "tRCD + tCCD_L = 484 clocks)"));
  CHECK_THROWS_WITH(table(with("tCL", R"({"ns": -1, "source": "s"})")),
                    Contains("devices[0]: tCL: ns: -1 is out of range"));
  CHECK_THROWS_WITH(table(with("tCL", R"({"clocks": 0, "source": "s"})")),
                    Contains("devices[0]: tCL: clocks: 0 is out of range [1, 10000000] clocks"));
  CHECK_THROWS_WITH(table(with("tCL", R"({"ns": 13.32, "clocks": 16, "source": "s"})")),
                    Contains("devices[0]: tCL: ns: give the time either in ns or in clocks (one of the two)"));
  CHECK_THROWS_WITH(table(with("tCL", R"({"source": "s"})")), Contains("tCL: ns: give the time either in ns"));
  CHECK_THROWS_WITH(table(with("tCL", R"({"ns": 13.32})")), Contains("devices[0]: tCL: source: missing"));
  CHECK_THROWS_WITH(table(with("tCL", "13.32")), Contains("devices[0]: tCL: must be a JSON object"));
  CHECK_THROWS_WITH(table(with("tCL", R"({"ns": 13.32, "source": "s", "ps": 1})")),
                    Contains("devices[0]: tCL: ps: unknown key"));
  CHECK_THROWS_WITH(table(with("tCCD_S", R"({"clocks": 3, "source": "s"})")),
                    Contains("tCCD_S: 3 clocks is less than a burst's data (BL/2 = 4 clocks)"));
  CHECK_THROWS_WITH(table(with("tCCD_L", R"({"clocks": 3, "source": "s"})")),
                    Contains("tCCD_L: 3 clocks is less than tCCD_S (4 clocks)"));
  CHECK_THROWS_WITH(table(with("tRRD_L", R"({"clocks": 3, "source": "s"})")),
                    Contains("tRRD_L: 3 clocks is less than tRRD_S (4 clocks)"));
  CHECK_THROWS_WITH(table(with("tRP_ns", "13")), Contains("devices[0]: tRP_ns: unknown key"));
  CHECK_THROWS_WITH(table(with("source", "1")), Contains("devices[0]: source: must be a string"));
  CHECK_THROWS_WITH(table(""), Contains("t.json: devices: lists no device"));
}

TEST_CASE("dram: the model counts row hits, misses and conflicts") {
  auto model = ddr4_at_dram_clock();
  auto& dram = dynamic_cast<DramModel&>(*model);
  model->complete_cycle({0, 4 * kBurstBytes, false}, 0);  // a miss, then 3 hits
  model->complete_cycle(read(kRowBytes), 0);              // another bank: a miss
  model->complete_cycle(read(kRowBytes * kBanks), 0);     // bank 0, another row: a conflict
  CHECK(dram.stats().bursts == 6);
  CHECK(dram.stats().row_hits == 3);
  CHECK(dram.stats().row_misses == 2);
  CHECK(dram.stats().row_conflicts == 1);
}
