// Fused (FlashAttention-style) softmax attention on the accelerator: group detection, tile choice and the
// tile sequence (see fused_attention.hpp).
#include "ecosim/accel_model/fused_attention.hpp"

#include <algorithm>
#include <array>
#include <fmt/core.h>
#include <string_view>

#include "ecosim/accel_model/tiling.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::accel {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

/// A record name as prefix, part and shape suffix: "stage1.block0.attn.scores" → ("stage1.block0.attn.",
/// "scores", ""); Reformer's "attention.chunk_scores.1" → ("attention.", "scores", ".1") (its chunk parts
/// carry a "chunk_" stem and, with several chunk shapes, a numeric suffix).
struct NameParts {
  std::string_view prefix, part, suffix;
  bool chunk = false;
};
NameParts split_name(std::string_view name) {
  NameParts p;
  std::size_t dot = name.rfind('.');
  if (dot != std::string_view::npos && dot + 1 < name.size() &&
      name.find_first_not_of("0123456789", dot + 1) == std::string_view::npos) {
    p.suffix = name.substr(dot);
    name = name.substr(0, dot);
    dot = name.rfind('.');
  }
  p.prefix = dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot + 1);
  p.part = dot == std::string_view::npos ? name : name.substr(dot + 1);
  p.chunk = p.part.starts_with("chunk_");
  if (p.chunk) p.part.remove_prefix(6);
  return p;
}

/// Extra vector-unit work of the running softmax: for every query row and every key tile after the first,
/// the old maximum's correction factor (1 subtraction, 1 exp) and the rescaled sum and output row (d + 1
/// multiplications). The trace's own softmax operations are done as well.
OpCounts online_softmax_overhead(const AttentionShape& s, std::uint64_t tk) {
  const std::uint64_t rows = checked_mul(s.groups, s.queries), extra_tiles = ceil_div(s.keys, tk) - 1;
  const std::uint64_t updates = checked_mul(rows, extra_tiles);
  OpCounts c;
  c.add(OpKind::add, DType::fp32, updates);
  c.add(OpKind::exp, DType::fp32, updates);
  c.add(OpKind::mul, DType::fp32, checked_mul(updates, s.dim + 1));
  return c;
}

/// DRAM bits of a tiling: Q read and O written once, K and V read once per query tile.
std::uint64_t fused_dram_bits(const AttentionShape& s, std::uint64_t tq) {
  const std::uint64_t q_or_o = checked_product({s.groups, s.queries, s.dim, s.operand_bits});
  const std::uint64_t k_and_v = checked_product({2, s.groups, s.keys, s.dim, s.operand_bits});
  return checked_add(checked_mul(2, q_or_o), checked_mul(ceil_div(s.queries, tq), k_and_v));
}

std::vector<std::uint64_t> powers_of_two_up_to(std::uint64_t n) {
  std::vector<std::uint64_t> v;
  for (std::uint64_t t = 1;; t *= 2) {
    v.push_back(std::min(t, n));
    if (t >= n) return v;
  }
}

}  // namespace

std::optional<AttentionShape> attention_group(std::span<const OpRecord> ops, const AccelConfig& config) {
  if (ops.size() < 4) return std::nullopt;
  constexpr std::array<std::string_view, 4> parts = {"scores", "scale", "softmax", "context"};
  constexpr std::array<OpClass, 4> kinds = {OpClass::gemm, OpClass::eltwise, OpClass::reduce, OpClass::gemm};
  const NameParts first = split_name(ops[0].name);
  for (std::size_t i = 0; i < 4; ++i) {
    const NameParts p = split_name(ops[i].name);
    if (p.prefix != first.prefix || p.suffix != first.suffix || p.chunk != first.chunk || p.part != parts[i] ||
        ops[i].kind != kinds[i])
      return std::nullopt;
  }
  const OpRecord &scores = ops[0], &scale = ops[1], &softmax = ops[2], &context = ops[3];
  const AttentionShape s{scores.batch, scores.m, scores.n, scores.k, operand_bits(scores.a_dtype, config)};
  const bool consistent = context.batch == s.groups && context.m == s.queries && context.n == s.dim &&
                          context.k == s.keys && scale.batch * scale.m * scale.n == s.groups * s.queries * s.keys &&
                          softmax.batch * softmax.m == s.groups * s.queries && softmax.n == s.keys &&
                          operand_bits(scores.b_dtype, config) == s.operand_bits &&
                          operand_bits(context.a_dtype, config) == s.operand_bits &&
                          operand_bits(context.b_dtype, config) == s.operand_bits;
  return consistent ? std::optional(s) : std::nullopt;
}

std::optional<FusedTiling> choose_fused_tiling(const AttentionShape& s, const AccelConfig& c) {
  const std::uint64_t half_w = c.buffer(Buffer::weights).half_bits(), half_in = c.buffer(Buffer::inputs).half_bits(),
                      half_out = c.buffer(Buffer::outputs).half_bits();
  const Fusion f = fusion(s.operand_bits, s.operand_bits);
  std::optional<FusedTiling> best;
  for (std::uint64_t tk : powers_of_two_up_to(s.keys)) {
    if (2 * tk * s.dim * s.operand_bits > half_w) break;
    for (std::uint64_t tq : powers_of_two_up_to(s.queries)) {
      if (tq * (s.dim + tk) * s.operand_bits > half_in || tq * (tk + s.dim) * c.accumulator_bits > half_out) break;
      // Array cycles of full tiles scaled to the whole problem (edge tiles are close enough to rank).
      const std::uint64_t tiles = checked_product({s.groups, ceil_div(s.queries, tq), ceil_div(s.keys, tk)});
      const std::uint64_t array = checked_mul(tiles, tile_cycles(tq, tk, s.dim, f, c) + tile_cycles(tq, s.dim, tk, f, c));
      const std::uint64_t dram = fused_dram_bits(s, tq);
      FusedTiling t{tq, tk, dram, std::max(array, ceil_div(dram, c.dram_bits_per_cycle))};
      if (!best || t.estimated_cycles < best->estimated_cycles ||
          (t.estimated_cycles == best->estimated_cycles && tq * tk > best->tq * best->tk))
        best = t;
    }
  }
  return best;
}

