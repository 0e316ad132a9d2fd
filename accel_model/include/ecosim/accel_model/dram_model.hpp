// The `dram` memory model — channels of banks with row buffers (open-page policy), JEDEC timings of
// a device from data/dram_devices.json in DRAM clocks, all-bank refresh, and a bank/row/column/channel
// address mapping; accesses are served in the order they are issued (no reordering).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/accel_model/memory_model.hpp"

namespace ecosim::accel {

/// A DRAM device (one channel's worth of dies), its timings rounded up to whole DRAM clocks (ceil(t / tCK)).
struct DramDevice {
  std::string name;
  std::uint64_t data_rate_mts = 0, bus_bits = 0, burst_length = 0, banks = 0, row_bytes = 0, rows = 0;
  std::uint64_t cl = 0, cwl = 0, rcd = 0, rp = 0, ras = 0, wr = 0, rfc = 0, refi = 0;  // DRAM clocks

  std::uint64_t clock_khz() const { return data_rate_mts * 500; }  // double data rate: two transfers a clock
  std::uint64_t burst_bytes() const { return bus_bits / 8 * burst_length; }
  std::uint64_t burst_clocks() const { return burst_length / 2; }
};

class DramDeviceTable {
 public:
  /// accel_model/data/dram_devices.json.
  static const DramDeviceTable& builtin();
  /// Reads a table strictly (unknown or missing keys, numbers out of range, sizes not powers of two, a
  /// refresh interval too short to make progress, a name listed twice: ecosim::Error naming `origin`).
  static DramDeviceTable parse(std::string_view json_text, const std::string& origin);
  /// The device called `name`; throws ecosim::Error listing the valid names.
  const DramDevice& device(std::string_view name) const;

 private:
  std::vector<DramDevice> devices_;
};

/// Address fields, least significant first after the burst offset: where `mapping` (e.g. "RoBaCoCh", most
/// significant first) puts the row, bank, column (burst within the row) and channel.
enum class AddressField : std::uint8_t { row, bank, column, channel };

/// What the model has done so far (for reports and tests).
struct DramStats {
  std::uint64_t bursts = 0, row_hits = 0, row_misses = 0, row_conflicts = 0;  // miss: closed bank; conflict: other row
};

class DramModel : public MemoryModel {
 public:
  /// `mapping`: the four fields Ro, Ba, Co, Ch once each, most significant first (ecosim::Error otherwise).
  DramModel(const DramDevice& device, std::uint64_t channels, std::string_view mapping, double clock_mhz);

  std::string_view name() const override { return "dram"; }
  std::uint64_t complete_cycle(const MemoryAccess& access, std::uint64_t issue_cycle) override;
  /// ceil((min(tCL, tCWL) + bits / (2 · bus bits · channels)) DRAM clocks in accelerator cycles): every access
  /// waits at least its CAS latency, and data moves at most at every channel's peak rate (all row hits).
  std::uint64_t lower_bound_cycles(std::uint64_t bits) const override;
  std::uint64_t peak_cycles(std::uint64_t bits) const override;
  const DramStats& stats() const { return stats_; }

 private:
  struct Bank {
    bool open = false;
    std::uint64_t row = 0, epoch = 0;            // the open row, and the refresh interval it was opened in
    std::uint64_t cas_ready = 0, pre_ready = 0;  // earliest column command (tRCD) and precharge (tRAS, tWR)
  };
  struct Channel {
    std::uint64_t bus_free = 0;    // the data bus is busy until this DRAM clock
    std::uint64_t next_start = 0;  // the last burst's commands started here: no later burst starts earlier
    std::vector<Bank> banks;
  };
  /// Schedules one burst no earlier than DRAM clock `t`; returns the clock its data ends.
  std::uint64_t burst(std::uint64_t burst_index, bool write, std::uint64_t t);
  std::uint64_t epoch(std::uint64_t t) const { return t / device_.refi; }
  /// The end of the refresh of interval `e` ≥ 1 (refresh e occupies [e·tREFI, e·tREFI + tRFC)).
  std::uint64_t refresh_end(std::uint64_t e) const { return e * device_.refi + device_.rfc; }
  bool refreshing(std::uint64_t t) const { return epoch(t) > 0 && t < refresh_end(epoch(t)); }
  std::uint64_t to_dram(std::uint64_t cycle) const;
  std::uint64_t to_accel(std::uint64_t dram_clock) const;

  DramDevice device_;
  std::uint64_t accel_khz_;
  std::vector<AddressField> fields_;  // least significant first
  std::vector<Channel> channels_;
  DramStats stats_;
};

}  // namespace ecosim::accel
