// Fused (FlashAttention-style) attention on the accelerator: which record groups fuse, that the fused plan
// does the same MACs with the DRAM traffic of its formula (both loop orders, worked by hand), that its tiles
// fit the buffers, that SystemC equals the closed form when compute-bound, that fusion removes the score
// matrix's DRAM traffic, and that the mapper never moves more DRAM bits than the group unfused (seeded
// shapes × buffer sizes; it falls back to the unfused ops where fusion would).
#include <catch2/catch.hpp>

#include <fmt/core.h>
#include <random>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/fused_attention.hpp"
#include "ecosim/ops_counter/attention_stages.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {

std::uint64_t walked_dram_bits(const TileRun& run) {
  std::uint64_t bits = 0;
  for (const TileWork& t : collect(run)) bits += t.load_total_bits() + t.store_bits;
  return bits;
}
std::uint64_t walked_dram_bits(const std::vector<OpPlan>& plans) {
  std::uint64_t bits = 0;
  for (const OpPlan& p : plans)
    for (const auto& run : p.runs) bits += walked_dram_bits(*run);
  return bits;
}

/// The four exact records of `groups` softmax attentions of `queries` queries over `keys` keys of width d.
std::vector<OpRecord> attention_core(std::uint64_t groups, std::uint64_t queries, std::uint64_t keys, std::uint64_t d,
                                     bool causal = false) {
  std::vector<OpRecord> ops;
  for (const stages::StageRecord& r : stages::softmax_core(groups, queries, keys, d, DType::fp32, causal))
    ops.push_back(r.exact);
  return ops;
}

/// The default configuration with the three buffers of the given bytes (their costs derived from them).
AccelConfig with_buffers(std::uint64_t weights, std::uint64_t inputs, std::uint64_t outputs) {
  return parse_config(fmt::format(R"({{"buffers": {{"weights": {{"bytes": {}}}, "inputs": {{"bytes": {}}},
                                      "outputs": {{"bytes": {}}}}}}})",
                                  weights, inputs, outputs),
                      "buffers.json");
}
}  // namespace

TEST_CASE(
    "an imported attention's mask and bias are of its group: it fuses without its scale, and says why not "
    "with a mask") {
  // An ONNX block's mask and bias records sat outside the group and split it in two (a block scaled before the
  // scores has none): --fuse-attention then planned BERT's, GPT-2's or nn.MultiheadAttention's op by op without
  // a word. A mask or bias operand is a tensor the fused mapping does not stream: such a group runs unfused, each
  // row saying so.
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fuse_attention = true;
  for (const bool scaled : {true, false})
    for (const bool masked : {false, true})
      for (const bool biased : {false, true}) {
        INFO("scaled " << scaled << ", masked " << masked << ", biased " << biased);
        const Layer block{"block", SoftmaxAttention{.batch = 2,
                                                    .heads = 3,
                                                    .queries = 40,
                                                    .keys = 40,
                                                    .head_dim = 16,
                                                    .scaled = scaled,
                                                    .masked = masked,
                                                    .biased = biased}};
        RecordingSink sink;
        emit(block, Convention::exact, sink);
        const std::size_t records = 3 + scaled + masked + biased;
        REQUIRE(sink.records.size() == records);
        CHECK(group_records(sink.records) == records);
        const auto shape = attention_group(sink.records, c);
        REQUIRE(shape);
        CHECK((shape->groups == 6 && shape->queries == 40 && shape->keys == 40 && shape->dim == 16));
        const std::vector<OpPlan> plans = plan_all(sink.records, c);
        if (!masked && !biased) {
          CHECK(score_operand_bytes(sink.records) == 0);
          REQUIRE(plans.size() == 1);
          CHECK(plans[0].mapping.starts_with("fused attention"));
          continue;
        }
        // each term's operand: a score-sized fp32 tensor
        CHECK(score_operand_bytes(sink.records) == std::uint64_t(masked + biased) * 6 * 40 * 40 * 4);
        REQUIRE(plans.size() == records);
        for (const OpPlan& p : plans)
          CHECK_THAT(p.mapping,
                     Catch::StartsWith("unfused: block.softmax_attention adds a mask or bias to its scores"));
      }
  // an elementwise op over fewer than every score is not one of the attention's
  RecordingSink sink;
  emit(Layer{"block", SoftmaxAttention{.queries = 8, .keys = 8, .head_dim = 4, .masked = true}}, Convention::exact,
       sink);
  sink.records[2].n = 4;
  CHECK_FALSE(attention_group(sink.records, c));
}

