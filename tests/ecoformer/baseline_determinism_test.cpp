// Determinism: the same seed gives bit-identical outputs; another seed gives other random features,
// projections and rotations (and so another output), while MSA, which has no random parameters, ignores it.
#include <catch2/catch.hpp>

#include "baseline_test_support.hpp"
#include "ecosim/ecoformer/random_parameters.hpp"

using namespace ecosim;
using namespace ecosim::test;

TEST_CASE("same seed, same output — other seed, other random parameters", "[baselines][determinism]") {
  for (AttentionVariant v : {AttentionVariant::performer, AttentionVariant::linformer, AttentionVariant::reformer}) {
    INFO(name(v));
    AttentionConfig c = baseline_config(v, 1, 2, 150, 32);
    c.proj_k = 32;
    c.features = 64;
    const AttentionInputs in = synthetic_inputs(c, 1);
    const auto first = run_cpu(in, c, 10);
    CHECK(run_cpu(in, c, 10) == first);
    CHECK(run_cpu(in, c, 11) != first);
  }
  const AttentionConfig msa = baseline_config(AttentionVariant::msa, 1, 1, 40, 16);
  const AttentionInputs in = synthetic_inputs(msa, 1);
  CHECK(run_cpu(in, msa, 1) == run_cpu(in, msa, 2));
}

TEST_CASE("random parameters depend on the seed only", "[baselines][determinism]") {
  CHECK(performer_omega(16, 40, 3) == performer_omega(16, 40, 3));
  CHECK(performer_omega(16, 40, 3) != performer_omega(16, 40, 4));
  CHECK(linformer_projection(8, 30, 3) != linformer_projection(8, 30, 4));
  CHECK(reformer_rotations(16, 2, 6, 3) != reformer_rotations(16, 2, 6, 4));
  CHECK(synthetic_inputs(baseline_config(AttentionVariant::msa, 1, 1, 5, 4), 1).q.data !=
        synthetic_inputs(baseline_config(AttentionVariant::msa, 1, 1, 5, 4), 2).q.data);
}
