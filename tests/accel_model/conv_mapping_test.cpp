// The direct convolution mapping: DRAM bits of hand-computed layers (3×3 stride 1 pad 1, a 7×7 stride 4
// patch embedding, depthwise 3×3, 1×1) equal the formulas of conv_tiling.hpp worked by hand; the tile walk
// agrees with the closed form; a 3×3 layer moves far less DRAM traffic than its im2col GEMM; SystemC equals
// the closed form on conv layers; the whole PVTv2-B0 replays with its convolutions mapped directly.
#include <catch2/catch.hpp>

#include <string>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/conv_tiling.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/primitives.hpp"

using namespace ecosim;
using namespace ecosim::test;

namespace {

const AccelConfig& config() {
  static const AccelConfig c = builtin_config("bitfusion-45nm");
  return c;
}

struct WalkedBits {
  std::uint64_t loads = 0, stores = 0, macs = 0, tiles = 0;
};
WalkedBits walk(const TileRun& run) {
  WalkedBits w;
  for (const TileWork& t : collect(run)) {
    w.loads += t.load_total_bits();
    w.stores += t.store_bits;
    w.macs += t.macs;
    ++w.tiles;
  }
  return w;
}

/// The layer's DRAM bits with an explicit tiling, checked three ways: the hand value, the closed form, the walk.
void check_dram_bits(const ConvShape& s, std::uint64_t th, std::uint64_t tw, std::uint64_t tk, std::uint64_t tc,
                     std::uint64_t hand_load_bits, std::uint64_t hand_store_bits) {
  const ConvTiling t = evaluate_conv_tiling(s, 8, 8, th, tw, tk, tc, true, config());
  const WalkedBits w = walk(*conv_tiles(s, 8, 8, t, config()));
  CHECK(w.loads == hand_load_bits);
  CHECK(w.stores == hand_store_bits);
  CHECK(t.dram_bits == hand_load_bits + hand_store_bits);
  CHECK(w.macs == s.batch * s.m() * s.n() * s.k());
}

OpRecord conv_record(const ConvShape& s) { return ops::conv("conv", s, true, DType::int8); }
/// The layer as the im2col GEMM it was mapped as before: (N·out_h·out_w) × K outputs over C·R·S.
OpRecord im2col_record(const ConvShape& s) {
  return ops::gemm(
      "im2col", {.m = s.batch * s.m(), .n = s.n(), .k = s.k(), .a = DType::int8, .b = DType::int8, .out = DType::int8});
}

/// A layer of `batch` square images: C → K channels, side × side, a square kernel.
ConvShape square(std::uint64_t batch, std::uint64_t c, std::uint64_t side, std::uint64_t k, std::uint64_t kernel,
                 std::uint64_t stride, std::uint64_t padding, std::uint64_t groups = 1) {
  return {.batch = batch,
          .in_channels = c,
          .in_h = side,
          .in_w = side,
          .out_channels = k,
          .kernel_h = kernel,
          .kernel_w = kernel,
          .stride = stride,
          .padding = padding,
          .groups = groups};
}

const ConvShape k3x3 = square(1, 64, 56, 64, 3, 1, 1);            // 3×3 stride 1 pad 1
const ConvShape kPatchEmbed = square(1, 3, 224, 32, 7, 4, 3);     // PVTv2's first patch embedding
const ConvShape kDepthwise = square(1, 64, 28, 64, 3, 1, 1, 64);  // depthwise 3×3
const ConvShape k1x1 = square(2, 64, 14, 128, 1, 1, 0);           // 1×1 over two images

}  // namespace

TEST_CASE("3x3 stride 1 pad 1 conv: DRAM bits equal the hand formula") {
  // C = K = 64, 56×56, tiles of 4 output rows × 56 columns × 8 output × 32 input channels.
  const ConvShape& s = k3x3;
  // Input rows per 4-row output tile: 5 (first, clipped above), 6 × 12, 5 (last) = 82; columns: 56 (clipped).
  // Inputs are fetched once per output-channel tile (64/8 = 8); weights per spatial tile (14 row tiles), since
  // the 64 input channels take 2 tiles; outputs once.
  const std::uint64_t inputs = 8 * 64 * 82 * 56 * 8, weights = 14 * 64 * 64 * 9 * 8, outputs = 64 * 56 * 56 * 8;
  check_dram_bits(s, 4, 56, 8, 32, inputs + weights, outputs);
}