TEST_CASE("softmax-attention groups fuse — other records plan as before") {
  // Records of one fusion group (OpRecord::group) fuse into one plan named after the group.
  AccelConfig c = builtin_config("bitfusion-45nm");
  const std::vector<OpRecord> msa = attention_layer(AttentionVariant::msa, 3, 300, 32);
  const auto shape = attention_group(msa, c);
  REQUIRE(shape);
  CHECK(shape->groups == 3);
  CHECK(shape->queries == 300);
  CHECK(shape->keys == 300);
  CHECK(shape->dim == 32);
  CHECK(shape->operand_bits == 8);

  const std::vector<OpRecord> linformer = attention_layer(AttentionVariant::linformer, 1, 300, 32);
  CHECK_FALSE(attention_group(linformer, c));  // starts with the length projections
  const auto tail = attention_group(std::span(linformer).subspan(2), c);
  REQUIRE(tail);
  CHECK(tail->keys == 256);  // the projected length

  std::vector<OpRecord> broken = msa;
  broken[3].n = 16;  // context width no longer the scores' head width
  CHECK_FALSE(attention_group(broken, c));
  broken = msa;
  broken[2].group = "other.softmax_attention";  // the four records are no longer one group
  CHECK_FALSE(attention_group(broken, c));
  broken = msa;
  for (OpRecord& r : broken) r.group.clear();  // records without a group are never fused, whatever their names
  CHECK_FALSE(attention_group(broken, c));
  broken = msa;
  broken.insert(broken.begin() + 4, broken[3]);  // five records in one group: not one softmax attention
  CHECK_FALSE(attention_group(broken, c));
  CHECK(attention_group(std::span(broken).first(4), c));  // (the same four alone would be)

  c.fuse_attention = true;
  CHECK(plan_all(msa, c).size() == 1);
  CHECK(plan_all(linformer, c).size() == 3);
  // Reformer with 300 tokens in chunks of 64 (the last of 44), each attending to itself and the one before:
  // three (queries, keys) shapes — 44×108, 64×108 (after the short chunk), 64×128 — one fused group each.
  const std::vector<OpRecord> reformer = attention_layer(AttentionVariant::reformer, 1, 300, 32);
  std::size_t fused_groups = 0;
  for (const OpPlan& p : plan_all(reformer, c))
    fused_groups += p.name.find("attention.chunk_attention.") != std::string::npos;
  CHECK(fused_groups == 3);
  for (AttentionVariant v : {AttentionVariant::ecoformer, AttentionVariant::performer}) {
    const std::vector<OpRecord> ops = attention_layer(v, 1, 300, 32);
    AccelConfig unfused = c;
    unfused.fuse_attention = false;
    const auto fused_plans = plan_all(ops, c), plain = plan_all(ops, unfused);
    REQUIRE(fused_plans.size() == plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) CHECK(fused_plans[i].mapping == plain[i].mapping);
  }
}

