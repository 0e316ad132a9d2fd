// The `dram` memory model: per burst, the bank's row buffer decides a row hit (column command only), a miss
// (closed bank: activate, tRCD) or a conflict (another row open: precharge once tRAS/tWR allow, tRP, activate,
// tRCD); data follows the column command after tCL (tCWL for writes) on the channel's data bus, in order.
// All banks refresh together for tRFC every tREFI and lose their rows; a command sequence that a refresh
// would interrupt starts again after it.
#include <algorithm>
#include <limits>

#include <fmt/core.h>

#include "ecosim/accel_model/dram_model.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::accel {

namespace {

__extension__ typedef unsigned __int128 u128;  // (GCC and Clang)

/// ceil(num / den), refused past 64 bits.
std::uint64_t ceil_ratio(u128 num, u128 den) {
  const u128 q = num / den + (num % den != 0);
  if (q > std::numeric_limits<std::uint64_t>::max())
    throw Error("DRAM timing overflows 64-bit cycle counts (the trace's cycles are too many)");
  return static_cast<std::uint64_t>(q);
}

std::vector<AddressField> parse_mapping(std::string_view mapping) {
  constexpr std::string_view kFields[] = {"Ro", "Ba", "Co", "Ch"};
  std::vector<AddressField> fields;  // most significant first while reading
  for (std::size_t at = 0; at + 2 <= mapping.size() && mapping.size() == 8; at += 2) {
    const auto* f = std::find(std::begin(kFields), std::end(kFields), mapping.substr(at, 2));
    const auto field = static_cast<AddressField>(f - std::begin(kFields));
    if (f == std::end(kFields) || std::find(fields.begin(), fields.end(), field) != fields.end()) break;
    fields.push_back(field);
  }
  if (fields.size() != 4)
    throw Error(
        fmt::format("'{}' must name Ro, Ba, Co and Ch once each, most significant first (e.g. RoBaCoCh)", mapping));
  std::reverse(fields.begin(), fields.end());
  return fields;
}

}  // namespace

DramModel::DramModel(const DramDevice& device, std::uint64_t channels, std::string_view mapping, double clock_mhz)
    : device_(device),
      accel_khz_(static_cast<std::uint64_t>(std::llround(clock_mhz * 1e3))),
      fields_(parse_mapping(mapping)),
      channels_(channels, Channel{0, 0, std::vector<Bank>(device.banks)}) {}

std::uint64_t DramModel::to_dram(std::uint64_t cycle) const {
  return ceil_ratio(u128{cycle} * device_.clock_khz(), accel_khz_);
}
std::uint64_t DramModel::to_accel(std::uint64_t dram_clock) const {
  return ceil_ratio(u128{dram_clock} * accel_khz_, device_.clock_khz());
}

std::uint64_t DramModel::complete_cycle(const MemoryAccess& access, std::uint64_t issue_cycle) {
  if (access.bytes == 0) return issue_cycle;
  const std::uint64_t issue = to_dram(issue_cycle), burst_bytes = device_.burst_bytes();
  const std::uint64_t first = access.address / burst_bytes,
                      last = checked_add(access.address, access.bytes - 1) / burst_bytes;
  std::uint64_t end = issue;
  for (std::uint64_t b = first; b <= last; ++b) end = std::max(end, burst(b, access.write, issue));
  return to_accel(end);
}

std::uint64_t DramModel::burst(std::uint64_t burst_index, bool write, std::uint64_t t) {
  // Decode the address fields, least significant first.
  std::uint64_t row = 0, bank = 0, channel = 0, rest = burst_index;
  for (AddressField f : fields_) {
    const std::uint64_t size = f == AddressField::row      ? device_.rows
                               : f == AddressField::bank   ? device_.banks
                               : f == AddressField::column ? device_.row_bytes / device_.burst_bytes()
                                                           : channels_.size();
    const std::uint64_t value = rest % size;
    rest /= size;
    if (f == AddressField::row) row = value;
    if (f == AddressField::bank) bank = value;
    if (f == AddressField::channel) channel = value;
  }
  Channel& ch = channels_[channel];
  Bank& bk = ch.banks[bank];
  const std::uint64_t latency = write ? device_.cwl : device_.cl;
  t = std::max(t, ch.next_start);  // the controller serves a channel's bursts in order
  for (;;) {
    if (refreshing(t)) t = refresh_end(epoch(t));
    const bool open = bk.open && bk.epoch == epoch(t);  // a refresh since the activation closed the row
    const bool hit = open && bk.row == row;
    std::uint64_t activate = 0, cas = 0;
    if (hit) {
      cas = std::max(t, bk.cas_ready);
    } else {
      activate = open ? checked_add(std::max(t, bk.pre_ready), device_.rp) : t;
      cas = checked_add(activate, device_.rcd);
    }
    if (ch.bus_free > checked_add(cas, latency)) cas = ch.bus_free - latency;  // data leaves in order on the one bus
    // A refresh before the column command would close the row: prepare the burst after that refresh instead.
    if (epoch(cas) != epoch(t) || refreshing(cas)) {
      t = refresh_end(epoch(cas));
      continue;
    }
    ch.next_start = t;
    ++stats_.bursts;
    if (hit) {
      ++stats_.row_hits;
    } else {
      ++(open ? stats_.row_conflicts : stats_.row_misses);
      bk = Bank{true, row, epoch(t), checked_add(activate, device_.rcd), checked_add(activate, device_.ras)};
    }
    ch.bus_free = checked_add(cas + latency, device_.burst_clocks());
    if (write) bk.pre_ready = std::max(bk.pre_ready, checked_add(ch.bus_free, device_.wr));
    return ch.bus_free;
  }
}

std::uint64_t DramModel::lower_bound_cycles(std::uint64_t bits) const {
  if (bits == 0) return 0;
  const std::uint64_t per_clock = 2 * device_.bus_bits * channels_.size();
  const std::uint64_t data = bits / per_clock + (bits % per_clock != 0);
  return to_accel(checked_add(std::min(device_.cl, device_.cwl), data));
}

std::uint64_t DramModel::peak_cycles(std::uint64_t bits) const {
  const u128 per_clock = u128{2} * device_.bus_bits * channels_.size();
  return ceil_ratio(u128{bits} * accel_khz_, per_clock * device_.clock_khz());
}

}  // namespace ecosim::accel