std::optional<OpPlan> plan_fused_attention(std::span<const OpRecord> ops, const AccelConfig& c, const TechTable& tech) {
  const std::optional<AttentionShape> shape = attention_group(ops, c);
  if (!shape) return std::nullopt;
  const AttentionShape& s = *shape;
  const std::optional<FusedTiling> tiling = choose_fused_tiling(s, c);
  if (!tiling) return std::nullopt;
  const std::uint64_t tq_full = tiling->tq, tk_full = tiling->tk, a = s.operand_bits, acc = c.accumulator_bits;
  const std::uint64_t q_trips = ceil_div(s.queries, tq_full), k_trips = ceil_div(s.keys, tk_full);
  const Fusion f = fusion(s.operand_bits, s.operand_bits);
  const std::uint64_t kdiv = c.rows * f.spatial;

  OpCounts softmax_work = ops[1].counts;
  softmax_work += ops[2].counts;
  softmax_work += online_softmax_overhead(s, tk_full);
  const VectorWork vector = vector_work(softmax_work, 0, c, tech);
  const std::uint64_t vector_tiles = checked_product({s.groups, q_trips, k_trips});

  OpPlan plan;
  const NameParts name = split_name(ops[0].name);
  plan.name = std::string(name.prefix) + (name.chunk ? "chunk_" : "") + "fused_attention" + std::string(name.suffix);
  plan.kind = OpClass::gemm;
  plan.mapping = fmt::format("fused attention: {} queries × {} keys per tile, scores on chip; array {}-bit (pf {})",
                             tq_full, tk_full, a, f.spatial);
  plan.tiles.reserve(3 * vector_tiles);
  std::uint64_t vector_index = 0;
  for (std::uint64_t g = 0; g < s.groups; ++g)
    for (std::uint64_t qi = 0; qi < q_trips; ++qi) {
      const std::uint64_t tq = std::min(tq_full, s.queries - qi * tq_full);
      for (std::uint64_t ki = 0; ki < k_trips; ++ki, ++vector_index) {
        const std::uint64_t tk = std::min(tk_full, s.keys - ki * tk_full);
        TileWork scores;  // S = Q·Kᵀ into the outputs buffer
        scores.compute_cycles = tile_cycles(tq, tk, s.dim, f, c);
        scores.macs = tq * tk * s.dim;
        if (ki == 0) scores.load_bits[std::size_t(Buffer::inputs)] = tq * s.dim * a;
        scores.load_bits[std::size_t(Buffer::weights)] = tk * s.dim * a;
        scores.unit_read_bits[std::size_t(Buffer::weights)] = tk * s.dim * a;
        scores.unit_read_bits[std::size_t(Buffer::inputs)] = tq * s.dim * a * ceil_div(tk, c.cols);
        scores.unit_write_bits[std::size_t(Buffer::outputs)] = tq * tk * acc * ceil_div(s.dim * f.passes, kdiv);
        scores.unit_read_bits[std::size_t(Buffer::outputs)] = scores.unit_write_bits[std::size_t(Buffer::outputs)];

        TileWork softmax;  // scale, running max/sum, P (operand width) into the inputs buffer
        softmax.unit = Unit::vector;
        softmax.compute_cycles = vector.cycles / vector_tiles + (vector_index < vector.cycles % vector_tiles ? 1 : 0);
        softmax.vector_pj = vector.pj / double(vector_tiles);
        softmax.unit_read_bits[std::size_t(Buffer::outputs)] = tq * tk * acc;
        softmax.unit_write_bits[std::size_t(Buffer::inputs)] = tq * tk * a;

        TileWork context;  // O += P·V, O resident in the outputs buffer until the last key tile
        context.compute_cycles = tile_cycles(tq, s.dim, tk, f, c);
        context.macs = tq * s.dim * tk;
        context.load_bits[std::size_t(Buffer::weights)] = tk * s.dim * a;
        context.unit_read_bits[std::size_t(Buffer::weights)] = tk * s.dim * a;
        context.unit_read_bits[std::size_t(Buffer::inputs)] = tq * tk * a * ceil_div(s.dim, c.cols);
        context.unit_write_bits[std::size_t(Buffer::outputs)] = tq * s.dim * acc * ceil_div(tk * f.passes, kdiv);
        context.unit_read_bits[std::size_t(Buffer::outputs)] = context.unit_write_bits[std::size_t(Buffer::outputs)];
        if (ki + 1 == k_trips) context.store_bits = tq * s.dim * a;
        plan.tiles.insert(plan.tiles.end(), {scores, softmax, context});
      }
    }
  return plan;
}

}  // namespace ecosim::accel
