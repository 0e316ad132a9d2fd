// The memos of the GEMM tiling search (accel_model/src/pipeline_memo.hpp, the size grids of tiling.cpp): a
// tiling's timing depends on the configuration only through its timing key, remembered pipeline cycles equal
// computed ones past the memo's capacity, and choose_tiling answers alike with warm memos (grids filled by
// configurations that differ in buffers, clock and energies) and cold ones (a fresh thread's).
#include <catch2/catch.hpp>

#include <random>
#include <thread>

#include "accel_test_support.hpp"
#include "pipeline_memo.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {

/// The built-in configuration with `rows` × `cols` fusion units and the given buffer sizes and clock.
AccelConfig sized(std::uint64_t rows, std::uint64_t cols, std::uint64_t weights_bytes, std::uint64_t inputs_bytes,
                  std::uint64_t outputs_bytes, double clock_mhz = 500) {
  const nlohmann::json patch = {{"array", {{"rows", rows}, {"cols", cols}}},
                                {"clock_mhz", clock_mhz},
                                {"buffers",
                                 {{"weights", {{"bytes", weights_bytes}}},
                                  {"inputs", {{"bytes", inputs_bytes}}},
                                  {"outputs", {{"bytes", outputs_bytes}}}}}};
  return with_overrides(builtin_config("bitfusion-45nm"), patch, "timing_memo_test");
}

/// Seeded GEMM shapes: batch 1–4, m, n, k log-uniform in 1–4096, operand bits 2, 4, 8 or 16.
std::vector<GemmShape> shapes(int count) {
  std::mt19937_64 rng(13);
  auto dim = [&] {
    const std::uint64_t low = std::uint64_t{1} << std::uniform_int_distribution<unsigned>(0, 11)(rng);
    return std::uniform_int_distribution<std::uint64_t>(low, 2 * low)(rng);
  };
  const unsigned bits[] = {2, 4, 8, 16};
  std::vector<GemmShape> v;
  for (int i = 0; i < count; ++i) {
    const unsigned a = bits[std::uniform_int_distribution<int>(0, 3)(rng)];
    const unsigned w = bits[std::uniform_int_distribution<int>(0, 3)(rng)];
    const std::uint64_t batch = std::uniform_int_distribution<std::uint64_t>(1, 4)(rng);
    v.push_back({batch, dim(), dim(), dim(), a, w});
  }
  return v;
}

void check_same_choice(const GemmTiling& a, const GemmTiling& b) {
  CHECK(a.describe() == b.describe());
  CHECK(a.compute_cycles == b.compute_cycles);
  CHECK(a.dram_bits == b.dram_bits);
  CHECK(a.bound_cycles == b.bound_cycles);
  CHECK(a.pipeline_cycles == b.pipeline_cycles);
  CHECK(a.energy_pj == b.energy_pj);  // bit for bit: the same arithmetic
}

}  // namespace

TEST_CASE("a GEMM tiling's timing depends on the configuration only through its timing key") {
  // Same array, accumulator and DRAM; different buffers (so different bank energies), clock and array energy
  // table entries are not part of the key.
  const AccelConfig small = sized(8, 16, 32768, 8192, 16384, 500), large = sized(8, 16, 262144, 65536, 65536, 800);
  REQUIRE(small.buffer(Buffer::weights).read_pj_per_bit != large.buffer(Buffer::weights).read_pj_per_bit);
  std::size_t compared = 0;
  for (const GemmShape& s : shapes(24)) {
    REQUIRE(timing_key(s, small) == timing_key(s, large));
    for (std::uint64_t tm : power_of_two_sizes(s.m))
      for (std::uint64_t tk : power_of_two_sizes(s.k)) {
        if (tm * tk * s.a_bits > small.buffer(Buffer::inputs).half_bits()) continue;
        const std::uint64_t tn = std::min<std::uint64_t>(s.n, 16);
        const GemmTiling a = evaluate_tiling(s, tm, tn, tk, {'n', 'k', 'm'}, small),
                         b = evaluate_tiling(s, tm, tn, tk, {'n', 'k', 'm'}, large);
        INFO(s.batch << "×" << s.m << "×" << s.n << "×" << s.k << " " << a.describe());
        CHECK(a.compute_cycles == b.compute_cycles);
        CHECK(a.dram_bits == b.dram_bits);
        CHECK(a.bound_cycles == b.bound_cycles);
        CHECK(a.pipeline_cycles == b.pipeline_cycles);
        ++compared;
      }
  }
  CHECK(compared > 200);
  // The key tells apart what does matter.
  const GemmShape s{2, 100, 200, 300, 8, 8};
  CHECK_FALSE(timing_key(s, sized(8, 16, 32768, 8192, 16384)) == timing_key(s, sized(16, 16, 32768, 8192, 16384)));
  CHECK_FALSE(timing_key(s, builtin_or_slow_dram(false)) == timing_key(s, builtin_or_slow_dram(true)));
  CHECK_FALSE(timing_key(s, small) == timing_key({2, 100, 200, 300, 8, 4}, small));
}

