// Exact-convention op counts and compulsory bytes of the primitive operations.
#include "ecosim/ops_counter/primitives.hpp"

#include <algorithm>
#include <utility>

#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::ops {

namespace {

void require_positive(const GemmShape& s, const std::string& name) {
  if (s.batch == 0 || s.m == 0 || s.n == 0 || s.k == 0) throw Error("operation '" + name + "' has a zero dimension");
}

void add_gemm_bytes(OpCounts& c, const GemmShape& s) {
  c.add_read_bytes(s.a, storage_bytes(s.a, checked_product({s.batch, s.m, s.k})));
  c.add_read_bytes(s.b, storage_bytes(s.b, checked_product({s.b_shared ? 1 : s.batch, s.k, s.n})));
  if (s.bias) c.add_read_bytes(s.out, storage_bytes(s.out, s.n));
  c.add_written_bytes(s.out, storage_bytes(s.out, checked_product({s.batch, s.m, s.n})));
}

OpRecord gemm_like(std::string name, OpClass kind, const GemmShape& s) {
  require_positive(s, name);
  OpRecord r;
  r.name = std::move(name);
  r.kind = kind;
  r.batch = s.batch;
  r.m = s.m;
  r.n = s.n;
  r.k = s.k;
  r.a_dtype = s.a;
  r.b_dtype = s.b;
  add_gemm_bytes(r.counts, s);
  return r;
}

}  // namespace

OpRecord gemm(std::string name, const GemmShape& s) {
  OpRecord r = gemm_like(std::move(name), OpClass::gemm, s);
  const std::uint64_t outputs = checked_product({s.batch, s.m, s.n});
  r.counts.add(OpKind::mul, s.out, checked_mul(outputs, s.k));
  r.counts.add(OpKind::add, s.out, checked_add(checked_mul(outputs, s.k - 1), s.bias ? outputs : 0));
  return r;
}

OpRecord popcount_accumulate(std::string name, const GemmShape& s) {
  OpRecord r = gemm_like(std::move(name), OpClass::popcount_accumulate, s);
  const std::uint64_t outputs = checked_product({s.batch, s.m, s.n});
  r.counts.add(OpKind::add, s.out, checked_add(checked_mul(outputs, s.k - 1), s.bias ? outputs : 0));
  return r;
}

OpRecord conv(std::string name, const ConvShape& s, bool bias, DType t) {
  s.validate();
  OpRecord r;
  r.name = std::move(name);
  r.kind = OpClass::conv;
  r.batch = s.batch;
  r.m = s.m();
  r.n = s.n();
  r.k = s.k();
  r.a_dtype = r.b_dtype = t;
  r.params = s.params();
  const std::uint64_t outputs = checked_product({s.batch, r.m, r.n});
  r.counts.add(OpKind::mul, t, checked_mul(outputs, r.k));
  r.counts.add(OpKind::add, t, checked_add(checked_mul(outputs, r.k - 1), bias ? outputs : 0));
  r.counts.add_read_bytes(t, storage_bytes(t, checked_product({s.batch, s.in_channels, s.in_h, s.in_w})));
  r.counts.add_read_bytes(t,
                          storage_bytes(t, checked_add(checked_mul(s.out_channels, r.k), bias ? s.out_channels : 0)));
  r.counts.add_written_bytes(t, storage_bytes(t, outputs));
  return r;
}

OpCounts scaled(const OpMix& mix, std::uint64_t times, DType t) {
  OpCounts c;
  c.add(OpKind::mul, t, checked_mul(mix.mul, times));
  c.add(OpKind::add, t, checked_mul(mix.add, times));
  c.add(OpKind::cmp, t, checked_mul(mix.cmp, times));
  c.add(OpKind::exp, t, checked_mul(mix.exp, times));
  c.add(OpKind::div, t, checked_mul(mix.div, times));
  c.add(OpKind::sqrt, t, checked_mul(mix.sqrt, times));
  c.add(OpKind::popcount, t, checked_mul(mix.popcount, times));
  return c;
}

namespace {

/// A one-operand record of type t over batch × m × n (eltwise elements, or reduce rows × length).
OpRecord vector_record(std::string name, OpClass kind, std::string func, std::uint64_t batch, std::uint64_t m,
                       std::uint64_t n, DType t) {
  if (batch == 0 || m == 0 || n == 0) throw Error("operation '" + name + "' has a zero dimension");
  OpRecord r;
  r.name = std::move(name);
  r.kind = kind;
  r.func = std::move(func);
  r.batch = batch;
  r.m = m;
  r.n = n;
  r.a_dtype = r.b_dtype = t;
  return r;
}

}  // namespace

OpRecord eltwise(std::string name, std::string func, std::uint64_t batch, std::uint64_t m, std::uint64_t n, DType t,
                 const OpMix& per_element, unsigned inputs) {
  OpRecord r = vector_record(std::move(name), OpClass::eltwise, std::move(func), batch, m, n, t);
  const std::uint64_t elements = checked_product({batch, m, n});
  r.counts = scaled(per_element, elements, t);
  r.counts.add_read_bytes(t, checked_mul(storage_bytes(t, elements), inputs));
  r.counts.add_written_bytes(t, storage_bytes(t, elements));
  return r;
}

