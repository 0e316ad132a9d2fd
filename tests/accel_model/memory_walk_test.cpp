// Tilings chosen under the stateful `dram` memory model: the walk they are ranked by (an op's tiles alone, each
// transfer timed by the model) is the SystemC replay of the op alone; no candidate walks faster than the chosen
// tiling beyond the tie window (nor ties with less energy), GEMM and direct convolution alike; and a decode step's
// attention GEMMs — whose chosen tilings, ranked by bits alone, once ran slower on 8 channels than on 4 — never
// slow down with more channels.
#include <fmt/core.h>
#include <catch2/catch.hpp>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/conv_tiling.hpp"
#include "memory_walk.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {

AccelConfig dram_config(const char* memory) {
  return parse_config(fmt::format(R"({{"memory": {}}})", memory), "dram.json");
}

constexpr const char* kMemories[] = {R"({"model": "dram", "device": "DDR4-2400"})",
                                     R"({"model": "dram", "device": "DDR4-2400", "channels": 8})",
                                     R"({"model": "dram", "device": "LPDDR4-3200", "mapping": "RoCoBaCh"})",
                                     R"({"model": "dram", "device": "HBM2", "channels": 8})"};

/// A decode step's scores (queries of one K/V head × its cached keys) and context GEMMs, as a Llama-3 8B trace
/// records them at 512 cached tokens: 8 K/V heads, 4 queries each, head dim 128.
const GemmShape kDecodeShapes[] = {{8, 4, 513, 128, 8, 8}, {8, 4, 128, 513, 8, 8}};

}  // namespace

TEST_CASE("the walk tilings are ranked by under a memory model is the SystemC replay of the op alone") {
  for (const char* memory : kMemories) {
    const AccelConfig c = dram_config(memory);
    for (const GemmShape& s :
         {GemmShape{4, 200, 300, 500, 8, 8}, GemmShape{1, 49, 64, 64, 8, 8}, kDecodeShapes[0], kDecodeShapes[1]}) {
      INFO(memory << " " << s.batch << "×" << s.m << "×" << s.n << "×" << s.k);
      const std::uint64_t walked = memory_walked_cycles(gemm_tiles(s, choose_tiling(s, c), c), c);
      CHECK(walked == replay_sc({gemm(s.batch, s.m, s.n, s.k, DType::int8)}, c).total.cycles);
    }
  }
}

TEST_CASE("under the dram model no GEMM tiling of 8 or more columns and rows walks faster than the chosen one") {
  for (const char* memory : {kMemories[1], kMemories[3]}) {
    const AccelConfig c = dram_config(memory);
    for (const GemmShape& s : kDecodeShapes) {
      const GemmTiling chosen = choose_tiling(s, c);
      INFO(memory << " " << s.batch << "×" << s.m << "×" << s.n << "×" << s.k << ", chose " << chosen.describe());
      const std::uint64_t chosen_cycles = memory_walked_cycles(gemm_tiles(s, chosen, c), c);
      std::uint64_t fastest = ~std::uint64_t{0};
      std::vector<std::pair<GemmTiling, std::uint64_t>> walked;
      for (std::uint64_t tm : power_of_two_sizes(s.m))
        for (std::uint64_t tn : power_of_two_sizes(s.n))
          for (std::uint64_t tk : power_of_two_sizes(s.k)) {
            if (tn < 8 || tk < 8 || tm * tk * s.a_bits > c.buffer(Buffer::inputs).half_bits() ||
                tk * tn * s.w_bits > c.buffer(Buffer::weights).half_bits() ||
                tm * tn * c.accumulator_bits > c.buffer(Buffer::outputs).half_bits())
              continue;
            for (const auto& order :
                 {std::array{'m', 'n', 'k'}, std::array{'n', 'k', 'm'}, std::array{'k', 'm', 'n'}}) {
              const GemmTiling t = evaluate_tiling(s, tm, tn, tk, order, c);
              walked.emplace_back(t, memory_walked_cycles(gemm_tiles(s, t, c), c));
              fastest = std::min(fastest, walked.back().second);
            }
          }
      CHECK(chosen_cycles <= tie_window_cycles(fastest));
      for (const auto& [t, cycles] : walked) {
        INFO(t.describe() << ": " << cycles << " cycles");
        if (cycles <= tie_window_cycles(fastest)) CHECK(chosen.energy_pj <= t.energy_pj * (1 + 1e-9));
      }
    }
  }
}

TEST_CASE("under the dram model no convolution tiling walks faster than the chosen one beyond the tie window") {
  const AccelConfig c = dram_config(kMemories[1]);
  ConvShape s;
  s.in_channels = 32, s.out_channels = 32, s.in_h = s.in_w = 14, s.kernel_h = s.kernel_w = 3, s.stride = 1,
  s.padding = 1;
  const ConvTiling chosen = choose_conv_tiling(s, 8, 8, c);
  INFO("chose " << chosen.describe());
  const std::uint64_t chosen_cycles = memory_walked_cycles(conv_tiles(s, 8, 8, chosen, c), c);
  std::uint64_t fastest = ~std::uint64_t{0};
  for (std::uint64_t th : power_of_two_sizes(s.out_h()))
    for (std::uint64_t tw : power_of_two_sizes(s.out_w()))
      for (std::uint64_t tk : power_of_two_sizes(s.out_channels))
        for (std::uint64_t tc : power_of_two_sizes(s.in_channels))
          for (const bool outer : {true, false}) {
            const ConvTiling t{th, tw, tk, tc, outer};
            const std::uint64_t rows = std::min(s.in_h, th - 1 + s.kernel_h),
                                cols = std::min(s.in_w, tw - 1 + s.kernel_w);
            if (tk * tc * 9 * 8 > c.buffer(Buffer::weights).half_bits() ||
                tc * rows * cols * 8 > c.buffer(Buffer::inputs).half_bits() ||
                th * tw * tk * c.accumulator_bits > c.buffer(Buffer::outputs).half_bits())
              continue;
            fastest = std::min(fastest, memory_walked_cycles(conv_tiles(s, 8, 8, t, c), c));
          }
  CHECK(chosen_cycles <= tie_window_cycles(fastest));
}

TEST_CASE("a decode step's attention GEMMs never replay slower on more DRAM channels") {
  for (const GemmShape& s : kDecodeShapes) {
    std::uint64_t fewer_channels = ~std::uint64_t{0};
    for (int channels : {1, 2, 4, 8, 16}) {
      INFO(s.n << "×" << s.k << " on " << channels << " channels");
      const AccelConfig c =
          dram_config(fmt::format(R"({{"model": "dram", "device": "DDR4-2400", "channels": {}}})", channels).c_str());
      const std::uint64_t cycles = replay_sc({gemm(s.batch, s.m, s.n, s.k, DType::int8)}, c).total.cycles;
      CHECK(cycles <= tie_window_cycles(fewer_channels));
      fewer_channels = cycles;
    }
  }
}
