// Exact-convention records of the hashed attention kernels' phases (see hashed_ops.hpp).
#include "hashed_ops.hpp"

#include <string>

#include "ecosim/ecoformer/hashed_attention.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::ecoformer::detail {

namespace {
bool kernel_hash(AttentionVariant v) {
  return v == AttentionVariant::ecoformer || v == AttentionVariant::klsh_ecoformer ||
         v == AttentionVariant::fp_ecoformer;
}

std::string hash_function(AttentionVariant v) {
  switch (v) {
    case AttentionVariant::ecoformer: return "ksh";
    case AttentionVariant::klsh_ecoformer: return "klsh";
    case AttentionVariant::fp_ecoformer: return "ksh_real";
    case AttentionVariant::lsh_ecoformer: return "lsh";
    default: return "sign";
  }
}
}  // namespace

HashedReporter::HashedReporter(const AttentionConfig& config, OpSink& sink)
    : config_(config),
      sink_(sink),
      groups_(checked_mul(config.batch, config.heads)),
      n_(config.seq),
      d_(config.head_dim),
      b_(config.code_bits()),
      m_(config.support),
      binary_(config.variant != AttentionVariant::fp_ecoformer),
      code_(binary_ ? DType::binary : DType::fp32),
      sum_(binary_ ? DType::int32 : DType::fp32) {}

void HashedReporter::emit(OpRecord r) {
  r.name = std::string(kHashedRecordPrefix) + "." + r.name;
  sink_.record(r);
}

void HashedReporter::add_hash_ops(const ops::OpMix& per_group) {
  hash_ops_ += ops::scaled(per_group, groups_, DType::fp32);
}

void HashedReporter::normalized() { emit(ops::l2_normalize("qk_normalize", groups_, n_, d_)); }

void HashedReporter::distances() {
  const std::uint64_t pairs = checked_mul(n_, m_);
  // per pair: d subtractions, d squares, d − 1 additions; then one sum over all pairs
  add_hash_ops({.mul = checked_mul(pairs, d_), .add = checked_add(checked_mul(pairs, 2 * d_ - 1), pairs - 1)});
}

void HashedReporter::bandwidth() { add_hash_ops({.mul = 2, .cmp = 1, .div = 1}); }

void HashedReporter::kernel_values() {
  const std::uint64_t pairs = checked_mul(n_, m_);
  add_hash_ops({.mul = pairs, .exp = pairs});
}

void HashedReporter::centred() {
  add_hash_ops({.mul = m_, .add = checked_add(checked_mul(m_, n_ - 1), checked_mul(n_, m_))});
}

void HashedReporter::projected() {
  const std::uint64_t inputs = kernel_hash(config_.variant) ? m_ : d_;
  add_hash_ops({.mul = checked_product({n_, b_, inputs}), .add = checked_product({n_, b_, inputs - 1})});
}

void HashedReporter::signs() { add_hash_ops({.cmp = checked_mul(n_, b_)}); }

void HashedReporter::hashed() {
  const bool kernel = kernel_hash(config_.variant);
  OpRecord r;
  r.name = "hash";
  r.kind = OpClass::hash;
  r.func = hash_function(config_.variant);
  r.batch = groups_;
  r.m = n_;
  r.n = b_;
  r.k = d_;
  r.b_dtype = DType::fp32;
  if (kernel) r.params["support"] = m_;
  r.counts = hash_ops_;
  const std::uint64_t weights = kernel ? checked_product({config_.heads, m_, d_ + b_})
                                : config_.variant == AttentionVariant::lsh_ecoformer
                                    ? checked_product({config_.heads, b_, d_})
                                    : 0;
  r.counts.add_read_bytes(DType::fp32,
                          storage_bytes(DType::fp32, checked_add(checked_product({groups_, n_, d_}), weights)));
  r.counts.add_written_bytes(code_, storage_bytes(code_, checked_product({groups_, n_, b_})));
  emit(std::move(r));
  hash_ops_ = {};
}

void HashedReporter::code_sums() {
  OpRecord r = ops::reduce("code_sum", "sum", groups_, b_, n_, sum_, ops::sum_row(n_), 1);
  r.a_dtype = r.b_dtype = code_;
  r.counts = ops::scaled(ops::sum_row(n_), checked_mul(groups_, b_), sum_);
  r.counts.add_read_bytes(code_, storage_bytes(code_, checked_product({groups_, n_, b_})));
  r.counts.add_written_bytes(sum_, storage_bytes(sum_, checked_mul(groups_, b_)));
  emit(std::move(r));
}

void HashedReporter::value_sums() {
  emit(ops::reduce("value_sum", "sum", groups_, d_, n_, DType::fp32, {.mul = 1, .add = n_ - 1}, 1));
}

void HashedReporter::context() {
  const ops::GemmShape shape{.batch = groups_, .m = b_, .n = d_, .k = n_, .a = code_};
  emit(binary_ ? ops::popcount_accumulate("context", shape) : ops::gemm("context", shape));
}

void HashedReporter::numerator() {
  const ops::GemmShape shape{.batch = groups_, .m = n_, .n = d_, .k = b_, .a = code_, .bias = true};
  emit(binary_ ? ops::popcount_accumulate("numerator", shape) : ops::gemm("numerator", shape));
}

void HashedReporter::denominator() {
  const ops::GemmShape shape{.batch = groups_, .m = n_, .n = 1, .k = b_, .a = code_, .b = sum_, .out = sum_,
                             .bias = true};
  emit(binary_ ? ops::popcount_accumulate("denominator", shape) : ops::gemm("denominator", shape));
}

void HashedReporter::normalised() {
  emit(ops::reduce("normalise", "normalise", groups_, n_, d_, DType::fp32, {.mul = d_, .div = 1}, d_));
}

}  // namespace ecosim::ecoformer::detail