TEST_CASE("the fused plan does the same MACs, fits the buffers and moves its formula's DRAM bits") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fuse_attention = true;
  const std::uint64_t acc = c.accumulator_bits;
  for (std::uint64_t n : {1, 77, 300, 1030}) {
    const std::vector<OpRecord> ops = attention_layer(AttentionVariant::msa, 2, n, 32);
    const AttentionShape s = *attention_group(ops, c);
    const FusedPlan fused = *plan_fused_attention(ops, c, tech());
    const FusedTiling& t = fused.tiling;
    INFO("N = " << n << ", " << t.describe());
    // K and V tiles in half the weights buffer; Q and P in half the inputs buffer; scores, output rows and
    // each row's max and sum at accumulator width in half the outputs buffer.
    CHECK(2 * t.tk * s.dim * s.operand_bits <= c.buffer(Buffer::weights).half_bits());
    CHECK(t.tq * (s.dim + t.tk) * s.operand_bits <= c.buffer(Buffer::inputs).half_bits());
    CHECK(t.tq * (t.tk + s.dim + 2) * acc <= c.buffer(Buffer::outputs).half_bits());
    const std::vector<OpPlan> plans = plan_all(ops, c);
    REQUIRE(plans.size() == 1);
    std::uint64_t macs = 0;
    for (const TileWork& w : collect(plans[0])) macs += w.macs;
    CHECK(macs == 2 * 2 * n * n * 32);
    CHECK(walked_dram_bits(plans) == t.dram_bits);
    CHECK(t.dram_bits == fused_dram_bits(s, t.order, t.tq, t.tk, c));
    // No tiling of either order whose power-of-two tiles fit moves fewer bits.
    for (FusedOrder order : {FusedOrder::queries_outer, FusedOrder::keys_outer})
      for (std::uint64_t tq = 1; tq < 2 * n; tq *= 2)
        for (std::uint64_t tk = 1; tk < 2 * n; tk *= 2)
          if (fused_tiles_fit(s, std::min(tq, n), std::min(tk, n), c))
            CHECK(t.dram_bits <= fused_dram_bits(s, order, std::min(tq, n), std::min(tk, n), c));
  }
  // The formula worked by hand, 2 groups of 300 queries and keys, d = 32 (a Q or O matrix: 300·32·8 bits):
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::msa, 2, 300, 32);
  const AttentionShape s = *attention_group(ops, c);
  const std::uint64_t q = 300 * 32 * 8, partial = 300 * 34 * acc;
  // queries outer, 5 query tiles of 64, 3 key tiles of 128: Q and O once, K and V once per query tile;
  CHECK(fused_dram_bits(s, FusedOrder::queries_outer, 64, 128, c) == 2 * (2 * q + 5 * 2 * q));
  // one key tile of 512: K and V stay on chip across the query tiles;
  CHECK(fused_dram_bits(s, FusedOrder::queries_outer, 64, 512, c) == 2 * (2 * q + 2 * q));
  // keys outer, the same tiles: K, V and O once, Q once per key tile, 2 partial row sets stored and loaded;
  CHECK(fused_dram_bits(s, FusedOrder::keys_outer, 64, 128, c) == 2 * (3 * q + q + 2 * q + 2 * 2 * partial));
  // one query tile of 512: Q and the output rows stay on chip across the key tiles.
  CHECK(fused_dram_bits(s, FusedOrder::keys_outer, 512, 128, c) == 2 * (2 * q + 2 * q));
  for (FusedOrder order : {FusedOrder::queries_outer, FusedOrder::keys_outer})
    for (auto [tq, tk] : {std::pair<std::uint64_t, std::uint64_t>{64, 128}, {64, 512}, {512, 128}, {7, 300}}) {
      INFO("order " << int(order) << ", " << tq << " × " << tk);
      const auto run = fused_attention_tiles(s, FusedTiling{order, std::min<std::uint64_t>(tq, 300), tk}, {}, c);
      CHECK(walked_dram_bits(*run) == fused_dram_bits(s, order, std::min<std::uint64_t>(tq, 300), tk, c));
    }
}

