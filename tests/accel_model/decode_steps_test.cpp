// Decode steps run one after another: T steps of a decoder over a KV cache cost, on the accelerator and on the
// GPU model, what the T single steps over the growing cache cost one by one — each step reads the weights again
// and launches its own kernels (Layer::passes), rather than one pass over T tokens.
#include <catch2/catch.hpp>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/gpu/op_records.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"

using namespace ecosim;
using namespace ecosim::test;

namespace {

/// A small Llama-style decoder: 4 query heads of 16 over 2 K/V heads, SwiGLU of 128, 2 layers, vocab 100.
const ModelZoo& zoo() {
  static const ModelZoo z = ModelZoo::parse(R"({
    "small": {"family": "decoder", "hidden_size": 64, "num_heads": 4, "num_kv_heads": 2, "intermediate_size": 128,
              "layers": 2, "vocab_size": 100, "max_position_embeddings": 4096, "norm": "rmsnorm", "mlp": "swiglu",
              "position": "rotary", "parallel_attention": false, "tie_word_embeddings": false, "qkv_bias": false,
              "o_bias": false, "mlp_bias": false, "native_attention": ["msa"]}
  })",
                                            "small");
  return z;
}

std::vector<OpRecord> decode_records(std::uint64_t context, std::uint64_t tokens) {
  ModelOptions o;
  o.batch = 2;
  o.phase.phase = Phase::decode;
  o.phase.context = context;
  o.phase.tokens = tokens;
  RecordingSink sink;
  for (const Layer& l : zoo().build("small", o)) emit(l, Convention::exact, sink);
  return sink.records;
}

}  // namespace

TEST_CASE("T decode steps cost the T single steps over the growing cache, on the GPU model") {
  const std::uint64_t context = 500, steps = 3;
  const gpu::GpuSpec h100 = gpu::builtin_gpu("h100-sxm");
  for (gpu::Software software : {gpu::Software::best_library, gpu::Software::ecosim_kernels}) {
    double one_by_one = 0;
    for (std::uint64_t t = 0; t < steps; ++t)
      one_by_one += gpu::modelled_latency_s(decode_records(context + t, 1), h100, software);
    const double together = gpu::modelled_latency_s(decode_records(context, steps), h100, software);
    CHECK(together == Approx(one_by_one).epsilon(1e-9));
  }
}

TEST_CASE("T decode steps cost the T single steps over the growing cache, on the accelerator") {
  const std::uint64_t context = 500, steps = 3;
  const AccelConfig config = static_pipeline(builtin_config("bitfusion-45nm"));
  double cycles = 0, dram_bits = 0;
  for (std::uint64_t t = 0; t < steps; ++t) {
    const ReplayResult r = replay_cf(decode_records(context + t, 1), config);
    cycles += double(r.total.cycles);
    dram_bits += double(r.total.dram_bits);
  }
  const ReplayResult together = replay_cf(decode_records(context, steps), config);
  // the weights streamed once a step: DRAM traffic is the steps' own, time too (the pipeline's fill and drain of
  // each step's GEMM aside)
  CHECK(double(together.total.dram_bits) == Approx(dram_bits).epsilon(1e-9));
  CHECK(double(together.total.cycles) == Approx(cycles).epsilon(0.01));
}
