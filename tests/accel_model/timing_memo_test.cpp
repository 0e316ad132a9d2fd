// The memos of the tiling searches (accel_model/src/pipeline_memo.hpp, the size grids of tiling.cpp): a
// tiling's timing depends on the configuration only through its timing key, remembered pipeline cycles equal
// computed ones past the memo's capacity, and choose_tiling and choose_conv_tiling answer alike with warm memos
// (filled by configurations that differ in buffers, clock and energies, or only in their fusion units' precision
// range) and cold ones (a fresh thread's).
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

/// The built-in configuration with fusion units of another precision range (pmax_bits, pmin_bits).
AccelConfig fused(std::uint64_t pmax_bits, std::uint64_t pmin_bits) {
  const nlohmann::json patch = {{"array", {{"pmax_bits", pmax_bits}, {"pmin_bits", pmin_bits}}}};
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

/// Two tilings (GemmTiling or ConvTiling) alike in every field.
template <class Tiling>
void check_same_choice(const Tiling& a, const Tiling& b) {
  CHECK(a.describe() == b.describe());
  CHECK(a.compute_cycles == b.compute_cycles);
  CHECK(a.dram_bits == b.dram_bits);
  CHECK(a.bound_cycles == b.bound_cycles);
  CHECK(a.pipeline_cycles == b.pipeline_cycles);
  CHECK(a.energy_pj == b.energy_pj);  // bit for bit: the same arithmetic
}

/// Seeded convolutions: dense, grouped and depthwise, kernels 1–7, strides 1–4, images 7–56 pixels a side.
std::vector<ConvShape> conv_shapes(int count) {
  std::mt19937_64 rng(29);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  std::vector<ConvShape> v;
  for (int i = 0; i < count; ++i) {
    ConvShape s;
    s.batch = pick(1, 2);
    s.groups = std::array<std::uint64_t, 3>{1, 2, 0}[pick(0, 2)];
    s.in_channels = (s.groups ? s.groups : 1) * pick(1, 48);
    if (!s.groups) s.groups = s.in_channels;  // depthwise
    s.out_channels = s.groups * pick(1, s.groups == s.in_channels ? 1 : 48);
    s.in_h = pick(7, 56), s.in_w = pick(7, 56);
    s.kernel_h = s.kernel_w = pick(0, 3) * 2 + 1;
    s.stride = pick(1, 4), s.padding = s.kernel_h / 2;
    s.validate();
    v.push_back(s);
  }
  return v;
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
  const AccelConfig base = builtin_config("bitfusion-45nm");
  for (const AccelConfig& other : {fused(16, 2), fused(4, 2)}) {  // another number of products per cycle
    REQUIRE((other.rows == base.rows && other.cols == base.cols));
    CHECK_FALSE(timing_key(s, base) == timing_key(s, other));
  }
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
  const AccelConfig configs[] = {sized(8, 16, 262144, 65536, 65536, 800),
                                 sized(8, 16, 8192, 2048, 4096),
                                 sized(8, 16, 32768, 8192, 16384),
                                 sized(32, 8, 65536, 16384, 32768),
                                 sized(32, 8, 16384, 65536, 8192),
                                 fused(16, 2),
                                 fused(4, 2),
                                 builtin_config("bitfusion-45nm")};
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

TEST_CASE("choose_conv_tiling chooses alike with memos warmed by configurations timed alike and with cold ones") {
  const nlohmann::json dram = {{"memory", {{"model", "dram"}, {"device", "DDR4-2400"}}}};
  const AccelConfig configs[] = {
      sized(8, 16, 262144, 65536, 65536, 800),
      sized(8, 16, 8192, 8192, 8192),
      sized(8, 16, 32768, 16384, 16384),
      sized(32, 8, 65536, 16384, 32768),
      sized(32, 8, 16384, 65536, 8192),
      builtin_or_slow_dram(true),
      with_overrides(builtin_config("bitfusion-45nm"), dram, "timing_memo_test"),  // stateful memory: no memo
      fused(16, 2),
      fused(4, 2),
      builtin_config("bitfusion-45nm")};
  REQUIRE(configs[6].memory_bound);
  for (const ConvShape& s : conv_shapes(16)) {
    INFO(s.batch << "×" << s.in_channels << "×" << s.in_h << "×" << s.in_w << " → " << s.out_channels << ", "
                 << s.kernel_h << "×" << s.kernel_w << " /" << s.stride << ", " << s.groups << " groups");
    for (const unsigned bits : {4u, 8u}) {
      std::vector<ConvTiling> warm, cold;
      for (const AccelConfig& c : configs) {
        warm.push_back(choose_conv_tiling(s, bits, 8, c));
        warm.push_back(choose_conv_tiling(s, bits, 8, c));  // every timing from the memo
      }
      for (const AccelConfig& c : configs)
        std::thread([&] { cold.push_back(choose_conv_tiling(s, bits, 8, c)); }).join();  // a fresh thread
      REQUIRE(warm.size() == 2 * cold.size());
      for (std::size_t i = 0; i < cold.size(); ++i) {
        check_same_choice(warm[2 * i], cold[i]);
        check_same_choice(warm[2 * i + 1], cold[i]);
        // The chosen tiling's fields are its exact evaluation.
        const ConvTiling& t = cold[i];
        check_same_choice(t,
                          evaluate_conv_tiling(s, bits, 8, t.th, t.tw, t.tk, t.tc, t.out_channels_outer, configs[i]));
      }
    }
  }
}

TEST_CASE("choose_conv_tiling chooses alike before and after its thread's memo fills up and is emptied") {
  // Each search adds its candidates (≈ 4,000 for these shapes) to the memo: 12 of them pass its capacity.
  const AccelConfig c = sized(16, 32, 262144, 131072, 65536);
  auto shape = [](std::uint64_t i) {
    ConvShape s;
    s.in_channels = 64 + i, s.out_channels = 64, s.in_h = s.in_w = 56, s.kernel_h = s.kernel_w = 3, s.padding = 1;
    return s;
  };
  std::size_t candidates = 0;
  std::vector<ConvTiling> warm, cold;
  for (std::uint64_t i = 0; i < 12; ++i) {
    const std::size_t before = conv_timing_memo().size();
    warm.push_back(choose_conv_tiling(shape(i), 8, 8, c));
    const std::size_t after = conv_timing_memo().size();
    candidates += after >= before ? after - before : after;
    warm.push_back(choose_conv_tiling(shape(i), 8, 8, c));  // from the memo
  }
  CHECK(candidates > kConvTimingMemoCapacity);
  std::thread([&] {
    for (std::uint64_t i = 0; i < 12; ++i) cold.push_back(choose_conv_tiling(shape(i), 8, 8, c));
  }).join();
  REQUIRE(cold.size() * 2 == warm.size());
  for (std::size_t i = 0; i < cold.size(); ++i) {
    check_same_choice(warm[2 * i], cold[i]);
    check_same_choice(warm[2 * i + 1], cold[i]);
  }
}