TEST_CASE("a fused tile loads and stores boxes of its tensors: partial rows stored once per key tile but the last") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const AttentionShape s{2, 300, 200, 32, 8};
  const FusedTiling t{FusedOrder::keys_outer, 64, 64};  // 5 query tiles × 4 key tiles
  const auto run = fused_attention_tiles(s, t, {}, c);
  const std::vector<TensorShape> tensors = run->tensors();
  std::vector<std::uint64_t> stored(tensors.size()), loaded(tensors.size());
  for (const TileWork& tile : collect(*run)) {
    const TileBoxes b = run->boxes(tile);
    auto elements = [&](const TensorBox& box) {
      const TensorShape& shape = tensors.at(box.tensor);
      std::uint64_t e = 1;
      for (std::size_t d = 0; d < 4; ++d) {
        CHECK(box.start[d] + box.extent[d] <= shape.dims[d]);
        e *= box.extent[d];
      }
      return e;
    };
    for (std::size_t buffer = 0; buffer < kBufferCount; ++buffer) {
      if (!tile.load_bits[buffer]) continue;
      REQUIRE(b.load[buffer].tensor != TensorBox::kNone);
      CHECK(elements(b.load[buffer]) * tensors[b.load[buffer].tensor].element_bits == tile.load_bits[buffer]);
      loaded[b.load[buffer].tensor] += elements(b.load[buffer]);
    }
    if (tile.store_bits) {
      CHECK(elements(b.store) * tensors[b.store.tensor].element_bits == tile.store_bits);
      stored[b.store.tensor] += elements(b.store);
    }
  }
  const std::uint64_t rows = 2 * 300;                  // query rows of both groups
  CHECK(stored.back() == rows * 32);                   // O, once
  CHECK(stored[tensors.size() - 2] == 3 * rows * 34);  // partial rows (d + 2) after 3 of the 4 key tiles
  CHECK(loaded[tensors.size() - 2] == 3 * rows * 34);  // and back before the next
  CHECK(loaded[0] == 4 * rows * 32);                   // Q once per key tile
  CHECK(loaded[1] == 2 * 200 * 32);                    // K once
  CHECK(loaded[2] == 2 * 200 * 32);                    // V once
}

TEST_CASE("fusion keeps the score matrix off DRAM and SystemC still equals the closed form when compute-bound") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::msa, 2, 1024, 32);
  const ReplayResult unfused = replay_cf(ops, c);
  c.fuse_attention = true;
  const ReplayResult fused = replay_cf(ops, c);
  // The unfused scores alone are written and read back at least once: 2·N² operands per group.
  CHECK(unfused.total.energy.dram_pj - fused.total.energy.dram_pj >= 2.0 * 2 * 1024 * 1024 * 8 * c.dram_pj_per_bit);
  CHECK(fused.total.energy.total_pj() < unfused.total.energy.total_pj());
  CHECK(fused.total.macs == unfused.total.macs);

  c.dram_bits_per_cycle = 1 << 16;  // wide enough that every tile is compute-bound (checked, not assumed)
  const std::vector<OpPlan> wide = plan_all(ops, c);
  REQUIRE(compute_bound(wide[0], c));
  CHECK(replay_sc(ops, c).total.cycles == replay_cf(ops, c).total.cycles);
}

