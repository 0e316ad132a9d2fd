// OpCounts arithmetic, every sum checked for overflow.
#include "ecosim/ops_counter/op_counts.hpp"

#include "ecosim/ops_counter/checked.hpp"

namespace ecosim {

std::optional<OpKind> parse_op_kind(std::string_view text) {
  for (OpKind k : kAllOpKinds)
    if (name(k) == text) return k;
  return std::nullopt;
}

OpCounts& OpCounts::add(OpKind k, DType t, std::uint64_t n) {
  auto& slot = ops_[idx(k)][idx(t)];
  slot = checked_add(slot, n);
  return *this;
}

OpCounts& OpCounts::add_read_bytes(DType t, std::uint64_t n) {
  read_[idx(t)] = checked_add(read_[idx(t)], n);
  return *this;
}

OpCounts& OpCounts::add_written_bytes(DType t, std::uint64_t n) {
  written_[idx(t)] = checked_add(written_[idx(t)], n);
  return *this;
}

OpCounts& OpCounts::operator+=(const OpCounts& other) {
  for (OpKind k : kAllOpKinds)
    for (DType t : kAllDTypes) add(k, t, other.ops(k, t));
  for (DType t : kAllDTypes) {
    add_read_bytes(t, other.read_bytes(t));
    add_written_bytes(t, other.written_bytes(t));
  }
  return *this;
}

std::uint64_t OpCounts::ops(OpKind k) const {
  std::uint64_t sum = 0;
  for (auto n : ops_[idx(k)]) sum = checked_add(sum, n);
  return sum;
}

std::uint64_t OpCounts::read_bytes() const {
  std::uint64_t sum = 0;
  for (auto n : read_) sum = checked_add(sum, n);
  return sum;
}

std::uint64_t OpCounts::written_bytes() const {
  std::uint64_t sum = 0;
  for (auto n : written_) sum = checked_add(sum, n);
  return sum;
}

bool OpCounts::empty() const { return *this == OpCounts{}; }

OpCounts OpCounts::bytes_only() const {
  OpCounts c;
  c.read_ = read_;
  c.written_ = written_;
  return c;
}

}  // namespace ecosim
