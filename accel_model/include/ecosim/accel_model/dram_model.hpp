// The `dram` memory model — channels of banks in bank groups with row buffers (open-page policy), JEDEC timings
// of a device from data/dram_devices.json in DRAM clocks (row, column, bank-group and activation-window
// constraints), all-bank refresh, and a row/bank group/bank/column/channel address mapping; accesses are served
// in the order they are issued (no reordering).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/accel_model/memory_model.hpp"

namespace ecosim::accel {

/// A DRAM device (one channel's worth of dies), its timings rounded up to whole DRAM clocks (ceil(t / tCK)).
/// `banks` counts all banks of a channel, `bank_groups` of them (1: none) share tCCD_L and tRRD_L.
struct DramDevice {
  std::string name;
  std::uint64_t data_rate_mts = 0, bus_bits = 0, burst_length = 0, banks = 0, bank_groups = 0, row_bytes = 0, rows = 0;
  std::uint64_t cl = 0, cwl = 0, rcd = 0, rp = 0, ras = 0, wr = 0, rtp = 0, rfc = 0, refi = 0;  // DRAM clocks
  // Column commands tCCD_S apart (another bank group) or tCCD_L (the same); activations tRRD_S or tRRD_L apart,
  // at most four in any tFAW. DRAM clocks.
  std::uint64_t ccd_s = 0, ccd_l = 0, rrd_s = 0, rrd_l = 0, faw = 0;

  std::uint64_t clock_khz() const { return data_rate_mts * 500; }  // double data rate: two transfers a clock
  std::uint64_t burst_bytes() const { return bus_bits / 8 * burst_length; }
  std::uint64_t burst_clocks() const { return burst_length / 2; }
};

class DramDeviceTable {
 public:
  /// accel_model/data/dram_devices.json.
  static const DramDeviceTable& builtin();
  /// Reads a table strictly (unknown or missing keys, numbers out of range, sizes not powers of two, a timing
  /// given both in ns and in clocks or in neither, short timings out of order (tCCD_S < BL/2, tCCD_L < tCCD_S,
  /// tRRD_L < tRRD_S), a refresh interval too short to make progress, a name listed twice: ecosim::Error naming
  /// `origin`).
  static DramDeviceTable parse(std::string_view json_text, const std::string& origin);
  /// The device called `name`; throws ecosim::Error listing the valid names.
  const DramDevice& device(std::string_view name) const;

 private:
  std::vector<DramDevice> devices_;
};

/// Address fields above the burst offset: where `mapping` (e.g. "RoBaCoBgCh", most significant first) puts the
/// row, bank group, bank, column (burst within the row) and channel. Without a Bg field, Ba numbers all banks
/// and a bank's group is its number modulo the groups; with one, Ba numbers the banks within a group.
enum class AddressField : std::uint8_t { row, bank_group, bank, column, channel };

/// The mapping a `dram` memory names when it gives none.
inline constexpr std::string_view kDefaultDramMapping = "RoBaCoBgCh";

/// What the model has done so far (for reports and tests).
struct DramStats {
  std::uint64_t bursts = 0, row_hits = 0, row_misses = 0, row_conflicts = 0;  // miss: closed bank; conflict: other row
};

class DramModel : public MemoryModel {
 public:
  /// `mapping`: the fields Ro, Ba, Co, Ch and optionally Bg once each, most significant first (ecosim::Error
  /// otherwise).
  DramModel(const DramDevice& device, std::uint64_t channels, std::string_view mapping, double clock_mhz);

  std::string_view name() const override { return "dram"; }
  std::uint64_t complete_cycle(const MemoryAccess& access, std::uint64_t issue_cycle) override;
  /// ceil((min(tCL, tCWL) + bits / (2 · bus bits · channels)) DRAM clocks in accelerator cycles): every access
  /// waits at least its CAS latency, and data moves at most at every channel's peak rate (all row hits, bursts
  /// alternating bank groups: one burst per max(BL/2, tCCD_S) clocks, and tCCD_S ≥ BL/2).
  std::uint64_t lower_bound_cycles(std::uint64_t bits) const override;
  std::uint64_t peak_cycles(std::uint64_t bits) const override;
  const DramStats& stats() const { return stats_; }

 private:
  struct Bank {
    bool open = false;
    std::uint64_t row = 0, epoch = 0;            // the open row, and the refresh interval it was opened in
    std::uint64_t cas_ready = 0, pre_ready = 0;  // earliest column command (tRCD) and precharge (tRAS, tRTP, tWR)
  };
  /// The earliest DRAM clocks of the next commands that the last ones allow (0: no constraint yet).
  struct NextCommands {
    std::uint64_t activate = 0, column = 0;  // tRRD and tCCD after the last activation and column command
  };
  struct Channel {
    std::uint64_t bus_free = 0;    // the data bus is busy until this DRAM clock
    std::uint64_t next_start = 0;  // the last burst's commands started here: no later burst starts earlier
    std::vector<Bank> banks;
    NextCommands any;                          // after the channel's last commands (tRRD_S, tCCD_S)
    std::vector<NextCommands> groups;          // after each bank group's last commands (tRRD_L, tCCD_L)
    std::array<std::uint64_t, 4> faw_ready{};  // the last four activations + tFAW, oldest at faw_next
    std::size_t faw_next = 0;
  };
  struct Decoded {
    std::uint64_t channel = 0, bank = 0, row = 0;  // bank: 0 … banks − 1, its group bank mod bank_groups
  };
  Decoded decode(std::uint64_t burst_index) const;
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
  /// An address field and the values it takes (a power of two divides as a shift).
  struct MappedField {
    AddressField field;
    std::uint64_t size;
    int shift;  // log2(size) when size is a power of two, else −1
  };
  bool mapped_bank_groups_;          // the mapping has a Bg field
  std::vector<MappedField> fields_;  // least significant first
  std::vector<Channel> channels_;
  DramStats stats_;
};

}  // namespace ecosim::accel
