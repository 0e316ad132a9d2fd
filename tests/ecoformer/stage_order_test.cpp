// Each kernel reports each stage of its variant exactly once, in the analytic counter's order: the sequence
// of records a kernel reports equals emit_attention's for the same config without projections — names in
// order, and the records themselves — for every variant with a kernel (and MSA on fp16 inputs, whose
// records differ only in the bytes read). CPU here; the GPU kernels under [gpu], skipped without a GPU.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ecosim/ecoformer/msa_fp16.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/ops_counter/sinks.hpp"
#include "hashed_test_support.hpp"

using namespace ecosim;
using namespace ecosim::test;

namespace {

/// A small config of variant v that exercises every stage: odd N, several heads, Reformer chunks of two
/// shapes (30, 30, 30, 10 tokens), LSA windows over a padded grid, anchors fewer than tokens.
AttentionConfig stage_config(AttentionVariant v) {
  AttentionConfig c = hashed_config(v, 2, 3, 60, 16, 8, 5);
  c.features = 12;
  c.proj_k = 10;
  c.chunk = 30;
  c.grid_height = 6;
  c.window = 4;
  if (v == AttentionVariant::reformer) c.seq = 100;
  return c;
}

std::vector<std::string> names(const std::vector<OpRecord>& records) {
  std::vector<std::string> out;
  for (const OpRecord& r : records) out.push_back(r.name);
  return out;
}

RecordingSink analytic(const AttentionConfig& c) {
  RecordingSink sink;
  emit_attention(kAttentionRecordPrefix, c, Convention::exact, sink);
  return sink;
}

void check_stage_order(Device device) {
  for (AttentionVariant v : all_attention_variants()) {
    if (!has_kernel(v)) continue;
    const AttentionConfig c = stage_config(v);
    INFO("variant " << name(v));
    RecordingSink kernel;
    run_attention(synthetic_inputs(c, 2), c, device, 2, kernel);
    const RecordingSink expected = analytic(c);
    CHECK(names(kernel.records) == names(expected.records));
    CHECK(kernel.records == expected.records);
  }
  const AttentionConfig msa = stage_config(AttentionVariant::msa);
  RecordingSink fp16;
  run_msa_fp16(synthetic_inputs(msa, 2), msa, device, fp16);
  CHECK(names(fp16.records) == names(analytic(msa).records));
}

}  // namespace

TEST_CASE("each kernel reports each stage once in the analytic order (CPU)", "[stages][counts]") {
  check_stage_order(Device::cpu);
}

TEST_CASE("each kernel reports each stage once in the analytic order (GPU)", "[stages][counts][gpu]") {
  const gpu::Availability gpu = gpu::probe();
  if (!gpu.available) {
    WARN("SKIPPED: no GPU (" + gpu.reason + ")");
    return;
  }
  check_stage_order(Device::cuda);
}
