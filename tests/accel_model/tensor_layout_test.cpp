// Addresses from tensor layouts: a GEMM tile's row segments cover exactly the bytes of its operand and output
// tiles (worked out here from the loop nest), once each; over every mapping (GEMM, direct conv, streams,
// fused attention) the segments move the bits the tiles load and store (exactly, but for a stream's
// byte-rounded ends) and store every output byte once; and fed to the `dram` model a tile's transfers never
// beat the closed form's dram_cycles.
#include <fmt/core.h>
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/conv_tiling.hpp"
#include "ecosim/accel_model/fused_attention.hpp"
#include "ecosim/accel_model/pipeline.hpp"
#include "ecosim/accel_model/tensor_layout.hpp"
#include "ecosim/accel_model/tile_transfers.hpp"
#include "ecosim/ops_counter/primitives.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {

using Bytes = std::map<std::uint64_t, int>;  // byte address → times moved

void add(Bytes& bytes, const std::vector<MemoryAccess>& accesses) {
  for (const MemoryAccess& a : accesses)
    for (std::uint64_t b = 0; b < a.bytes; ++b) ++bytes[a.address + b];
}

/// The bytes of rows [r0, r0+rows) × columns [c0, c0+cols) of batch element `batch` of a row-major
/// batch × R × C matrix of `bits`-bit elements (a multiple of 8) at `base`.
Bytes matrix_tile(std::uint64_t base, std::uint64_t R, std::uint64_t C, unsigned bits, std::uint64_t batch,
                  std::uint64_t r0, std::uint64_t rows, std::uint64_t c0, std::uint64_t cols) {
  Bytes bytes;
  const std::uint64_t element = bits / 8;
  for (std::uint64_t r = r0; r < r0 + rows; ++r)
    for (std::uint64_t c = c0 * element; c < (c0 + cols) * element; ++c)
      bytes[base + ((batch * R + r) * C) * element + c] = 1;
  return bytes;
}

/// The tile indices (batch, m, n, k tile) of a tiling in its loop order, as the nest walks them.
std::vector<std::array<std::uint64_t, 4>> nest_order(const GemmShape& s, const GemmTiling& t) {
  const std::uint64_t trips[3] = {(s.m + t.tm - 1) / t.tm, (s.n + t.tn - 1) / t.tn, (s.k + t.tk - 1) / t.tk};
  auto dim = [](char loop) { return loop == 'm' ? 0 : loop == 'n' ? 1 : 2; };
  std::vector<std::array<std::uint64_t, 4>> order;
  for (std::uint64_t b = 0; b < s.batch; ++b)
    for (std::uint64_t i = 0; i < trips[dim(t.order[0])]; ++i)
      for (std::uint64_t j = 0; j < trips[dim(t.order[1])]; ++j)
        for (std::uint64_t l = 0; l < trips[dim(t.order[2])]; ++l) {
          std::array<std::uint64_t, 4> at{b, 0, 0, 0};
          at[1 + dim(t.order[0])] = i, at[1 + dim(t.order[1])] = j, at[1 + dim(t.order[2])] = l;
          order.push_back(at);
        }
  return order;
}

std::uint64_t segment_bits(const std::vector<MemoryAccess>& accesses) {
  std::uint64_t bytes = 0;
  for (const MemoryAccess& a : accesses) bytes += a.bytes;
  return 8 * bytes;
}

}  // namespace

