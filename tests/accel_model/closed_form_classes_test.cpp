// The closed form costed class by class (TileRun::visit_classes) equals the closed form walked tile by tile
// exactly — cycles, every counter and every energy component — on seeded random GEMMs (every loop order and
// many tilings), conv layers, vector streams, fused attention tilings of both orders, causal or not (costed
// stretch by stretch), every attention variant's default layer and every zoo model.
#include <catch2/catch.hpp>

#include <random>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/conv_tiling.hpp"
#include "ecosim/accel_model/fused_attention.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/primitives.hpp"

using namespace ecosim;
using namespace ecosim::test;

namespace {

/// Both closed forms of one op, field by field.
void check_classes_equal_walk(const OpPlan& plan, const AccelConfig& c) {
  const OpRow by_class = closed_form_row(plan, c), walked = closed_form_row(plan, c, false, ClosedForm::tile_by_tile);
  INFO(plan.name << ": " << plan.mapping << ", " << walked.tiles << " tiles");
  CHECK(by_class.cycles == walked.cycles);
  CHECK(by_class.tiles == walked.tiles);
  CHECK(by_class.macs == walked.macs);
  CHECK(by_class.array_cycles == walked.array_cycles);
  CHECK(by_class.vector_cycles == walked.vector_cycles);
  CHECK(by_class.dram_cycles == walked.dram_cycles);
  CHECK(by_class.dram_bits == walked.dram_bits);
  CHECK(by_class.sram_read_bits == walked.sram_read_bits);
  CHECK(by_class.sram_write_bits == walked.sram_write_bits);
  CHECK(by_class.energy.array_pj == walked.energy.array_pj);
  CHECK(by_class.energy.vector_pj == walked.energy.vector_pj);
  CHECK(by_class.energy.dram_pj == walked.energy.dram_pj);
  CHECK(by_class.energy.sram_pj == walked.energy.sram_pj);
  CHECK(by_class.energy.leakage_pj == walked.energy.leakage_pj);
}

void check_records(const std::vector<OpRecord>& ops, const AccelConfig& c) {
  for (const OpPlan& plan : plan_all(ops, c)) check_classes_equal_walk(plan, c);
}

/// The built-in configuration, and one with a slow, high-latency DRAM (memory-bound tiles).
std::vector<AccelConfig> configs() { return {builtin_or_slow_dram(false), builtin_or_slow_dram(true)}; }

std::uint64_t log_uniform(std::mt19937_64& rng, unsigned max_log2) {
  const std::uint64_t low = std::uint64_t{1} << std::uniform_int_distribution<unsigned>(0, max_log2 - 1)(rng);
  return std::uniform_int_distribution<std::uint64_t>(low, 2 * low)(rng);
}

}  // namespace

TEST_CASE("class-costed closed form equals the tile walk on GEMM tilings of every loop order") {
  std::mt19937_64 rng(13);
  const unsigned bits[] = {2, 4, 8, 16};
  const std::array<char, 3> orders[] = {{'m', 'n', 'k'}, {'m', 'k', 'n'}, {'n', 'm', 'k'},
                                        {'n', 'k', 'm'}, {'k', 'm', 'n'}, {'k', 'n', 'm'}};
  for (const AccelConfig& c : configs()) {
    for (int i = 0; i < 40; ++i) {
      const GemmShape s{log_uniform(rng, 3), log_uniform(rng, 9), log_uniform(rng, 9),
                        log_uniform(rng, 9), bits[rng() % 4],     bits[rng() % 4]};
      // the chosen tiling, and a random one of every loop order (any tile sizes walk; fit is the search's)
      check_classes_equal_walk({"chosen", OpClass::gemm, "", {gemm_tiles(s, choose_tiling(s, c), c)}}, c);
      const std::uint64_t tm = 1 + rng() % s.m, tn = 1 + rng() % s.n, tk = 1 + rng() % s.k;
      for (const auto& order : orders)
        check_classes_equal_walk(
            {"random", OpClass::gemm, "", {gemm_tiles(s, evaluate_tiling(s, tm, tn, tk, order, c), c)}}, c);
    }
  }
}