OpRecord reduce(std::string name, std::string func, std::uint64_t batch, std::uint64_t rows, std::uint64_t len, DType t,
                const OpMix& per_row, std::uint64_t out_per_row, std::uint64_t read_elements) {
  OpRecord r = vector_record(std::move(name), OpClass::reduce, std::move(func), batch, rows, len, t);
  const std::uint64_t all_rows = checked_mul(batch, rows);
  r.counts = scaled(per_row, all_rows, t);
  r.counts.add_read_bytes(t, storage_bytes(t, read_elements ? read_elements : checked_mul(all_rows, len)));
  r.counts.add_written_bytes(t, storage_bytes(t, checked_mul(all_rows, out_per_row)));
  return r;
}

OpRecord memcpy(std::string name, std::uint64_t batch, std::uint64_t m, std::uint64_t n, DType t) {
  OpRecord r = eltwise(std::move(name), "copy", batch, m, n, t, {});
  r.kind = OpClass::memcpy;
  return r;
}

OpMix softmax_row(std::uint64_t len) {
  // max: L−1 compares; x − max: L adds; exp: L; sum: L−1 adds; 1/sum: 1 div; normalise: L muls.
  return {.mul = len, .add = 2 * len - 1, .cmp = len - 1, .exp = len, .div = 1};
}

OpMix layernorm_row(std::uint64_t len, bool affine) {
  // mean: L−1 adds + 1 mul; centre: L adds; variance: L muls + L−1 adds + 1 mul; + eps: 1 add;
  // sqrt; reciprocal: 1 div; normalise: L muls; affine: L muls + L adds.
  const std::uint64_t scale_shift = affine ? len : 0;
  return {.mul = 2 * len + 2 + scale_shift, .add = 3 * len - 1 + scale_shift, .div = 1, .sqrt = 1};
}

OpMix rmsnorm_row(std::uint64_t len) {
  // mean square: L muls + L−1 adds + 1 mul (·1/L); + eps: 1 add; sqrt; reciprocal: 1 div; normalise: L muls;
  // scale by γ: L muls.
  return {.mul = 3 * len + 1, .add = len, .div = 1, .sqrt = 1};
}

OpMix l2_normalize_row(std::uint64_t len) {
  // ‖x‖²: L muls + L−1 adds; sqrt; max(‖x‖, eps): 1 compare; reciprocal: 1 div; scale: L muls.
  return {.mul = 2 * len, .add = len - 1, .cmp = 1, .div = 1, .sqrt = 1};
}

OpMix sum_row(std::uint64_t len) { return {.add = len - 1}; }

OpMix gelu_element() {
  // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), tanh(y) = 1 − 2/(exp(2y) + 1):
  // x³ (2), ·0.044715, ·√(2/π), 2y, 2/(…)→div, ·x, ·0.5 → 6 muls; 4 adds; 1 exp; 1 div.
  return {.mul = 6, .add = 4, .exp = 1, .div = 1};
}

OpMix relu_element() { return {.cmp = 1}; }

// exp(−x) (the sign flip is free), 1 + …, x / …
OpMix silu_element() { return {.add = 1, .exp = 1, .div = 1}; }

// Each rotated element of a pair (x₁, x₂): x₁·cos − x₂·sin (or x₂·cos + x₁·sin), cos and sin from a table.
OpMix rotary_element() { return {.mul = 2, .add = 1}; }

OpRecord softmax(std::string name, std::uint64_t batch, std::uint64_t rows, std::uint64_t len, DType t) {
  return reduce(std::move(name), "softmax", batch, rows, len, t, softmax_row(len), len);
}

OpRecord l2_normalize(std::string name, std::uint64_t batch, std::uint64_t rows, std::uint64_t len, DType t) {
  return reduce(std::move(name), "l2_normalize", batch, rows, len, t, l2_normalize_row(len), len);
}

OpRecord in_convention(OpRecord exact, Convention convention, const OpCounts& paper) {
  if (convention == Convention::paper) {
    OpCounts c = exact.counts.bytes_only();
    c += paper;
    exact.counts = c;
  }
  return exact;
}

OpCounts macs(std::uint64_t n, DType t) {
  OpCounts c;
  c.add(OpKind::mul, t, n);
  c.add(OpKind::add, t, n);
  return c;
}

OpCounts muls(std::uint64_t n) { return OpCounts{}.add(OpKind::mul, DType::fp32, n); }
OpCounts adds(std::uint64_t n) { return OpCounts{}.add(OpKind::add, DType::fp32, n); }

void add_onto_state(OpRecord& r, DType t, std::uint64_t elements) {
  r.counts.add(OpKind::add, t, elements);
  r.counts.add_read_bytes(t, storage_bytes(t, elements));
}

void join_group(std::span<OpRecord> records, std::string_view group) {
  for (OpRecord& r : records) r.group = group;
}

OpRecord prefixed(OpRecord r, std::string_view prefix) {
  r.name = std::string(prefix) + "." + r.name;
  if (!r.group.empty()) r.group = std::string(prefix) + "." + r.group;
  return r;
}

OpRecord dram_transfer(std::string name, DType t, std::uint64_t bytes, bool store) {
  OpRecord r;
  r.name = std::move(name);
  r.kind = OpClass::memcpy;
  r.func = "copy";
  r.n = std::max<std::uint64_t>(1, checked_mul(bytes, 8) / bits(t));
  r.a_dtype = r.b_dtype = t;
  if (store)
    r.counts.add_written_bytes(t, bytes);
  else
    r.counts.add_read_bytes(t, bytes);
  return r;
}

OpRecord on_chip(const OpRecord& pass) {
  OpRecord r = pass;
  r.counts = OpCounts{};
  for (OpKind k : kAllOpKinds)
    for (DType t : kAllDTypes)
      if (const std::uint64_t n = pass.counts.ops(k, t)) r.counts.add(k, t, n);
  return r;
}

}  // namespace ecosim::ops