TEST_CASE("a GEMM tile's row segments cover its operand and output tiles, every byte once") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const GemmShape shapes[] = {{1, 37, 45, 70, 8, 8}, {2, 16, 64, 33, 16, 8}, {3, 9, 5, 40, 8, 16}};
  const std::uint64_t sizes[][3] = {{16, 32, 64}, {4, 8, 16}, {8, 5, 32}, {37, 1, 3}};
  for (const GemmShape& s : shapes)
    for (const auto& [tm, tn, tk] : sizes)
      for (const std::array<char, 3> order :
           {std::array{'m', 'n', 'k'}, std::array{'k', 'n', 'm'}, std::array{'n', 'k', 'm'}}) {
        const GemmTiling t = evaluate_tiling(s, std::min(tm, s.m), std::min(tn, s.n), std::min(tk, s.k), order, c);
        INFO(s.batch << "×" << s.m << "×" << s.n << "×" << s.k << " " << s.a_bits << "/" << s.w_bits << " bits, "
                     << t.describe());
        const auto run = gemm_tiles(s, t, c);
        LayoutAllocator allocator(1 << 20);
        const std::vector<TensorLayout> tensors = allocator.place(*run);
        REQUIRE(tensors.size() == 4);  // A, B, partial sums, C
        const std::vector<TileWork> tiles = collect(*run);
        const auto indices = nest_order(s, t);
        REQUIRE(tiles.size() == indices.size());
        std::vector<MemoryAccess> loads, stores;
        Bytes all_a, all_c;
        for (std::size_t i = 0; i < tiles.size(); ++i) {
          const auto [b, im, in, ik] = indices[i];
          const std::uint64_t rows = std::min(t.tm, s.m - im * t.tm), cols = std::min(t.tn, s.n - in * t.tn),
                              depth = std::min(t.tk, s.k - ik * t.tk);
          tile_accesses(tiles[i], tensors, loads, stores);
          Bytes expected;
          const auto& bits = tiles[i].load_bits;
          if (bits[std::size_t(Buffer::inputs)])
            for (auto x : matrix_tile(tensors[0].base, s.m, s.k, s.a_bits, b, im * t.tm, rows, ik * t.tk, depth))
              expected.insert(x);
          if (bits[std::size_t(Buffer::weights)])
            for (auto x : matrix_tile(tensors[1].base, s.k, s.n, s.w_bits, b, ik * t.tk, depth, in * t.tn, cols))
              expected.insert(x);
          if (bits[std::size_t(Buffer::outputs)])
            for (auto x : matrix_tile(tensors[2].base, s.m, s.n, unsigned(c.accumulator_bits), b, im * t.tm, rows,
                                      in * t.tn, cols))
              expected.insert(x);
          Bytes moved;
          add(moved, loads);
          CHECK(moved == expected);  // the same bytes, each once
          CHECK(segment_bits(loads) == tiles[i].load_total_bits());
          add(all_a, loads);
          if (tiles[i].store_bits) {
            const bool final = ik * t.tk + depth == s.k;
            const TensorLayout& out = tensors[final ? 3 : 2];
            const unsigned out_bits = final ? s.out_bits() : unsigned(c.accumulator_bits);
            Bytes stored;
            add(stored, stores);
            CHECK(stored == matrix_tile(out.base, s.m, s.n, out_bits, b, im * t.tm, rows, in * t.tn, cols));
            CHECK(segment_bits(stores) == tiles[i].store_bits);
            if (final) add(all_c, stores);
          } else {
            CHECK(stores.empty());
          }
        }
        // Over the op: every byte of A loaded (at least once), every byte of C stored exactly once.
        for (std::uint64_t x = 0; x < tensors[0].bytes(); ++x) CHECK(all_a.count(tensors[0].base + x) == 1);
        CHECK(all_c.size() == tensors[3].bytes());
        for (const auto& [address, times] : all_c) CHECK(times == 1);
      }
}

TEST_CASE("tensors are placed apart, aligned, and sized by whole-byte rows") {
  LayoutAllocator allocator(100);
  const TensorLayout a = allocator.place(TensorShape{{2, 1, 3, 5}, 4});  // rows of 20 bits: 3 bytes
  const TensorLayout b = allocator.place(TensorShape{{1, 1, 1, 8192}, 8});
  const TensorLayout c = allocator.place(TensorShape{{1, 1, 1, 1}, 32});
  CHECK(a.base == 100);
  CHECK(a.row_bytes() == 3);
  CHECK(a.bytes() == 18);
  CHECK(b.base == 4096);  // 118 rounded up to the alignment
  CHECK(c.base == 4096 + 8192);
  std::vector<MemoryAccess> out;
  box_accesses(a, TensorBox{0, {1, 0, 1, 1}, {1, 1, 2, 3}}, false, out);  // elements 1–3 (bits 4–15) of two rows
  REQUIRE(out.size() == 2);
  CHECK(out[0].address == 100 + 9 + 3 + 0);
  CHECK(out[0].bytes == 2);
  CHECK(out[1].address == 100 + 9 + 6 + 0);
  out.clear();
  box_accesses(b, TensorBox{0, {0, 0, 0, 0}, {1, 1, 1, 8192}}, true, out);  // one whole row: one segment
  REQUIRE(out.size() == 1);
  CHECK((out[0].address == 4096 && out[0].bytes == 8192 && out[0].write));
  CHECK_THROWS_WITH(box_accesses(a, TensorBox{0, {0, 0, 2, 0}, {1, 1, 2, 1}}, false, out),
                    Catch::Matchers::Contains("exceeds dimension 2"));
}

