// The arrays an attention kernel reads besides Q, K and V — Performer's features ω, Linformer's E, Reformer's
// rotations, the hashed variants' anchors and projections — by name and shape (one table, used to draw,
// check, save and read them back), and their draw from a seed. run_attention with a seed draws them and runs
// with them; run_attention with a KernelParameters runs with the arrays given (a user's saved set).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ecosim/ecoformer/run.hpp"

namespace ecosim::ecoformer {

/// One array a kernel reads: its name (the key in KernelParameters, the file stem when saved), its
/// row-major shape, and what it holds.
struct ParameterSpec {
  std::string name;
  std::vector<std::uint64_t> shape;
  std::string meaning;
};

/// The arrays config.variant's kernel reads besides Q, K, V, in a fixed order (none for msa, lsa and
/// bi-ecoformer).
std::vector<ParameterSpec> kernel_parameter_specs(const AttentionConfig& config);

/// Parameter arrays by name, row-major float32, each of its spec's shape.
using KernelParameters = std::map<std::string, std::vector<float>>;

/// The parameters run_attention(inputs, config, device, seed, ·) uses: drawn from the seed with Philox, and
/// for the hashed variants from the shared q/k tokens too (anchors; the learned ecoformer projections).
/// Throws ecosim::Error for a config or inputs that run_attention refuses.
KernelParameters draw_kernel_parameters(const AttentionInputs& inputs, const AttentionConfig& config,
                                        std::uint64_t seed);

/// Throws ecosim::Error unless p holds exactly the arrays of kernel_parameter_specs(config), each with its
/// shape's element count of finite values.
void check_kernel_parameters(const KernelParameters& p, const AttentionConfig& config);

/// run_attention with the parameters given (checked by check_kernel_parameters) instead of drawn ones:
/// run_attention(inputs, config, device, seed, sink) is this with draw_kernel_parameters(inputs, config, seed).
RunResult run_attention(const AttentionInputs& inputs, const AttentionConfig& config, Device device,
                        const KernelParameters& parameters, OpSink& sink);

}  // namespace ecosim::ecoformer
