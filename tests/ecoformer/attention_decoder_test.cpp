// The attention decoder (attention_decoder.hpp) against the causal kernels: each decode step's output is the last
// row of a causal prefill over the prompt and the tokens decoded so far (same parameters) — bit for bit for the
// EcoFormer family, whose state mirrors its reference's running sums; the state after the tokens equals their
// sums computed here in double (a recurrent variant's) or the tokens themselves (MSA's cache), and its bytes are
// what the counter's recurrent_state_bytes says (constant), or the cache's (growing).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "../gpu_or_skip.hpp"
#include "baseline_test_support.hpp"
#include "ecosim/ecoformer/attention_decoder.hpp"
#include "ecosim/ecoformer/hashed_attention.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "hashed_test_support.hpp"

using namespace ecosim;
using namespace ecosim::test;

namespace {

constexpr std::uint64_t kBatch = 2, kHeads = 2, kPrompt = 37, kSteps = 5, kDim = 16;

AttentionConfig decode_config(AttentionVariant v, std::uint64_t seq) {
  AttentionConfig c =
      is_hashed(v) ? hashed_config(v, kBatch, kHeads, seq, kDim, 8, 9) : baseline_config(v, kBatch, kHeads, seq, kDim);
  c.features = 32;
  c.causal = true;
  return c;
}

/// The EcoFormer family's state over the n tokens of every group, from a run's codes, in double: Σh vᵀ, Σh, Σv.
std::map<std::string, std::vector<double>> code_sums(const HashedRun& run, const Tensor& v, std::uint64_t n) {
  const std::uint64_t groups = v.batch * v.heads, d = v.dim, b = run.params.bits;
  std::vector<double> context(groups * b * d), code_sum(groups * b), value_sum(groups * d);
  for (std::uint64_t g = 0; g < groups; ++g)
    for (std::uint64_t j = 0; j < n; ++j) {
      const float* value = row(v.data, g, n, j, d);
      for (unsigned r = 0; r < b; ++r) {
        const double h = code_value(run, g * n + j, r);
        code_sum[g * b + r] += h;
        for (std::uint64_t c = 0; c < d; ++c) context[(g * b + r) * d + c] += h * value[c];
      }
      for (std::uint64_t c = 0; c < d; ++c) value_sum[g * d + c] += value[c];
    }
  return {{"context", context}, {"code_sum", code_sum}, {"value_sum", value_sum}};
}

constexpr AttentionVariant kDecoded[] = {AttentionVariant::msa,           AttentionVariant::performer,
                                         AttentionVariant::ecoformer,     AttentionVariant::klsh_ecoformer,
                                         AttentionVariant::lsh_ecoformer, AttentionVariant::bi_ecoformer,
                                         AttentionVariant::fp_ecoformer};

}  // namespace

TEST_CASE("a decode step's output is the last row of the causal prefill over the tokens so far") {
  for (AttentionVariant v : kDecoded) {
    INFO("variant " << name(v));
    const AttentionInputs all = synthetic_inputs(decode_config(v, kPrompt + kSteps), 11);
    OpCounter counts;
    AttentionDecoder decoder(token_range(all, 0, kPrompt), decode_config(v, kPrompt), Device::cpu, 5, counts);
    for (std::uint64_t t = 0; t < kSteps; ++t) {
      const RunResult step = decoder.step(token_range(all, kPrompt + t, 1), counts);
      const std::uint64_t n = kPrompt + t + 1;
      CHECK(decoder.tokens() == n);
      const RunResult prefill =
          run_attention(token_range(all, 0, n), decode_config(v, n), Device::cpu, decoder.parameters(), counts);
      for (std::uint64_t g = 0; g < kBatch * kHeads; ++g)
        for (std::uint64_t k = 0; k < kDim; ++k) {
          const float expected = prefill.out.data[(g * n + n - 1) * kDim + k], got = step.out.data[g * kDim + k];
          if (is_hashed(v))
            CHECK(got == expected);  // the same running sums in the same order
          else
            CHECK(got == Approx(expected).epsilon(1e-5).margin(1e-6));
        }
    }
  }
}