TEST_CASE("every mapping's row segments move the bits its tiles load and store, and fill its output") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  std::vector<OpPlan> plans;
  plans.push_back(plan_op(gemm(2, 50, 70, 90, DType::fp32), c, tech()));
  // N 2, C 16, 14×14, K 32, 3×3, stride 2, padding 1, 2 groups.
  const ConvShape conv{2, 16, 14, 14, 32, 3, 3, 2, 1, 2};
  plans.push_back(plan_op(ops::conv("conv", conv, true, DType::int8), c, tech()));
  OpRecord scale;  // 100,003 fp32 elements read, scaled and written (at 8 bits on the accelerator)
  scale.name = "scale", scale.kind = OpClass::eltwise, scale.m = 100'003;
  scale.counts.add(OpKind::mul, DType::fp32, 100'003)
      .add_read_bytes(DType::fp32, 4 * 100'003)
      .add_written_bytes(DType::fp32, 4 * 100'003);
  plans.push_back(plan_op(scale, c, tech()));
  const auto attention = attention_layer(AttentionVariant::msa, 2, 77, 32);
  plans.push_back(plan_fused_attention(attention, c, tech())->plan);
  for (const OpPlan& plan : plans) {
    INFO(plan.name << ": " << plan.mapping);
    const bool stream = plan.name == "scale";
    LayoutAllocator allocator;
    const std::vector<TensorLayout> tensors = allocator.place(*plan.runs.at(0));
    PlanCursor cursor(plan);
    TileWork tile;
    std::vector<MemoryAccess> loads, stores;
    std::uint64_t load_bits = 0, moved_load_bits = 0;
    Bytes stored;
    while (cursor.next(tile)) {
      tile_accesses(tile, tensors, loads, stores);
      // Array tiles move whole elements of whole bytes; a stream tile's bits (an even split of the op's) may
      // start and end inside a byte, which its segments then include: at most one byte more at each end.
      CHECK(segment_bits(loads) >= tile.load_total_bits());
      CHECK(segment_bits(loads) < tile.load_total_bits() + (stream ? 16 : 1));
      CHECK(segment_bits(stores) >= tile.store_bits);
      CHECK(segment_bits(stores) < tile.store_bits + (stream ? 16 : 1));
      load_bits += tile.load_total_bits(), moved_load_bits += segment_bits(loads);
      add(stored, stores);
    }
    CHECK(moved_load_bits >= load_bits);
    // Each output byte stored once (a stream's boundary bytes twice), every byte of the output tensor.
    CHECK(stored.size() == tensors.back().bytes());
    for (const auto& [address, times] : stored) CHECK(times <= (stream ? 2 : 1));
  }
}

namespace {

/// The tile pipeline of pipeline.hpp replayed event by event with each transfer timed by `memory` through its
/// row segments: tile i+1 starts once tile i has computed and the DMA has stored tile i−1 and loaded tile i+1.
/// Checks every transfer against the closed form's dram_cycles on the way; returns the op's cycles.
std::uint64_t replay_with_memory(const OpPlan& plan, MemoryModel& memory, const AccelConfig& c) {
  TileTransfers dma(memory);
  dma.start_op(plan);
  const std::vector<TileWork> tiles = collect(plan);
  std::uint64_t start = dma.load_complete(tiles[0], 0);
  CHECK(start >= dram_cycles(tiles[0].load_total_bits(), c));
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    std::uint64_t dma_free = start;
    if (i > 0) {
      const std::uint64_t stored = dma.store_complete(tiles[i - 1], dma_free);
      CHECK(stored - dma_free >= dram_cycles(tiles[i - 1].store_bits, c));
      dma_free = stored;
    }
    if (i + 1 < tiles.size()) {
      const std::uint64_t loaded = dma.load_complete(tiles[i + 1], dma_free);
      CHECK(loaded - dma_free >= dram_cycles(tiles[i + 1].load_total_bits(), c));
      dma_free = loaded;
    }
    start = std::max(start + tiles[i].compute_cycles, dma_free);
  }
  return dma.store_complete(tiles.back(), start);
}

std::uint64_t closed_form_cycles(const OpPlan& plan, const AccelConfig& c) {
  PipelineClock clock(c);
  for (const TileWork& tile : collect(plan)) clock.add(tile);
  return clock.cycles();
}

}  // namespace

TEST_CASE("replayed with each transfer timed by the memory model, an op never beats the closed form") {
  const GemmShape shapes[] = {{4, 200, 300, 500, 8, 8}, {1, 3136, 32, 3136, 8, 8}, {16, 49, 64, 64, 4, 4}};
  for (const char* memory : {R"({"model": "simple"})", R"({"model": "dram", "device": "DDR4-2400"})",
                             R"({"model": "dram", "device": "LPDDR4-3200", "mapping": "RoCoBaCh"})",
                             R"({"model": "dram", "device": "HBM2", "channels": 8})"})
    for (const GemmShape& s : shapes) {
      INFO(memory << " " << s.batch << "×" << s.m << "×" << s.n << "×" << s.k);
      const AccelConfig c = parse_config(fmt::format(R"({{"memory": {}}})", memory), "c.json");
      OpPlan plan;
      plan.runs.push_back(gemm_tiles(s, choose_tiling(s, c), c));
      auto model = make_memory_model(c);
      const std::uint64_t replayed = replay_with_memory(plan, *model, c), bound = closed_form_cycles(plan, c);
      if (c.memory_bound == nullptr)
        CHECK(replayed == bound);  // `simple`: exactly the closed form
      else
        CHECK(replayed > bound);  // row misses, conflicts and refreshes cost more than the peak-rate bound
    }
}