TEST_CASE("7x7 stride 4 patch embedding: DRAM bits equal the hand formula") {
  // PVTv2's first patch embedding: 3 → 32 channels, 224×224 → 56×56, padding 3; tiles 8×8 px × 32 × 3.
  const ConvShape& s = kPatchEmbed;
  // Output rows 8i..8i+7 read input rows 32i−3 .. 32i+31: 32 for i = 0 (clipped), 35 for i = 1..6 → 242 (the
  // same for columns); one output-channel tile, so the input is fetched once (with its 3-row halos).
  const std::uint64_t inputs = 3 * 242 * 242 * 8, weights = 32 * 3 * 49 * 8, outputs = 32 * 56 * 56 * 8;
  check_dram_bits(s, 8, 8, 32, 3, inputs + weights, outputs);
}

TEST_CASE("depthwise 3x3 conv: every channel read once, no duplication") {
  const ConvShape& s = kDepthwise;
  // One tile per channel (group): its 28×28 input, 9 weights and 28×28 outputs.
  check_dram_bits(s, 28, 28, 1, 1, 64 * (28 * 28 * 8 + 9 * 8), 64 * 28 * 28 * 8);
}

TEST_CASE("1x1 conv over two images: DRAM bits equal the hand formula") {
  const ConvShape& s = k1x1;
  // 16 output-channel tiles of 8, each re-reading both images' 64×14×14 inputs; weights resident (tc = C).
  const std::uint64_t inputs = 16 * 2 * 64 * 196 * 8, weights = 128 * 64 * 8, outputs = 2 * 128 * 196 * 8;
  check_dram_bits(s, 14, 14, 8, 64, inputs + weights, outputs);
}

TEST_CASE("the chosen conv tiling fits the buffers and its tile walk equals its closed form") {
  const ConvShape layers[] = {k3x3,
                              kPatchEmbed,
                              kDepthwise,
                              k1x1,
                              square(1, 256, 56, 256, 3, 1, 1, 256),
                              square(1, 512, 7, 512, 3, 1, 1),
                              square(1, 32, 56, 32, 8, 8, 0)};
  const auto& c = config();
  for (const ConvShape& s : layers) {
    const ConvTiling t = choose_conv_tiling(s, 8, 8, c);
    INFO(t.describe());
    const std::uint64_t rows = std::min(s.in_h, (t.th - 1) * s.stride + s.kernel_h);
    const std::uint64_t cols = std::min(s.in_w, (t.tw - 1) * s.stride + s.kernel_w);
    CHECK(t.tc * rows * cols * 8 <= c.buffer(Buffer::inputs).half_bits());
    CHECK(t.tk * t.tc * s.kernel_h * s.kernel_w * 8 <= c.buffer(Buffer::weights).half_bits());
    CHECK(t.th * t.tw * t.tk * c.accumulator_bits <= c.buffer(Buffer::outputs).half_bits());
    const WalkedBits w = walk(*conv_tiles(s, 8, 8, t, c));
    CHECK(w.loads + w.stores == t.dram_bits);
    CHECK(w.macs == s.batch * s.m() * s.n() * s.k());
    // never less than the compulsory traffic: the input, the weights and the output once
    CHECK(t.dram_bits >=
          (s.batch * s.in_channels * s.in_h * s.in_w + s.out_channels * s.k() + s.batch * s.out_channels * s.m()) * 8);
    std::uint64_t compute = 0;
    for (const TileWork& tile : collect(*conv_tiles(s, 8, 8, t, c))) compute += tile.compute_cycles;
    CHECK(compute == t.compute_cycles);
  }
}

TEST_CASE("3x3 convs move less DRAM traffic mapped directly than as im2col GEMMs") {
  // ResNet's 3×3 stages (C = K, pad 1): 64 at 56×56, 128 at 28×28, 256 at 14×14, 512 at 7×7. The early,
  // activation-heavy layer gains most (the im2col matrix is 9× its input); later ones are bound by weights
  // that do not fit the buffers either way.
  const std::pair<std::uint64_t, std::uint64_t> stages[] = {{64, 56}, {128, 28}, {256, 14}, {512, 7}};
  for (const auto& [channels, side] : stages) {
    const ConvShape s = square(1, channels, side, channels, 3, 1, 1);
    const ReplayResult direct = replay_cf({conv_record(s)}, config()), gemm = replay_cf({im2col_record(s)}, config());
    INFO(channels << " channels: " << direct.total.dram_bits << " vs " << gemm.total.dram_bits << " DRAM bits");
    CHECK(direct.total.macs == gemm.total.macs);
    CHECK(direct.total.dram_bits < gemm.total.dram_bits);
    CHECK(direct.total.cycles <= gemm.total.cycles);
  }
  // The search takes the fastest tiling (the 64-channel layer: 8×8 px × 32 × 16, 20.8 Mbit); the mapping can do
  // with far less traffic at 0.3 % more cycles: 8×8 px × 32 output × all 64 input channels, weights resident.
  CHECK(4 * evaluate_conv_tiling(k3x3, 8, 8, 8, 8, 32, 64, true, config()).dram_bits <
        replay_cf({im2col_record(k3x3)}, config()).total.dram_bits);
}