TEST_CASE("the decode state after N tokens is their prefix sums, or the tokens themselves") {
  for (AttentionVariant v : kDecoded) {
    INFO("variant " << name(v));
    const std::uint64_t n = kPrompt + kSteps, groups = kBatch * kHeads, d = kDim;
    const AttentionInputs all = synthetic_inputs(decode_config(v, n), 12);
    OpCounter counts;
    AttentionDecoder decoder(token_range(all, 0, kPrompt), decode_config(v, kPrompt), Device::cpu, 6, counts);
    for (std::uint64_t t = kPrompt; t < n; ++t) decoder.step(token_range(all, t, 1), counts);
    const auto state = decoder.state();
    const auto near = [](const std::vector<double>& got, const std::vector<double>& want) {
      REQUIRE(got.size() == want.size());
      double diff = 0, ref = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        diff += (got[i] - want[i]) * (got[i] - want[i]);
        ref += want[i] * want[i];
      }
      return std::sqrt(diff / std::max(ref, 1e-300)) <= 1e-5;
    };
    if (v == AttentionVariant::msa) {
      CHECK(state.at("k") == std::vector<double>(all.k.data.begin(), all.k.data.end()));
      CHECK(state.at("v") == std::vector<double>(all.v.data.begin(), all.v.data.end()));
      CHECK(decoder.state_bytes() == 2 * groups * n * d * sizeof(float));  // grows with every token
      continue;
    }
    AttentionConfig step = decode_config(v, 1);
    step.keys = n;  // a decode step over the tokens so far: the counter's constant state
    CHECK(decoder.state_bytes() == recurrent_state_bytes(step));
    if (v == AttentionVariant::performer) {  // φ(x) = exp(ω·x̃ − ‖x̃‖²/2 − m)/√F, x̃ = x/d^¼, in double
      const std::uint64_t f = 32;
      const std::vector<float>& omega = decoder.parameters().at("omega");
      const std::vector<double>& m = state.at("stabiliser");  // each group's keys' stabiliser: the prompt's largest
      std::vector<double> kv(groups * f * d), k_sum(groups * f), largest(groups, -INFINITY);
      for (std::uint64_t g = 0; g < groups; ++g)
        for (std::uint64_t j = 0; j < n; ++j) {
          const float* k = row(all.k.data, g, n, j, d);
          double half_sq = 0;
          for (std::uint64_t c = 0; c < d; ++c) half_sq += k[c] * k[c] / std::sqrt(double(d)) / 2;
          for (std::uint64_t r = 0; r < f; ++r) {
            const double e = dot(&omega[r * d], k, d) / std::pow(double(d), 0.25) - half_sq;
            if (j < kPrompt) largest[g] = std::max(largest[g], e);
            const double phi = std::exp(e - m[g]) / std::sqrt(double(f));
            k_sum[g * f + r] += phi;
            for (std::uint64_t c = 0; c < d; ++c) kv[(g * f + r) * d + c] += phi * row(all.v.data, g, n, j, d)[c];
          }
        }
      CHECK(near(state.at("kv"), kv));
      CHECK(near(state.at("k_sum"), k_sum));
      CHECK(near(m, largest));
      continue;
    }
    // hashed: the codes of a causal run over all n tokens with the decoder's parameters
    RecordingSink sink;
    const HashedRun run = run_hashed_detailed(all, decode_config(v, n), Device::cpu,
                                              hash_params_from(decoder.parameters(), decode_config(v, n)), sink);
    const auto sums = code_sums(run, all.v, n);
    CHECK(near(state.at("context"), sums.at("context")));
    if (run.params.binary())
      CHECK(state.at("code_sum") == sums.at("code_sum"));  // sums of ±1: exact
    else
      CHECK(near(state.at("code_sum"), sums.at("code_sum")));
    CHECK(near(state.at("value_sum"), sums.at("value_sum")));
  }
}

