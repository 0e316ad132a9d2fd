// Deterministic synthetic Q, K, V: independent standard normals from the seed (streams 0, 1, 2).
#include "ecosim/ecoformer/run.hpp"
#include "ecosim/kernels/philox.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::ecoformer {

AttentionInputs synthetic_inputs(const AttentionConfig& config, std::uint64_t seed) {
  config.validate();
  const std::uint64_t size = checked_product({config.batch, config.heads, config.seq, config.head_dim});
  auto make = [&](std::uint32_t stream) {
    Tensor t{config.batch, config.heads, config.seq, config.head_dim, std::vector<float>(size)};
    for (std::uint64_t i = 0; i < size; ++i) t.data[i] = rng::normal(seed, stream, i);
    return t;
  };
  return {make(0), make(1), make(2)};
}

}  // namespace ecosim::ecoformer