TEST_CASE("a ResNet 3x3 layer over 16 images: the chosen direct tiling's DRAM bits equal the hand formula") {
  // ResNet's first 3×3 stage (64 → 64 channels, 56×56, pad 1) at batch 16, the example. The search
  // takes 8×8 px × 32 output × 64 input channels, output-channel tiles outside: 2 · 16 · 7 · 7 tiles.
  const ConvShape s = square(16, 64, 56, 64, 3, 1, 1);
  const ConvTiling t = choose_conv_tiling(s, 8, 8, config());
  INFO(t.describe());
  REQUIRE((t.th == 8 && t.tw == 8 && t.tk == 32 && t.tc == 64 && t.out_channels_outer));
  // Input rows of the 7 row tiles: 9 (first: row −1 is padding), 10 × 5, 9 (last: row 56 is padding) = 68, the
  // same for columns; the input is fetched once per output-channel tile (2); the weights (all 64 input
  // channels of a tile) once per output-channel tile, each tile once: K·C·R·S; the outputs once.
  const std::uint64_t inputs = 2 * 16 * 64 * 68 * 68 * 8, weights = 64 * 64 * 9 * 8, outputs = 16 * 64 * 56 * 56 * 8;
  const ReplayResult direct = replay_cf({conv_record(s)}, config());
  CHECK(t.dram_bits == inputs + weights + outputs);  // 101,744,640 bits
  CHECK(direct.total.dram_bits == inputs + weights + outputs);
  CHECK(direct.total.tiles == 2 * 16 * 7 * 7);
  // As the im2col GEMM the same layer moves 488.4 Mbit: the K²-duplicated input matrix streamed from DRAM.
  CHECK(4 * direct.total.dram_bits < replay_cf({im2col_record(s)}, config()).total.dram_bits);
}

TEST_CASE("SystemC equals the closed form on conv layers") {
  const std::vector<OpRecord> ops = {conv_record(k3x3), conv_record(kPatchEmbed), conv_record(kDepthwise),
                                     conv_record(k1x1), conv_record(square(1, 128, 28, 128, 3, 1, 1, 128))};
  for (const OpRecord& op : ops) {
    const ReplayResult sc = replay_sc({op}, config()), cf = replay_cf({op}, config());
    CHECK(sc.total.cycles == cf.total.cycles);
    CHECK(sc.total.dram_bits == cf.total.dram_bits);
    CHECK(sc.total.energy.total_pj() == Approx(cf.total.energy.total_pj()).epsilon(1e-12));
  }
}

TEST_CASE("replay names its engine, and both engines give equal cycles") {
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::msa, 1, 256, 16);
  for (const Engine e : {Engine::systemc, Engine::closed_form}) {
    RecordList records(ops);
    PlanSource plans(records, Convention::exact, "test records", config(), tech());
    const ReplayResult r = replay(e, plans, config());
    CHECK(r.engine == std::string(name(e)));
    CHECK(r.total.cycles == replay_cf(ops, config()).total.cycles);
  }
  CHECK(parse_engine("closed-form") == Engine::closed_form);
  CHECK_THROWS_WITH(parse_engine("verilator"), Catch::Contains("systemc, closed-form"));
}

TEST_CASE("the whole PVTv2-B0 replays with its convolutions mapped directly") {
  ModelOptions o;
  o.native_attention = true;  // SRA: its reduction convs too
  RecordingSink sink;
  for (const Layer& layer : ModelZoo::builtin().build("pvt_v2_b0", o)) emit(layer, Convention::exact, sink);
  std::size_t convs = 0;
  for (const OpRecord& r : sink.records) convs += r.kind == OpClass::conv;
  CHECK(convs > 4);  // four patch embeddings, the depthwise convs of every MLP, the SRA reductions

  struct ConvRows : RowSink {
    std::size_t rows = 0, direct = 0;
    void row(const OpRow& r) override {
      if (r.kind != OpClass::conv) return;
      ++rows;
      direct += r.mapping.find("direct conv") != std::string::npos;
    }
  } sc_rows, cf_rows;
  const AccelConfig c = static_pipeline(config());  // SystemC = closed form (dynamic effects: replay_test)
  const ReplayResult sc = replay_sc(sink.records, c, &sc_rows), cf = replay_cf(sink.records, c, &cf_rows);
  CHECK(sc_rows.rows == convs);
  CHECK(sc_rows.direct == convs);
  CHECK(cf_rows.rows == convs);
  CHECK(sc.total.cycles == cf.total.cycles);
}