TEST_CASE("a decode step reports the counter's decode step, and refuses what it cannot decode") {
  const AttentionInputs all = synthetic_inputs(decode_config(AttentionVariant::performer, kPrompt + 1), 13);
  OpCounter prefill;
  AttentionDecoder decoder(token_range(all, 0, kPrompt), decode_config(AttentionVariant::performer, kPrompt),
                           Device::cpu, 7, prefill);
  OpCounter step, expected;
  decoder.step(token_range(all, kPrompt, 1), step);
  AttentionConfig one = decode_config(AttentionVariant::performer, 1);
  one.keys = kPrompt + 1;
  emit_attention(kAttentionRecordPrefix, one, Convention::exact, expected);
  CHECK(step.total() == expected.total());
  CHECK(step.total().ops(OpKind::mul) * 10 < prefill.total().ops(OpKind::mul));  // one token, not the prompt
  // a token of the wrong shape, and variants with no causal kernel (so no decode state)
  CHECK_THROWS_WITH(decoder.step(token_range(all, 0, 2), step), Catch::Contains("Q has shape"));
  CHECK_THROWS_WITH(token_range(all, kPrompt, 2), Catch::Contains("not a range of the tensor's tokens"));
  AttentionConfig c = decode_config(AttentionVariant::linformer, kPrompt);
  CHECK_THROWS_WITH(AttentionDecoder(synthetic_inputs(c, 1), c, Device::cpu, 1, prefill),
                    Catch::Contains("no causal form"));
  c.variant = AttentionVariant::reformer;
  CHECK_THROWS_WITH(AttentionDecoder(synthetic_inputs(c, 1), c, Device::cpu, 1, prefill),
                    Catch::Contains("causal attention for msa, performer and the EcoFormer family only"));
}

TEST_CASE("decode steps on the GPU are the GPU's causal prefill rows, with the CPU's state", "[gpu]") {
  if (!gpu_or_skip()) return;
  for (AttentionVariant v : kDecoded) {
    INFO("variant " << name(v));
    const AttentionInputs all = synthetic_inputs(decode_config(v, kPrompt + kSteps), 14);
    OpCounter counts;
    AttentionDecoder gpu(token_range(all, 0, kPrompt), decode_config(v, kPrompt), Device::cuda, 8, counts);
    AttentionDecoder cpu(token_range(all, 0, kPrompt), decode_config(v, kPrompt), Device::cpu, gpu.parameters(),
                         counts);
    for (std::uint64_t t = 0; t < kSteps; ++t) {
      const RunResult step = gpu.step(token_range(all, kPrompt + t, 1), counts);
      cpu.step(token_range(all, kPrompt + t, 1), counts);
      CHECK(step.device == Device::cuda);
      const std::uint64_t n = kPrompt + t + 1;
      const RunResult prefill =
          run_attention(token_range(all, 0, n), decode_config(v, n), Device::cuda, gpu.parameters(), counts);
      std::vector<double> last_rows;
      for (std::uint64_t g = 0; g < kBatch * kHeads; ++g)
        last_rows.insert(last_rows.end(),
                         prefill.out.data.begin() + static_cast<std::ptrdiff_t>((g * n + n - 1) * kDim),
                         prefill.out.data.begin() + static_cast<std::ptrdiff_t>((g * n + n) * kDim));
      CHECK(relative_error(step.out.data, last_rows) <= 1e-5);
    }
    CHECK(gpu.state_bytes() == cpu.state_bytes());
    // the state against the CPU's, or — the EcoFormer family, whose codes may differ from the CPU's on a tie (a
    // projection within rounding of 0: hashed_gpu_test.cpp) — against the sums of the GPU's own codes
    const std::uint64_t n = kPrompt + kSteps;
    std::map<std::string, std::vector<double>> expected = cpu.state();
    if (is_hashed(v)) {
      RecordingSink sink;
      const HashedRun run = run_hashed_detailed(all, decode_config(v, n), Device::cuda,
                                                hash_params_from(gpu.parameters(), decode_config(v, n)), sink);
      expected = code_sums(run, all.v, n);
    }
    const auto gpu_state = gpu.state();
    for (const auto& [array, values] : expected) {
      INFO("state array " << array);
      const std::vector<double>& got = gpu_state.at(array);
      REQUIRE(got.size() == values.size());
      CHECK(relative_error(std::vector<float>(got.begin(), got.end()), values) <= 1e-5);
    }
  }
}

TEST_CASE("a decoder whose prefill output is skipped decodes the same steps") {
  for (AttentionVariant v : {AttentionVariant::msa, AttentionVariant::performer, AttentionVariant::ecoformer}) {
    INFO("variant " << name(v));
    const AttentionInputs all = synthetic_inputs(decode_config(v, kPrompt + 2), 15);
    OpCounter computed_counts, skipped_counts;
    AttentionDecoder computed(token_range(all, 0, kPrompt), decode_config(v, kPrompt), Device::cpu, 9, computed_counts);
    AttentionDecoder skipped(token_range(all, 0, kPrompt), decode_config(v, kPrompt), Device::cpu, 9, skipped_counts,
                             AttentionDecoder::PrefillOutput::skipped);
    CHECK(skipped.prefill().out.data.empty());
    CHECK(skipped_counts.total().empty());  // no prefill work done
    CHECK(skipped.state() == computed.state());
    for (std::uint64_t t = kPrompt; t < kPrompt + 2; ++t)
      CHECK(skipped.step(token_range(all, t, 1), skipped_counts).out.data ==
            computed.step(token_range(all, t, 1), computed_counts).out.data);
  }
}

