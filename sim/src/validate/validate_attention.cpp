// `ecosim validate --suite attention`: every attention variant on a grid of shapes — instrumented op counts
// equal to the analytic exact counts, finite output, GPU against the CPU reference (or a SKIP row saying
// why) — and the mathematical properties of the baselines (online softmax = naive softmax, convex
// combinations of V, Performer converging to MSA, Linformer and Reformer equal to their definitions).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "ecosim/ecoformer/msa_fp16.hpp"
#include "ecosim/ecoformer/random_parameters.hpp"
#include "ecosim/ecoformer/reference.hpp"
#include "ecosim/ecoformer/run.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "non_finite.hpp"
#include "tolerance.hpp"
#include "validation.hpp"

namespace ecosim::cli {

namespace {

namespace eco = ecoformer;

struct Shape {
  std::uint64_t batch, heads, seq, dim;
};
// Odd N, N below the default 16 hash bits, several heads, D ∈ {16, 32, 64}, more than one Reformer chunk.
constexpr Shape kGrid[] = {{1, 1, 7, 16}, {2, 3, 33, 32}, {1, 2, 131, 64}};

constexpr std::uint64_t kSeed = 7;

AttentionConfig config_of(AttentionVariant variant, const Shape& s) {
  AttentionConfig c;
  c.variant = variant;
  c.batch = s.batch, c.heads = s.heads, c.seq = s.seq, c.head_dim = s.dim;
  c.projections = false;
  c.support = std::min<std::uint64_t>(c.support, s.seq);
  c.proj_k = 16;
  c.features = 64;
  c.chunk = 32;
  return c;
}

std::string label(const AttentionConfig& c) {
  return fmt::format("{} B{} H{} N{} D{}", name(c.variant), c.batch, c.heads, c.seq, c.head_dim);
}

struct Run {
  eco::RunResult result;
  OpCounts counts;
};

Run run(const eco::AttentionInputs& in, const AttentionConfig& c, eco::Device device) {
  OpCounter counter;
  eco::RunResult result = eco::run_attention(in, c, device, kSeed, counter);
  return {std::move(result), counter.total()};
}

void check_variant(Validation& v, const AttentionConfig& c, const std::string& gpu_unavailable) {
  const eco::AttentionInputs in = eco::synthetic_inputs(c, kSeed);
  const Run cpu = run(in, c, eco::Device::cpu);
  OpCounter analytic;
  emit_attention(eco::kAttentionRecordPrefix, c, Convention::exact, analytic);
  v.check(
      "counts " + label(c), cpu.counts == analytic.total(),
      fmt::format("instrumented {} mul {} add, analytic {} mul {} add", cpu.counts.ops(OpKind::mul),
                  cpu.counts.ops(OpKind::add), analytic.total().ops(OpKind::mul), analytic.total().ops(OpKind::add)));
  v.check("finite " + label(c), count_non_finite(cpu.result.out.data) == 0, "cpu output has no NaN/Inf");
  if (!gpu_unavailable.empty()) {
    v.skip("gpu vs cpu " + label(c), gpu_unavailable);
    return;
  }
  const Run gpu = run(in, c, eco::Device::cuda);
  const double error = eco::max_relative_error(gpu.result.out.data, cpu.result.out.data);
  const double tolerance = kernel_tolerance(c.variant);
  v.check("gpu vs cpu " + label(c), error <= tolerance && gpu.counts == cpu.counts,
          fmt::format("max rel error {:.2e} (tolerance {:.0e}), counts {}", error, tolerance,
                      gpu.counts == cpu.counts ? "equal" : "DIFFER"));
}

/// The MSA properties on one input: equals the naive softmax; rows of weights sum to 1 (V = 1 → out = 1);
/// every output column lies within the range of its V column.
void check_msa_properties(Validation& v, const Shape& s) {
  const AttentionConfig c = config_of(AttentionVariant::msa, s);
  eco::AttentionInputs in = eco::synthetic_inputs(c, kSeed);
  const Run online = run(in, c, eco::Device::cpu);
  const double error =
      eco::max_relative_error(online.result.out.data, eco::naive_softmax_attention(in.q, in.k, in.v).data);
  v.check("msa online = naive softmax " + label(c), error < 1e-5, fmt::format("max rel error {:.2e} < 1e-5", error));

  bool convex = true;
  const std::uint64_t groups = s.batch * s.heads, n = s.seq, d = s.dim;
  for (std::uint64_t g = 0; g < groups; ++g)
    for (std::uint64_t col = 0; col < d; ++col) {
      float lo = INFINITY, hi = -INFINITY;
      for (std::uint64_t j = 0; j < n; ++j)
        lo = std::min(lo, in.v.data[(g * n + j) * d + col]), hi = std::max(hi, in.v.data[(g * n + j) * d + col]);
      for (std::uint64_t i = 0; i < n; ++i) {
        const float o = online.result.out.data[(g * n + i) * d + col];
        convex = convex && o >= lo - 1e-5f && o <= hi + 1e-5f;
      }
    }
  v.check("msa output within V's column range " + label(c), convex, "convex combination of the rows of V");

  std::fill(in.v.data.begin(), in.v.data.end(), 1.0f);
  const Run ones = run(in, c, eco::Device::cpu);
  double worst = 0;
  for (float o : ones.result.out.data) worst = std::max(worst, std::abs(double{o} - 1.0));
  v.check("msa weights sum to 1 " + label(c), worst < 1e-5, fmt::format("V = 1 gives max |out − 1| = {:.2e}", worst));
}

/// Performer's error against exact MSA falls as the random features grow (small inputs, fixed seed).
void check_performer_convergence(Validation& v) {
  AttentionConfig c = config_of(AttentionVariant::performer, {1, 2, 24, 16});
  eco::AttentionInputs in = eco::synthetic_inputs(c, kSeed);
  for (auto* t : {&in.q, &in.k})
    for (float& x : t->data) x *= 0.5f;
  const std::vector<float> exact = eco::naive_softmax_attention(in.q, in.k, in.v).data;
  std::string detail;
  std::vector<double> errors;
  for (std::uint64_t f : {4, 64, 1024, 8192}) {
    c.features = f;
    errors.push_back(eco::relative_frobenius_error(run(in, c, eco::Device::cpu).result.out.data, exact));
    detail += fmt::format("F={}: {:.3f}  ", f, errors.back());
  }
  v.check("performer → msa as features grow", errors.back() < errors.front() && errors.back() < 0.05, detail);
}

/// Linformer equals softmax attention over (E·K, E·V) with E from the seed.
void check_linformer_definition(Validation& v) {
  const Shape s{1, 2, 21, 16};
  const AttentionConfig c = config_of(AttentionVariant::linformer, s);
  const eco::AttentionInputs in = eco::synthetic_inputs(c, kSeed);
  const std::vector<float> e = eco::linformer_projection(c.proj_k, s.seq, kSeed);
  eco::Tensor k{s.batch, s.heads, c.proj_k, s.dim, std::vector<float>(s.batch * s.heads * c.proj_k * s.dim)};
  eco::Tensor val = k;
  for (std::uint64_t g = 0; g < s.batch * s.heads; ++g)
    for (std::uint64_t r = 0; r < c.proj_k; ++r)
      for (std::uint64_t col = 0; col < s.dim; ++col)
        for (std::uint64_t t = 0; t < s.seq; ++t) {
          k.data[(g * c.proj_k + r) * s.dim + col] += e[r * s.seq + t] * in.k.data[(g * s.seq + t) * s.dim + col];
          val.data[(g * c.proj_k + r) * s.dim + col] += e[r * s.seq + t] * in.v.data[(g * s.seq + t) * s.dim + col];
        }
  const double error = eco::max_relative_error(run(in, c, eco::Device::cpu).result.out.data,
                                               eco::naive_softmax_attention(in.q, k, val).data);
  v.check("linformer = softmax over (E·K, E·V)", error < 1e-4, fmt::format("max rel error {:.2e} < 1e-4", error));
}

/// With one chunk (N ≤ chunk) every round sees every key: Reformer equals full softmax attention of the
/// queries over the normalised queries with each token's own key masked, for one round and for several.
void check_reformer_single_chunk(Validation& v) {
  const Shape s{2, 1, 29, 16};
  eco::AttentionInputs in = eco::synthetic_inputs(config_of(AttentionVariant::reformer, s), kSeed);
  eco::Tensor unit = in.q;
  for (std::uint64_t r = 0; r < s.batch * s.heads * s.seq; ++r) {
    double norm = 0;
    for (std::uint64_t col = 0; col < s.dim; ++col)
      norm += double{unit.data[r * s.dim + col]} * unit.data[r * s.dim + col];
    for (std::uint64_t col = 0; col < s.dim; ++col) unit.data[r * s.dim + col] /= static_cast<float>(std::sqrt(norm));
  }
  const std::vector<float> exact = eco::naive_softmax_attention(in.q, unit, in.v, true).data;
  for (std::uint64_t rounds : {1, 3}) {
    AttentionConfig c = config_of(AttentionVariant::reformer, s);
    c.hashes = rounds;
    const double error = eco::max_relative_error(run(in, c, eco::Device::cpu).result.out.data, exact);
    v.check(fmt::format("reformer one chunk, {} round(s) = full attention, own key masked", rounds), error < 1e-5,
            fmt::format("max rel error {:.2e} < 1e-5", error));
  }
}

/// MSA on fp16 inputs equals exact softmax on the rounded inputs; GPU (fp16 loads) against the CPU.
void check_msa_fp16(Validation& v, const std::string& gpu_unavailable) {
  const AttentionConfig c = config_of(AttentionVariant::msa, {1, 3, 77, 64});
  eco::AttentionInputs in = eco::synthetic_inputs(c, kSeed);
  OpCounter discard;
  const eco::RunResult cpu = eco::run_msa_fp16(in, c, eco::Device::cpu, discard);
  if (gpu_unavailable.empty()) {
    const double error =
        eco::max_relative_error(eco::run_msa_fp16(in, c, eco::Device::cuda, discard).out.data, cpu.out.data);
    v.check("gpu vs cpu msa fp16 inputs " + label(c), error <= 1e-5, fmt::format("max rel error {:.2e} ≤ 1e-5", error));
  } else {
    v.skip("gpu vs cpu msa fp16 inputs " + label(c), gpu_unavailable);
  }
  for (eco::Tensor* t : {&in.q, &in.k, &in.v})
    for (float& x : t->data) x = eco::from_half_bits(eco::to_half_bits(x));
  const double error = eco::max_relative_error(cpu.out.data, eco::naive_softmax_attention(in.q, in.k, in.v).data);
  v.check("msa fp16 = softmax of rounded inputs " + label(c), error < 1e-5,
          fmt::format("max rel error {:.2e} < 1e-5", error));
}

/// Same seed → identical output; another seed → other random parameters, another output.
void check_determinism(Validation& v) {
  for (AttentionVariant variant :
       {AttentionVariant::performer, AttentionVariant::linformer, AttentionVariant::reformer}) {
    const AttentionConfig c = config_of(variant, {1, 2, 131, 32});
    const eco::AttentionInputs in = eco::synthetic_inputs(c, kSeed);
    OpCounter discard;
    const auto a = eco::run_attention(in, c, eco::Device::cpu, 1, discard).out.data;
    const auto b = eco::run_attention(in, c, eco::Device::cpu, 1, discard).out.data;
    const auto other = eco::run_attention(in, c, eco::Device::cpu, 2, discard).out.data;
    v.check(std::string("deterministic ") + std::string(name(variant)), a == b && a != other,
            "seed 1 twice: identical; seed 2: different");
  }
}

}  // namespace

void validate_attention(Validation& v) {
  std::string gpu_unavailable;
  if (v.device() == DeviceChoice::cpu) {
    const gpu::Availability gpu = gpu::probe();
    gpu_unavailable = gpu.available ? "--device cpu" : "no GPU: " + gpu.reason;
  }
  for (AttentionVariant variant : all_attention_variants())
    if (eco::has_kernel(variant))
      for (const Shape& s : kGrid) check_variant(v, config_of(variant, s), gpu_unavailable);
  for (const Shape& s : kGrid) check_msa_properties(v, s);
  check_msa_fp16(v, gpu_unavailable);
  check_performer_convergence(v);
  check_linformer_definition(v);
  check_reformer_single_chunk(v);
  check_determinism(v);
}

}  // namespace ecosim::cli