TEST_CASE("remembered pipeline cycles equal computed ones, for tilings seen again and past the memo's capacity") {
  const AccelConfig configs[] = {sized(4, 8, 65536, 16384, 16384), sized(16, 32, 65536, 16384, 16384),
                                 builtin_or_slow_dram(true)};
  std::size_t asked = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (const AccelConfig& c : configs)
      for (std::uint64_t m = 1; m <= 1500; m += 1)  // 3 × 1500 distinct tilings > kPipelineMemoCapacity
        for (const GemmShape& s : {GemmShape{2, m, 24, 40, 8, 8}}) {
          const GemmTiling t = evaluate_tiling(s, std::min<std::uint64_t>(m, 32), 8, 16, {'k', 'm', 'n'}, c);
          CHECK(remembered_pipeline_cycles(s, t, c) == t.pipeline_cycles);
          ++asked;
        }
  CHECK(asked > 2 * kPipelineMemoCapacity);
}

TEST_CASE("choose_tiling chooses alike with memos warmed by configurations timed alike and with cold ones") {
  // Buffers from tiny to large, so that grids filled under one fit are read under another.
  const AccelConfig configs[] = {sized(8, 16, 262144, 65536, 65536, 800), sized(8, 16, 8192, 2048, 4096),
                                 sized(8, 16, 32768, 8192, 16384), sized(32, 8, 65536, 16384, 32768),
                                 sized(32, 8, 16384, 65536, 8192)};
  for (const GemmShape& s : shapes(30)) {
    INFO(s.batch << "×" << s.m << "×" << s.n << "×" << s.k << " at " << s.a_bits << "/" << s.w_bits << " bits");
    std::vector<GemmTiling> warm, cold;
    for (const AccelConfig& c : configs) warm.push_back(choose_tiling(s, c));
    for (const AccelConfig& c : configs) {
      std::thread([&] { cold.push_back(choose_tiling(s, c)); }).join();  // a fresh thread: empty memos
    }
    for (std::size_t i = 0; i < warm.size(); ++i) check_same_choice(warm[i], cold[i]);
  }
}

TEST_CASE("choose_tiling chooses alike before and after its thread's grids fill up and are emptied") {
  // 120 shapes of 12–13 tile sizes along each dimension: ≈ 2,000 sizes a grid, past the memo's bound in all.
  const AccelConfig c = sized(16, 32, 65536, 16384, 16384);
  std::vector<GemmTiling> warm, cold;
  for (std::uint64_t i = 0; i < 120; ++i) {
    const GemmShape s{1, 2048 + 7 * i, 2100 + i, 2500 - i, 8, 8};
    warm.push_back(choose_tiling(s, c));
    warm.push_back(choose_tiling(s, c));  // from the grid just filled
  }
  std::thread([&] {
    for (std::uint64_t i = 0; i < 120; ++i)
      cold.push_back(choose_tiling({1, 2048 + 7 * i, 2100 + i, 2500 - i, 8, 8}, c));
  }).join();
  REQUIRE(cold.size() * 2 == warm.size());
  for (std::size_t i = 0; i < cold.size(); ++i) {
    check_same_choice(warm[2 * i], cold[i]);
    check_same_choice(warm[2 * i + 1], cold[i]);
  }
}
