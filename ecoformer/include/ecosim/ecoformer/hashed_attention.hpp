// EcoFormer hashed attention and its ablations (fp-, bi-, lsh-, klsh-ecoformer) as one entry point that
// run_attention dispatches to for every hashed variant (is_hashed(config.variant)).
#pragma once
#include "ecosim/ecoformer/run.hpp"

namespace ecosim::ecoformer {

RunResult run_hashed(const AttentionInputs& inputs, const AttentionConfig& config, Device device,
                     std::uint64_t seed, OpSink& sink);

}  // namespace ecosim::ecoformer