TEST_CASE(
    "the fused mapper never moves more DRAM bits nor costs more energy than the group unfused, over shapes and buffer "
    "sizes") {
  std::mt19937_64 rng(18);
  const std::uint64_t kib[] = {4, 8, 16, 32, 64, 128};
  auto log_uniform = [&](unsigned max_log2) {
    const std::uint64_t low = std::uint64_t{1} << std::uniform_int_distribution<unsigned>(0, max_log2)(rng);
    return std::uniform_int_distribution<std::uint64_t>(low, 2 * low - 1)(rng);
  };
  std::size_t fused = 0, fallen_back = 0, dram_dominated = 0, causal_fused = 0;
  for (int i = 0; i < 90; ++i) {
    const bool causal = i >= 60;  // 30 causal shapes after the 60 bidirectional ones
    const std::uint64_t groups = 1 + rng() % 12, queries = log_uniform(12), d = std::uint64_t{8} << rng() % 6;
    std::uint64_t keys = rng() % 3 == 0 ? queries : log_uniform(12);  // Nq ≠ Nk two times in three
    if (causal) keys = std::max(keys, queries);                       // causal: keys ≥ queries
    AccelConfig c = with_buffers(1024 * kib[rng() % 6], 1024 * kib[rng() % 6], 1024 * kib[rng() % 6]);
    INFO("G " << groups << ", " << queries << " queries × " << keys << " keys" << (causal ? " causal" : "") << ", d "
              << d << ", buffers " << c.buffer(Buffer::weights).bytes << "/" << c.buffer(Buffer::inputs).bytes << "/"
              << c.buffer(Buffer::outputs).bytes << " B");
    const std::vector<OpRecord> ops = attention_core(groups, queries, keys, d, causal);
    const ReplayResult unfused = replay_cf(ops, c);
    c.fuse_attention = true;
    const std::vector<OpPlan> plans = plan_all(ops, c);
    const ReplayResult with_fusion = replay_cf(ops, c);
    CHECK(with_fusion.total.dram_bits <= unfused.total.dram_bits);
    // fused: the attended pairs' MACs (the records' multiplications); unfused GEMMs compute whole rectangles
    CHECK(with_fusion.total.macs ==
          (plans.size() == 1 ? 2 * groups * attended_pairs(queries, keys, causal) * d : unfused.total.macs));
    CHECK(with_fusion.total.macs <= unfused.total.macs);
    causal_fused += causal && plans.size() == 1;
    if (plans.size() == 1) {
      ++fused;
      // A fused group never costs more energy than its ops unfused (PlanSource falls back on energy too).
      CHECK(with_fusion.total.energy.total_pj() <= unfused.total.energy.total_pj());
      dram_dominated += unfused.total.energy.dram_pj > 0.5 * unfused.total.energy.total_pj();
    } else {  // fallen back: the four ops unfused, each saying so, costing what they cost unfused
      ++fallen_back;
      REQUIRE(plans.size() == 4);
      for (const OpPlan& p : plans) CHECK(p.mapping.starts_with("unfused: fusing softmax_attention would "));
      CHECK(with_fusion.total.cycles == unfused.total.cycles);
      CHECK(with_fusion.total.energy.total_pj() == unfused.total.energy.total_pj());
    }
  }
  INFO(fused << " fused (" << dram_dominated << " DRAM-dominated, " << causal_fused << " causal), " << fallen_back
             << " fallen back");
  CHECK(fused >= 45);
  CHECK(causal_fused >= 15);
  CHECK(dram_dominated >= 10);
}

TEST_CASE("a group whose fused schedule moves more DRAM bits than its ops runs unfused") {
  // One attention of 64 queries and keys with heads of 1,024: half the outputs buffer holds one query row's
  // output and max/sum at accumulator width with few scores, so fusion re-reads K and V per query (queries
  // outer) or spills 32-bit partial rows per key tile (keys outer) — more than the small unfused score matrix.
  AccelConfig c = builtin_config("bitfusion-45nm");
  const std::vector<OpRecord> ops = attention_core(1, 64, 64, 1024);
  const std::vector<OpPlan> unfused = plan_all(ops, c);
  c.fuse_attention = true;
  const FusedPlan would = *plan_fused_attention(ops, c, tech());
  CHECK(would.tiling.dram_bits > walked_dram_bits(unfused));
  const std::vector<OpPlan> plans = plan_all(ops, c);
  REQUIRE(plans.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(plans[i].name == unfused[i].name);
    CHECK(plans[i].mapping == fmt::format("unfused: fusing softmax_attention would move {} DRAM bits ({}), more "
                                          "than these 4 ops' {}; {}",
                                          would.tiling.dram_bits, would.tiling.describe(), walked_dram_bits(unfused),
                                          unfused[i].mapping));
  }
  CHECK(walked_dram_bits(plans) == walked_dram_bits(unfused));
}