TEST_CASE("MSA decode steps on the GPU over a cache of several splits are the causal prefill's last rows", "[gpu]") {
  if (!gpu_or_skip()) return;
  // 600 + 1 keys: three splits of the split-KV step, the last one partial; head widths at each kernel instance's
  // limit and below it
  for (std::uint64_t d : {32, 50, 128}) {
    INFO("head width " << d);
    const std::uint64_t prompt = 600;
    AttentionConfig causal = baseline_config(AttentionVariant::msa, 1, 3, prompt + 2, d);
    causal.causal = true;
    const AttentionInputs all = synthetic_inputs(causal, 17);
    const auto at = [&](std::uint64_t seq) {
      AttentionConfig c = causal;
      c.seq = seq;
      return c;
    };
    OpCounter counts;
    // the prompt's GPU prefill output is not compared (its kernel is the baseline tests'): skipped, so that
    // compute-sanitizer's racecheck, which tracks every shared-memory access of that kernel, stays within its time
    AttentionDecoder gpu(token_range(all, 0, prompt), at(prompt), Device::cuda, 3, counts,
                         AttentionDecoder::PrefillOutput::skipped);
    for (std::uint64_t t = 0; t < 2; ++t) {
      const RunResult step = gpu.step(token_range(all, prompt + t, 1), counts);
      const std::uint64_t n = prompt + t + 1;
      const RunResult prefill = run_attention(token_range(all, 0, n), at(n), Device::cpu, 3, counts);
      std::vector<double> last_rows;
      for (std::uint64_t g = 0; g < 3; ++g)
        last_rows.insert(last_rows.end(), prefill.out.data.begin() + static_cast<std::ptrdiff_t>((g * n + n - 1) * d),
                         prefill.out.data.begin() + static_cast<std::ptrdiff_t>((g * n + n) * d));
      CHECK(step.device == Device::cuda);
      CHECK(relative_error(step.out.data, last_rows) <= 1e-5);
    }
  }
}

TEST_CASE(
    "an MSA decode step on the GPU over more splits than a combining block has threads is its query's softmax "
    "over the cache",
    "[gpu]") {
  if (!gpu_or_skip()) return;
  // 40,000 + 1 keys: 157 splits of 256, more than the 128 threads that combine a group's splits; a key counted
  // twice or missed would move the output by about 1/40,000 of a value, far above the bound
  const std::uint64_t prompt = 40000, n = prompt + 1, d = 32, groups = 2;
  AttentionConfig causal = baseline_config(AttentionVariant::msa, 1, groups, n, d);
  causal.causal = true;
  const AttentionInputs all = synthetic_inputs(causal, 29);
  AttentionConfig head = causal;
  head.seq = prompt;
  OpCounter counts;
  AttentionDecoder gpu(token_range(all, 0, prompt), head, Device::cuda, 3, counts,
                       AttentionDecoder::PrefillOutput::skipped);
  const RunResult step = gpu.step(token_range(all, prompt, 1), counts);
  // the reference in double: the last token's query over every key, 1/√d scaled, softmax, times the values
  std::vector<double> expected;
  for (std::uint64_t g = 0; g < groups; ++g) {
    const float* q = all.q.data.data() + (g * n + prompt) * d;
    std::vector<double> scores(n);
    for (std::uint64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (std::uint64_t c = 0; c < d; ++c) dot += double(q[c]) * all.k.data[(g * n + j) * d + c];
      scores[j] = dot / std::sqrt(double(d));
    }
    const double largest = *std::max_element(scores.begin(), scores.end());
    double sum = 0;
    std::vector<double> row(d, 0.0);
    for (std::uint64_t j = 0; j < n; ++j) {
      const double weight = std::exp(scores[j] - largest);
      sum += weight;
      for (std::uint64_t c = 0; c < d; ++c) row[c] += weight * all.v.data[(g * n + j) * d + c];
    }
    for (double x : row) expected.push_back(x / sum);
  }
  CHECK(step.device == Device::cuda);
  CHECK(relative_error(step.out.data, expected) <= 1e-5);
}
