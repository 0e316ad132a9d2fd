// The `dram` memory model: per burst, the bank's row buffer decides a row hit (column command only), a miss
// (closed bank: activate, tRCD) or a conflict (another row open: precharge once tRAS, tRTP after the last read
// and tWR after the last write's data allow, tRP, activate, tRCD); data follows the column command after tCL
// (tCWL for writes) on the channel's data bus, in order. A channel issues activations and column commands in
// request order: activations tRRD_S apart (tRRD_L in the same bank group), at most four in any tFAW window,
// column commands tCCD_S apart (tCCD_L in the same bank group). All banks refresh together for tRFC every
// tREFI and lose their rows; a command sequence that a refresh would interrupt starts again after it.
#include <algorithm>
#include <bit>
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
  constexpr std::string_view kFields[] = {"Ro", "Bg", "Ba", "Co", "Ch"};  // in AddressField's order
  std::vector<AddressField> fields;                                       // most significant first while reading
  const bool whole_fields = mapping.size() % 2 == 0 && mapping.size() <= 2 * std::size(kFields);
  for (std::size_t at = 0; whole_fields && at < mapping.size(); at += 2) {
    const auto* f = std::find(std::begin(kFields), std::end(kFields), mapping.substr(at, 2));
    const auto field = static_cast<AddressField>(f - std::begin(kFields));
    if (f == std::end(kFields) || std::find(fields.begin(), fields.end(), field) != fields.end()) break;
    fields.push_back(field);
  }
  const bool complete =
      fields.size() * 2 == mapping.size() &&
      fields.size() + (std::find(fields.begin(), fields.end(), AddressField::bank_group) == fields.end()) ==
          std::size(kFields);
  if (!complete)
    throw Error(
        fmt::format("'{}' must name Ro, Ba, Co and Ch once each and Bg at most once, most significant first (e.g. {})",
                    mapping, kDefaultDramMapping));
  std::reverse(fields.begin(), fields.end());
  return fields;
}

}  // namespace

DramModel::DramModel(const DramDevice& device, std::uint64_t channels, std::string_view mapping, double clock_mhz)
    : device_(device),
      accel_khz_(static_cast<std::uint64_t>(std::llround(clock_mhz * 1e3))),
      mapped_bank_groups_(false) {
  const std::vector<AddressField> parsed = parse_mapping(mapping);
  mapped_bank_groups_ = std::find(parsed.begin(), parsed.end(), AddressField::bank_group) != parsed.end();
  for (AddressField f : parsed) {
    const std::uint64_t size = f == AddressField::row          ? device.rows
                               : f == AddressField::bank_group ? device.bank_groups
                               : f == AddressField::bank ? device.banks / (mapped_bank_groups_ ? device.bank_groups : 1)
                               : f == AddressField::column ? device.row_bytes / device.burst_bytes()
                                                           : channels;
    fields_.push_back({f, size, std::has_single_bit(size) ? std::countr_zero(size) : -1});
  }
  Channel idle;
  idle.banks.resize(device.banks);
  idle.groups.resize(device.bank_groups);
  channels_.assign(channels, idle);
}

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

DramModel::Decoded DramModel::decode(std::uint64_t burst_index) const {
  std::uint64_t bank_group = 0, bank = 0, rest = burst_index;
  Decoded d;
  for (const MappedField& f : fields_) {  // least significant first
    std::uint64_t value = 0;
    if (f.shift >= 0) {
      value = rest & (f.size - 1);
      rest >>= f.shift;
    } else {
      value = rest % f.size;
      rest /= f.size;
    }
    if (f.field == AddressField::row) d.row = value;
    if (f.field == AddressField::bank_group) bank_group = value;
    if (f.field == AddressField::bank) bank = value;
    if (f.field == AddressField::channel) d.channel = value;
  }
  // Either way a bank's group is its number modulo the groups.
  d.bank = mapped_bank_groups_ ? bank * device_.bank_groups + bank_group : bank;
  return d;
}

std::uint64_t DramModel::burst(std::uint64_t burst_index, bool write, std::uint64_t t) {
  const Decoded at = decode(burst_index);
  Channel& ch = channels_[at.channel];
  Bank& bk = ch.banks[at.bank];
  NextCommands& group = ch.groups[at.bank % device_.bank_groups];
  const std::uint64_t latency = write ? device_.cwl : device_.cl;
  t = std::max(t, ch.next_start);  // the controller serves a channel's bursts in order
  for (;;) {
    if (refreshing(t)) t = refresh_end(epoch(t));
    const bool open = bk.open && bk.epoch == epoch(t);  // a refresh since the activation closed the row
    const bool hit = open && bk.row == at.row;
    std::uint64_t activate = 0, cas = t;
    if (!hit) {
      const std::uint64_t precharged = open ? checked_add(std::max(t, bk.pre_ready), device_.rp) : t;
      activate = std::max({precharged, ch.any.activate, group.activate, ch.faw_ready[ch.faw_next]});
      cas = checked_add(activate, device_.rcd);
    }
    cas = std::max({cas, bk.cas_ready, ch.any.column, group.column});
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
      bk = Bank{true, at.row, epoch(t), checked_add(activate, device_.rcd), checked_add(activate, device_.ras)};
      ch.any.activate = checked_add(activate, device_.rrd_s);
      group.activate = checked_add(activate, device_.rrd_l);
      ch.faw_ready[ch.faw_next] = checked_add(activate, device_.faw);
      ch.faw_next = (ch.faw_next + 1) % ch.faw_ready.size();
    }
    ch.any.column = checked_add(cas, device_.ccd_s);
    group.column = checked_add(cas, device_.ccd_l);
    ch.bus_free = checked_add(cas + latency, device_.burst_clocks());
    bk.pre_ready = std::max(bk.pre_ready, write ? checked_add(ch.bus_free, device_.wr) : checked_add(cas, device_.rtp));
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
