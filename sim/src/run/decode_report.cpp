// The decode steps of `ecosim run --decode-steps` (decode_report.hpp).
#include "decode_report.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ecosim/ecoformer/attention_decoder.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/hash_stages.hpp"
#include "ecosim/ops_counter/op_counter.hpp"

namespace ecosim::cli {

std::uint64_t decode_prompt(std::uint64_t steps, const AttentionConfig& config) {
  if (!config.causal) throw Error("--decode-steps needs --causal (decoding is causal)");
  const std::uint64_t needed = stages::hashes_through_anchors(config.variant)
                                   ? std::max<std::uint64_t>(1, (config.support + config.batch - 1) / config.batch)
                                   : 1;
  if (steps >= config.seq || config.seq - steps < needed)
    throw Error(
        fmt::format("--decode-steps {} leaves a prompt of {} of the {} tokens; the prompt's causal kernel "
                    "needs {}{}: give --decode-steps at most {}",
                    steps, steps >= config.seq ? 0 : config.seq - steps, config.seq, needed,
                    needed > 1 ? fmt::format(" (its {} anchors drawn from batch x prompt tokens)", config.support) : "",
                    config.seq > needed ? config.seq - needed : 0));
  return config.seq - steps;
}

nlohmann::json decode_report(const ecoformer::AttentionInputs& inputs, const AttentionConfig& config,
                             const ecoformer::KernelParameters& parameters, const ecoformer::Tensor& causal_out,
                             std::uint64_t prompt, ecoformer::Device device) {
  const std::uint64_t steps = config.seq - prompt, groups = config.batch * config.heads, d = config.head_dim;
  AttentionConfig prefill = config;
  prefill.seq = prompt;
  OpCounter prefill_counts, step_counts;
  ecoformer::AttentionDecoder decoder(ecoformer::token_range(inputs, 0, prompt), prefill, device, parameters,
                                      prefill_counts);
  std::vector<double> step_ms;
  double max_diff = 0;
  for (std::uint64_t t = prompt; t < config.seq; ++t) {
    const ecoformer::RunResult r = decoder.step(ecoformer::token_range(inputs, t, 1), step_counts);
    step_ms.push_back(r.latency_ms);
    for (std::uint64_t g = 0; g < groups; ++g)
      for (std::uint64_t k = 0; k < d; ++k) {
        const double diff =
            std::abs(double(r.out.data[g * d + k]) - double(causal_out.data[(g * config.seq + t) * d + k]));
        if (!std::isnan(max_diff) && !(diff <= max_diff)) max_diff = diff;  // a NaN stays (null in the JSON)
      }
  }
  std::sort(step_ms.begin(), step_ms.end());
  const std::size_t mid = step_ms.size() / 2;
  const double median_ms = step_ms.size() % 2 ? step_ms[mid] : (step_ms[mid - 1] + step_ms[mid]) / 2;
  return {{"device", device == ecoformer::Device::cuda ? "cuda" : "cpu"},
          {"prompt_tokens", prompt},
          {"steps", steps},
          {"prefill_ms", decoder.prefill().latency_ms},
          {"step_ms_median", median_ms},
          {"step_muls_mean", double(step_counts.total().ops(OpKind::mul)) / double(steps)},
          {"step_adds_mean", double(step_counts.total().ops(OpKind::add)) / double(steps)},
          {"state_bytes", decoder.state_bytes()},
          {"max_abs_diff_vs_causal_rows", max_diff}};
}

}  // namespace ecosim::cli
