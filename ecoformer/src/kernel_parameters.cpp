// The kernels' parameter arrays: their names and shapes per variant, their seeded draw (the baselines'
// random_parameters.hpp, the hashed variants' make_hash_params), and the check of a given set.
#include "ecosim/ecoformer/kernel_parameters.hpp"

#include <algorithm>
#include <cmath>

#include "baseline_kernels.hpp"
#include "ecosim/ecoformer/hash_params.hpp"
#include "ecosim/ecoformer/random_parameters.hpp"
#include "ecosim/ops_counter/attention_stages.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/hash_stages.hpp"

namespace ecosim::ecoformer {

std::vector<ParameterSpec> kernel_parameter_specs(const AttentionConfig& c) {
  const std::uint64_t h = c.heads, n = c.seq, d = c.head_dim;
  switch (c.variant) {
    case AttentionVariant::performer:
      return {{"omega",
               {c.features, d},
               "FAVOR+ random features, row f is w_f: phi(x)_f = exp(w_f.x' - |x'|^2/2)/sqrt(F), x' = x/D^(1/4)"}};
    case AttentionVariant::linformer:
      return {{"length_projection",
               {c.proj_k, n},
               "E, keys and values projected along the sequence (E.K, E.V), one E for every batch and head"}};
    case AttentionVariant::reformer: {
      const stages::ReformerPlan p = stages::reformer_plan(c);
      return {{"rotations",
               {d, p.rounds * (p.buckets / 2)},
               "random rotations R: round r buckets a normalised token x by argmax [xR_r, -xR_r], R_r its columns "
               "r*B/2 .. (r+1)*B/2-1"}};
    }
    default: break;
  }
  if (!is_hashed(c.variant) || !stages::projects_to_bits(c.variant)) return {};
  const std::uint64_t b = c.code_bits();
  if (!stages::hashes_through_anchors(c.variant))
    return {{"projection", {h, b, d}, "per head, b hyperplanes: y = W x of the L2-normalised token, code sign(y)"}};
  return {{"anchors", {h, c.support, d}, "per head, the m L2-normalised tokens the RBF kernel is taken to"},
          {"projection",
           {h, b, c.support},
           "per head, b x m weights (rows of unit l1 norm) applied to the centred RBF kernel values, code sign(y)"}};
}

KernelParameters draw_kernel_parameters(const AttentionInputs& inputs, const AttentionConfig& c, std::uint64_t seed) {
  detail::validate_inputs(inputs, c);  // before anchors are drawn from (and projections learned on) q
  switch (c.variant) {
    case AttentionVariant::performer: return {{"omega", performer_omega(c.head_dim, c.features, seed)}};
    case AttentionVariant::linformer: return {{"length_projection", linformer_projection(c.proj_k, c.seq, seed)}};
    case AttentionVariant::reformer: {
      const stages::ReformerPlan p = stages::reformer_plan(c);
      return {{"rotations", reformer_rotations(c.head_dim, p.rounds, p.buckets, seed)}};
    }
    default: break;
  }
  if (!is_hashed(c.variant)) return {};
  HashParams hash = make_hash_params(inputs.q, c, seed);
  KernelParameters p;
  if (!hash.anchors.empty()) p.emplace("anchors", std::move(hash.anchors));
  if (!hash.projection.empty()) p.emplace("projection", std::move(hash.projection));
  return p;
}

void check_kernel_parameters(const KernelParameters& p, const AttentionConfig& c) {
  const std::vector<ParameterSpec> specs = kernel_parameter_specs(c);
  for (const auto& given : p)
    if (std::none_of(specs.begin(), specs.end(), [&](const ParameterSpec& s) { return s.name == given.first; }))
      throw Error("parameter '" + given.first + "' is not read by " + std::string(name(c.variant)));
  for (const ParameterSpec& s : specs) {
    const auto it = p.find(s.name);
    if (it == p.end()) throw Error(std::string(name(c.variant)) + " needs the parameter '" + s.name + "'");
    std::uint64_t count = 1;
    for (std::uint64_t extent : s.shape) count = checked_mul(count, extent);
    if (it->second.size() != count)
      throw Error("parameter '" + s.name + "' holds " + std::to_string(it->second.size()) +
                  " values, its shape needs " + std::to_string(count));
    for (std::size_t i = 0; i < it->second.size(); ++i)
      if (!std::isfinite(it->second[i]))
        throw Error("parameter '" + s.name + "' holds a non-finite value at flat index " + std::to_string(i));
  }
}

}  // namespace ecosim::ecoformer
