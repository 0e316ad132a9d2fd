// Exact-convention records of the hashed attention kernels' phases (see hashed_ops.hpp).
#include "hashed_ops.hpp"

#include <string>

#include "ecosim/ecoformer/hashed_attention.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/hash_stages.hpp"

namespace ecosim::ecoformer::detail {

HashedReporter::HashedReporter(const AttentionConfig& config, OpSink& sink)
    : config_(config),
      sink_(sink),
      groups_(checked_mul(config.batch, config.heads)),
      n_(config.seq),
      d_(config.head_dim),
      b_(config.code_bits()),
      binary_(config.variant != AttentionVariant::fp_ecoformer),
      code_(binary_ ? DType::binary : DType::fp32),
      sum_(binary_ ? DType::int32 : DType::fp32) {}

void HashedReporter::emit(OpRecord r) {
  r.name = std::string(kHashedRecordPrefix) + "." + r.name;
  sink_.record(r);
}

void HashedReporter::normalized() { emit(ops::l2_normalize("qk_normalize", groups_, n_, d_)); }

void HashedReporter::distances() { emit(stages::hash_record(config_, stages::HashPart::distances)); }
void HashedReporter::kernel_values() { emit(stages::hash_record(config_, stages::HashPart::kernel)); }
void HashedReporter::centred() { emit(stages::hash_record(config_, stages::HashPart::centre)); }
void HashedReporter::projected() { emit(stages::hash_record(config_, stages::HashPart::projection)); }
void HashedReporter::signs() { emit(stages::hash_record(config_, stages::HashPart::sign)); }

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