TEST_CASE("class-costed closed form equals the tile walk on conv layers with clipped halos") {
  std::mt19937_64 rng(14);
  for (const AccelConfig& c : configs()) {
    for (int i = 0; i < 30; ++i) {
      const std::uint64_t kernel = 1 + 2 * (rng() % 4), stride = 1 + rng() % std::min<std::uint64_t>(kernel, 4);
      const std::uint64_t channels = log_uniform(rng, 7), side = kernel + rng() % 40;
      const bool depthwise = rng() % 4 == 0;
      const ConvShape s{.batch = 1 + rng() % 2,
                        .in_channels = channels,
                        .in_h = side,
                        .in_w = side + rng() % 5,
                        .out_channels = depthwise ? channels : log_uniform(rng, 7),
                        .kernel_h = kernel,
                        .kernel_w = kernel,
                        .stride = stride,
                        .padding = rng() % (kernel / 2 + 2),
                        .groups = depthwise ? channels : 1};
      INFO("conv " << s.in_channels << "→" << s.out_channels << " " << s.in_h << "×" << s.in_w << " k" << kernel << " s"
                   << stride << " p" << s.padding << " g" << s.groups);
      check_records({ops::conv("conv", s, true, DType::int8)}, c);
      // a random tiling of either loop order: small tiles, many halo classes
      const ConvTiling t = evaluate_conv_tiling(s, 8, 4, 1 + rng() % s.out_h(), 1 + rng() % s.out_w(),
                                                1 + rng() % s.group_out_channels(), 1 + rng() % s.group_in_channels(),
                                                rng() % 2 == 0, c);
      check_classes_equal_walk({"conv", OpClass::conv, t.describe(), {conv_tiles(s, 8, 4, t, c)}}, c);
    }
  }
}

TEST_CASE(
    "stretch-costed fused attention equals the tile walk on tilings of both orders, causal (grouped too) or not, "
    "overlap on and off") {
  std::mt19937_64 rng(15);
  for (AccelConfig c : configs()) {
    for (const bool overlap : {true, false}) {
      c.overlap_units = overlap;
      for (int i = 0; i < 24; ++i) {
        const AttentionShape s{1 + rng() % 4, log_uniform(rng, 8), log_uniform(rng, 8), std::uint64_t{8} << rng() % 4,
                               unsigned(rng() % 2 ? 8 : 4)};
        const FusedTiling t{rng() % 2 ? FusedOrder::queries_outer : FusedOrder::keys_outer, 1 + rng() % s.queries,
                            1 + rng() % s.keys};
        // softmax cycles that split unevenly over the triples: the first ones take a cycle more
        const VectorWork vector{rng() % (40 * s.groups * s.queries * s.keys + 1), 1e3};
        check_classes_equal_walk({"fused", OpClass::gemm, t.describe(), {fused_attention_tiles(s, t, vector, c)}}, c);
        // causal: at least as many keys as queries, tiles visited up to the diagonal, diagonal tiles apart
        AttentionShape causal = s;
        causal.causal = true;
        causal.keys = s.queries + (rng() % 3 == 0 ? 0 : rng() % s.keys);
        causal.heads = 1 + rng() % 3;  // grouped-query: query heads sharing each group's K and V
        const FusedTiling ct{rng() % 2 ? FusedOrder::queries_outer : FusedOrder::keys_outer,
                             1 + rng() % causal.query_rows(), 1 + rng() % causal.keys};
        const VectorWork causal_vector{rng() % (20 * causal.groups * causal.queries * causal.keys + 1), 1e3};
        check_classes_equal_walk(
            {"causal", OpClass::gemm, ct.describe(), {fused_attention_tiles(causal, ct, causal_vector, c)}}, c);
      }
      // grouped, tiles of fewer rows than a position's heads: several query tiles end at one key tile although they
      // attend it whole (keys outer), and rows of one position span query tiles (queries outer)
      const AttentionShape grouped{
          .groups = 2, .queries = 40, .keys = 45, .dim = 16, .operand_bits = 8, .causal = true, .heads = 4};
      for (const FusedOrder order : {FusedOrder::queries_outer, FusedOrder::keys_outer})
        for (const std::uint64_t tq : {1, 3, 4, 6}) {
          const FusedTiling gt{order, tq, 8};
          check_classes_equal_walk(
              {"grouped", OpClass::gemm, gt.describe(), {fused_attention_tiles(grouped, gt, {1234, 1e3}, c)}}, c);
        }
    }
  }
}

TEST_CASE("class-costed closed form equals the tile walk on every default layer and every zoo model") {
  for (const AccelConfig& base : configs()) {
    for (const bool fused : {false, true}) {
      AccelConfig c = base;
      c.fuse_attention = fused;
      for (AttentionVariant v : {AttentionVariant::msa, AttentionVariant::performer, AttentionVariant::linformer,
                                 AttentionVariant::reformer, AttentionVariant::ecoformer})
        check_records(attention_layer(v), c);
    }
  }
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const ModelZoo zoo = ModelZoo::builtin();
  for (const std::string& model : zoo.names()) {
    INFO(model);
    // A decoder LLM is walked over a short prefill (its own context, up to 128k tokens of a 70 B model, would be
    // minutes of tiles): its layer kinds and shapes are what the walk checks, not their length.
    ModelOptions options;
    if (zoo.decoder_facts(model, options)) options.seq_len = 16;
    RecordingSink sink;
    for (const Layer& layer : zoo.build(model, options)) emit(layer, Convention::exact, sink);
    check_records(sink.records, c);
  }
}
