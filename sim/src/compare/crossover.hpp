// Internal: `ecosim crossover` — a decoder model's cost per token over a range of contexts for each attention
// variant, in decode (the step that makes the context C tokens) or prefill (C tokens): the op energy (the tech
// table), the accelerator's closed-form latency and energy, the modelled GPU time (the best library's kernels on
// a named GPU), the KV cache or recurrent state after it, and the context at which each falls below MSA's.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/gpu/gpu_spec.hpp"
#include "ecosim/ops_counter/energy.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"

namespace ecosim::cli {

struct CrossoverRequest {
  ModelZoo zoo;
  std::string model;
  gpu::GpuSpec gpu;      // the GPU whose modelled time per token is reported (the best library's kernels)
  ModelOptions options;  // the variants' parameters, batch and dtypes; its phase kind (prefill or decode)
  std::vector<std::uint64_t> contexts;     // ascending
  std::vector<AttentionVariant> variants;  // msa first: the reference
};

/// Per token (decode: the one step; prefill: the pass ÷ its tokens).
struct CrossoverPoint {
  std::uint64_t context = 0;
  double op_energy_pj = 0, accel_energy_pj = 0, accel_latency_ms = 0, macs = 0;
  double gpu_latency_ms = 0;                   // modelled on CrossoverRequest::gpu, the best library's kernels
  std::uint64_t kv_cache_bytes = 0;            // after the step or pass: KV cache or recurrent state, all layers
  bool gpu_fits = true;                        // the weights and the KV cache or state fit the GPU's memory
  std::vector<std::string> gpu_op_by_op = {};  // why the GPU time prices attention op by op, not fused
};

/// Where a cost falls below MSA's over the contexts listed: below already at the first, crossing between two
/// listed contexts (found by linear interpolation of the difference, exact where both costs are linear in the
/// context, as a decode step's op energy is), after a listed context where the two are equal and by the next
/// (equal costs tell nothing of where they part: a sliding window's cost leaves MSA's at the window), or not
/// within them. A cost below MSA's at a shorter context, then not (Reformer's buckets), is marked so: the
/// crossing is the last.
struct Crossover {
  enum class Kind : std::uint8_t { below_from_first, crosses, after_tie, not_within } kind = Kind::not_within;
  double context = 0;  // crosses: the interpolated context; after_tie: the last listed context with equal costs
  double by = 0;       // after_tie: the next listed context, where the cost is below
  // the first listed context where the cost was below MSA's before it was not; 0: none
  std::uint64_t below_earlier = 0;
};

/// The last listed context at which `cost` is not below `msa` is followed by the crossing; see Crossover.
Crossover find_crossover(const std::vector<std::uint64_t>& contexts, const std::vector<double>& msa,
                         const std::vector<double>& cost);

struct CrossoverSeries {
  AttentionVariant variant{};
  std::vector<CrossoverPoint> points;                                       // one per context
  Crossover op_energy, accel_energy, accel_latency, gpu_latency, kv_cache;  // against MSA (MSA's own: not_within)
};

/// Counts, replays (closed form) and compares every variant at every context; throws ecosim::Error for a
/// context or variant the model cannot take.
std::vector<CrossoverSeries> crossover_series(const CrossoverRequest& request, const accel::AccelConfig& accel,
                                              const TechTable& tech);

nlohmann::ordered_json crossover_json(const CrossoverRequest& request, const std::vector<CrossoverSeries>& series,
                                      const accel::AccelConfig& accel, const TechTable& tech);
/// The points of crossover_json as CSV: a header row, `variant` then the points' keys, and a row per variant and
/// context (numbers as the JSON writes them).
std::string crossover_csv(const nlohmann::ordered_json& report);

/// The warning that `where` (a variant, at a context) holds more than `gpu`'s memory — its weights and KV cache or
/// state, `needed_bytes` where given — so its GPU times (gpu_fits false) assume memory the GPU does not have; one
/// line, ending in a newline (compare and crossover print it on stderr).
std::string gpu_memory_warning(const std::string& where, const gpu::GpuSpec& gpu,
                               std::optional<std::uint64_t> needed_bytes = std::nullopt);
/// A table per metric (contexts as columns), then each variant's crossover contexts.
void print_crossover_table(std::ostream& out, const CrossoverRequest& request,
                           const std::vector<CrossoverSeries>& series);

}  // namespace ecosim::cli