TEST_CASE("issue 18: 12 heads of 64 over 8,192 tokens cost less fused than unfused on the default buffers") {
  // Before, the 16 KB outputs buffer forced 16 queries × 64 keys per tile: K and V were re-read 512 times and
  // fusion cost 1.04e12 pJ (DRAM 7.75e11) against 1.00e12 unfused (DRAM 6.85e11).
  AccelConfig c = builtin_config("bitfusion-45nm");
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::msa, 12, 8192, 64);  // batch·heads = 12
  const ReplayResult unfused = replay_cf(ops, c);
  c.fuse_attention = true;
  REQUIRE(plan_all(ops, c).size() == 1);
  const ReplayResult fused = replay_cf(ops, c);
  INFO("fused " << fused.total.energy.total_pj() << " pJ (DRAM " << fused.total.energy.dram_pj << "), unfused "
                << unfused.total.energy.total_pj() << " pJ (DRAM " << unfused.total.energy.dram_pj << ")");
  CHECK(fused.total.dram_bits < unfused.total.dram_bits);
  CHECK(fused.total.energy.total_pj() < unfused.total.energy.total_pj());
  CHECK(fused.total.cycles < unfused.total.cycles);
}

TEST_CASE("issue 18: the whole GPT-2 small at 32,768 tokens costs less fused than unfused") {
  // Before: 280 J fused against 274 J unfused (and 44 s for the fused closed form, walked tile by tile).
  // GPT-2 small with 32,768 learned positions (its own 1,024 stop a longer sequence)
  const ModelZoo zoo = ModelZoo::parse(R"({"gpt2_32k": {"extends": "gpt2_small", "seq_len": 32768}})", "t")
                           .overlaying(ModelZoo::builtin());
  RecordingSink sink;
  for (const Layer& layer : zoo.build("gpt2_32k", ModelOptions{})) emit(layer, Convention::exact, sink);
  AccelConfig c = builtin_config("bitfusion-45nm");
  const ReplayResult unfused = replay_cf(sink.records, c);
  c.fuse_attention = true;
  const ReplayResult fused = replay_cf(sink.records, c);
  INFO("fused " << fused.total.energy.total_pj() << " pJ, unfused " << unfused.total.energy.total_pj() << " pJ");
  CHECK(fused.total.dram_bits < unfused.total.dram_bits);
  CHECK(fused.total.energy.total_pj() < unfused.total.energy.total_pj());
  // GPT-2 is causal: fused, only the attended pairs, N(N+1)/2 per head; unfused, each layer's scores and context
  // GEMMs compute strips of H ≤ N / kMaxCausalStrips + one query tile (at most 512) rows over the keys they attend
  // to, so at most N·H/2 products more per head, far fewer than the masked half of the rectangle
  const std::uint64_t n = 32768, masked_per_head = n * n - attended_pairs(n, n, true);
  const std::uint64_t strip_rows = n / kMaxCausalStrips + 512, per_gemm = 12 * 12 * 64;  // layers × heads × D
  CHECK(fused.total.macs < unfused.total.macs);
  CHECK(unfused.total.macs - fused.total.macs <= 2 * per_gemm * (n * strip_rows / 2));
  CHECK(unfused.total.macs - fused.total.macs < 2 * per_gemm * masked_per_head / 10);
}

TEST_CASE("mapping.fuse_attention is a boolean in the configuration file") {
  CHECK(parse_config(R"({"mapping": {"fuse_attention": true}})", "f.json").fuse_attention);
  CHECK_FALSE(builtin_config("bitfusion-45nm").fuse_attention);
  CHECK_THROWS_WITH(parse_config(R"({"mapping": {"fuse_attention": "yes"}})", "f.json"),
                    Catch::Contains("mapping.fuse_attention: must be true or false"));
}
