// ActNN: packing layout and identity on the quantization grid (every bit width, mixed per-sample bits,
// sizes not divisible by 8/b or 256), code and metadata bounds, input dtypes, op records, bad input, the
// range weights and the bit allocator, and GPU-vs-CPU bitwise agreement.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <utility>

#include "compression_test_data.hpp"
#include "ecosim/kernels/actnn.hpp"
#include "ecosim/ops_counter/error.hpp"

using namespace ecosim;
using namespace ecosim::kernels;

namespace {

float bf16_value(std::uint16_t bits) {
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// A tensor whose values lie on each group's grid: zero = −1.5, step = 1/8, range = (2^b − 1)/8, with the
/// grid's ends present in every group so min and max (hence the metadata) are exactly those.
struct GridTensor {
  std::vector<float> x;
  std::vector<std::uint32_t> k;  // grid index of each element
};
GridTensor grid_tensor(const actnn::Layout& l, std::uint64_t seed) {
  GridTensor t;
  for (std::uint64_t s = 0; s < l.samples; ++s) {
    const std::uint32_t levels = (1u << l.bits[s]) - 1u;
    for (std::uint64_t i = 0; i < l.sample_elements; ++i) {
      std::uint32_t k = rng::random_words(seed, 3, s * l.sample_elements + i).v[0] % (levels + 1);
      if (i % actnn::kGroupSize == 0) k = 0;
      if (i % actnn::kGroupSize == 1) k = levels;
      t.k.push_back(k);
      t.x.push_back(-1.5f + static_cast<float>(k) * 0.125f);
    }
  }
  return t;
}

void require_grid_identity(const actnn::Layout& l) {
  const GridTensor t = grid_tensor(l, 11);
  const actnn::Compressed c = actnn::quantize_cpu({t.x.data(), DType::fp32, t.x.size()}, l, 5);
  REQUIRE(c.codes.size() == c.sample_byte_offset.back());
  for (std::uint64_t s = 0; s < l.samples; ++s)
    for (std::uint64_t i = 0; i < l.sample_elements; ++i) REQUIRE(c.code(s, i) == t.k[s * l.sample_elements + i]);
  REQUIRE(actnn::dequantize_cpu(c) == t.x);
}

}  // namespace

TEST_CASE("packing is a per-sample LSB-first bit stream: hand-computed bytes", "[actnn]") {
  // Codes 0,1,2,3,1 at 2 bits: byte 0 = 0 | 1<<2 | 2<<4 | 3<<6 = 0xE4, byte 1 = 0x01.
  const std::vector<float> x = {-1.5f, -1.375f, -1.25f, -1.125f, -1.375f};
  const actnn::Compressed c = actnn::quantize_cpu({x.data(), DType::fp32, x.size()}, actnn::Layout::uniform(5, 2), 1);
  REQUIRE(c.codes == std::vector<std::uint8_t>{0xE4, 0x01});
  REQUIRE(bf16_value(c.zero_bf16[0]) == -1.5f);
  REQUIRE(bf16_value(c.range_bf16[0]) == 0.375f);
}

TEST_CASE("values on the quantization grid come back exactly, every bit width and awkward size", "[actnn]") {
  for (unsigned b : {1u, 2u, 4u, 8u})
    for (std::uint64_t n : {1ull, 3ull, 7ull, 255ull, 256ull, 257ull, 1000ull, 3 * 256ull + 5}) {
      CAPTURE(b, n);
      require_grid_identity(actnn::Layout::uniform(n, b));
    }
}

TEST_CASE("mixed per-sample bits pack and unpack exactly", "[actnn]") {
  require_grid_identity({3, 300, {1, 4, 8}});
  require_grid_identity({4, 13, {2, 8, 1, 4}});
  const actnn::Layout l{3, 300, {1, 4, 8}};
  REQUIRE(l.sample_byte_offsets() == std::vector<std::uint64_t>{0, 38, 188, 488});
}

TEST_CASE("codes lie in [0, 2^b-1] — metadata covers each group — dequantized values stay in the group range",
          "[actnn]") {
  const std::vector<float> x = test::normal_tensor(1000, 3, 0.5f, 2.0f);
  for (unsigned b : {1u, 2u, 4u, 8u}) {
    CAPTURE(b);
    const actnn::Compressed c =
        actnn::quantize_cpu({x.data(), DType::fp32, x.size()}, actnn::Layout::uniform(1000, b), 9);
    const std::vector<float> y = actnn::dequantize_cpu(c);
    for (std::uint64_t g = 0; g < c.zero_bf16.size(); ++g) {
      const auto first = x.begin() + static_cast<std::ptrdiff_t>(g * 256);
      const auto last = x.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(1000, (g + 1) * 256));
      const double lo = *std::min_element(first, last), hi = *std::max_element(first, last);
      const double zero = bf16_value(c.zero_bf16[g]), range = bf16_value(c.range_bf16[g]);
      REQUIRE(zero <= lo);
      REQUIRE(lo - zero <= std::abs(lo) * std::ldexp(1.0, -7));  // one bf16 ulp
      REQUIRE(zero + range >= hi);
      REQUIRE(zero + range - hi <= (hi - zero) * std::ldexp(1.0, -7) + 1e-30);
      for (std::uint64_t i = g * 256; i < std::min<std::uint64_t>(1000, (g + 1) * 256); ++i) {
        REQUIRE(c.code(0, i) <= (1u << b) - 1u);
        REQUIRE(y[i] >= zero);
        REQUIRE(y[i] <= zero + range * (1 + 1e-6));
      }
    }
  }
}

TEST_CASE("a group narrower than 2^-120 is quantized over 2^-120: codes spread, error within one step of it",
          "[actnn]") {
  // values ~1e-37: B / range would overflow fp32 at 8 bits (255 / 7e-37 > FLT_MAX), every code saturating
  std::vector<float> x = test::normal_tensor(512, 21);
  for (float& v : x) v *= 1e-37f;
  for (unsigned b : {2u, 8u}) {
    CAPTURE(b);
    const actnn::Compressed c =
        actnn::quantize_cpu({x.data(), DType::fp32, x.size()}, actnn::Layout::uniform(512, b), 3);
    const std::vector<float> y = actnn::dequantize_cpu(c);
    for (std::uint64_t g = 0; g < c.range_bf16.size(); ++g) {
      const double step = std::max<double>(bf16_value(c.range_bf16[g]), std::ldexp(1.0, -120)) / ((1u << b) - 1u);
      double worst = 0;
      for (std::uint64_t i = g * 256; i < (g + 1) * 256; ++i) worst = std::max(worst, std::abs(double(y[i]) - x[i]));
      CHECK(worst <= step * (1 + 1e-6));
    }
    std::vector<std::uint32_t> codes;
    for (std::uint64_t i = 0; i < 512; ++i) codes.push_back(c.code(0, i));
    CHECK(std::count(codes.begin(), codes.end(), (1u << b) - 1u) < 256);  // not saturated
  }
}

TEST_CASE("fp16 and bf16 inputs give the codes of their exact fp32 values", "[actnn]") {
  const std::vector<std::pair<test::HalfTensor, DType>> inputs = {{test::random_fp16(777, 1), DType::fp16},
                                                                  {test::random_bf16(777, 2), DType::bf16}};
  for (const auto& [t, dtype] : inputs) {
    const auto layout = actnn::Layout::uniform(777, 4);
    const actnn::Compressed half = actnn::quantize_cpu({t.bits.data(), dtype, 777}, layout, 3);
    const actnn::Compressed full = actnn::quantize_cpu({t.values.data(), DType::fp32, 777}, layout, 3);
    REQUIRE(half.codes == full.codes);
    REQUIRE(half.zero_bf16 == full.zero_bf16);
    REQUIRE(half.range_bf16 == full.range_bf16);
  }
}

TEST_CASE("the op records carry compressed and uncompressed bytes", "[actnn]") {
  const test::HalfTensor t = test::random_fp16(1000, 4);
  test::RecordingSink sink;
  const actnn::Compressed c =
      actnn::quantize_cpu({t.bits.data(), DType::fp16, 1000}, actnn::Layout::uniform(1000, 4), 1, &sink);
  actnn::dequantize_cpu(c, &sink);
  REQUIRE(sink.records.size() == 2);
  const OpCounts& q = sink.records[0].counts;
  REQUIRE(q.read_bytes(DType::fp16) == 2000);
  REQUIRE(q.written_bytes(DType::int4) == 500);
  REQUIRE(q.written_bytes(DType::bf16) == 4 * 4);  // 4 groups × (zero, range)
  REQUIRE(c.storage_bytes() == 516);
  const OpCounts& d = sink.records[1].counts;
  REQUIRE(d.read_bytes() == 516);
  REQUIRE(d.written_bytes(DType::fp32) == 4000);
}

TEST_CASE("bad input throws ecosim::Error with a clear message", "[actnn]") {
  std::vector<float> x(300, 1.0f);
  const TensorView v{x.data(), DType::fp32, x.size()};
  REQUIRE_THROWS_WITH(actnn::quantize_cpu(v, actnn::Layout::uniform(300, 3), 1),
                      Catch::Contains("unsupported bit width 3"));
  REQUIRE_THROWS_WITH(actnn::quantize_cpu({x.data(), DType::fp32, 0}, actnn::Layout::uniform(0, 2), 1),
                      Catch::Contains("empty"));
  REQUIRE_THROWS_WITH(actnn::quantize_cpu(v, actnn::Layout::uniform(299, 2), 1), Catch::Contains("does not match"));
  REQUIRE_THROWS_WITH(actnn::quantize_cpu({x.data(), DType::int8, 300}, actnn::Layout::uniform(300, 2), 1),
                      Catch::Contains("fp32, fp16 or bf16"));
  x[5] = std::numeric_limits<float>::quiet_NaN();
  REQUIRE_THROWS_WITH(actnn::quantize_cpu(v, actnn::Layout::uniform(300, 2), 1), Catch::Contains("at element 5"));
  x[5] = 1.0f;
  x[0] = -3e38f;
  x[1] = 3e38f;
  REQUIRE_THROWS_WITH(actnn::quantize_cpu(v, actnn::Layout::uniform(300, 2), 1), Catch::Contains("overflows bf16"));
  const std::vector<std::uint16_t> half = {0x3c00, 0x3c00, 0x7c00};  // 1, 1, +Inf
  REQUIRE_THROWS_WITH(actnn::quantize_cpu({half.data(), DType::fp16, 3}, actnn::Layout::uniform(3, 8), 1),
                      Catch::Contains("at element 2"));
  x[0] = x[1] = 1.0f;
  const actnn::Compressed good = actnn::quantize_cpu(v, actnn::Layout::uniform(300, 2), 1);
  actnn::Compressed truncated = good, short_metadata = good;
  truncated.codes.pop_back();
  short_metadata.range_bf16.pop_back();
  for (const actnn::Compressed* bad : {&truncated, &short_metadata})
    REQUIRE_THROWS_WITH(actnn::dequantize_cpu(*bad), Catch::Contains("do not match its layout"));
}

TEST_CASE("greedy bit allocation respects the budget and favours sensitive samples", "[actnn]") {
  REQUIRE(actnn::allocate_bits({1, 2, 3}, 24) == std::vector<unsigned>{8, 8, 8});
  REQUIRE(actnn::allocate_bits({1, 2, 3}, 3) == std::vector<unsigned>{1, 1, 1});
  // Equal weights: 8→4 everywhere costs the least per bit before anything goes below 4 bits.
  REQUIRE(actnn::allocate_bits({1, 1, 1, 1}, 16) == std::vector<unsigned>{4, 4, 4, 4});
  const std::vector<double> w = {1e-3, 5.0, 0.2, 40.0, 1.0, 0.0};
  for (std::uint64_t budget = 6; budget <= 48; ++budget) {
    const std::vector<unsigned> bits = actnn::allocate_bits(w, budget);
    std::uint64_t total = 0;
    for (unsigned b : bits) total += b;
    REQUIRE(total <= budget);
    for (std::size_t i = 0; i < w.size(); ++i)
      for (std::size_t j = 0; j < w.size(); ++j)
        if (w[i] > w[j]) REQUIRE(bits[i] >= bits[j]);
  }
  REQUIRE_THROWS_AS(actnn::allocate_bits({1, 1}, 1), Error);
  REQUIRE_THROWS_AS(actnn::allocate_bits({1, -1}, 8), Error);
}

TEST_CASE("range weights are Σ n_g·R_g²/4 per sample and steer bits to wide samples", "[actnn]") {
  // 2 samples × 300 elements: groups of 256 and 44. Sample 0 spans [-1, 3] then [0, 0.5]; sample 1 is flat
  // at 7 except one 9 in its second group.
  std::vector<float> x(600, 0.0f);
  for (int i = 0; i < 256; ++i) x[i] = i == 0 ? -1.0f : i == 1 ? 3.0f : 0.25f;
  for (int i = 256; i < 300; ++i) x[i] = i == 256 ? 0.5f : 0.0f;
  for (int i = 300; i < 600; ++i) x[i] = i == 599 ? 9.0f : 7.0f;
  const std::vector<double> w = actnn::range_weights({x.data(), DType::fp32, 600}, 2);
  CHECK(w[0] == Approx(256 * 16.0 / 4 + 44 * 0.25 / 4));
  CHECK(w[1] == Approx(44 * 4.0 / 4));

  // Samples of widely different scales: at the same average budget, allocating by range weights gives
  // less total quantization variance (exact Σ (R/B)²·f(1−f)) than one width for all.
  const std::uint64_t samples = 4, per_sample = 1000;
  std::vector<float> y;
  for (std::uint64_t s = 0; s < samples; ++s)
    for (float v : test::normal_tensor(per_sample, 40 + s, 0.0f, std::pow(10.0f, static_cast<float>(s) - 2)))
      y.push_back(v);
  const TensorView view{y.data(), DType::fp32, y.size()};
  const std::vector<unsigned> bits = actnn::allocate_bits(actnn::range_weights(view, samples), samples * 4);
  CHECK(std::is_sorted(bits.begin(), bits.end()));  // wider samples get at least as many bits
  const auto total_variance = [&](const actnn::Layout& l) {
    const std::vector<double> v = actnn::element_variance(view, actnn::quantize_cpu(view, l, 3));
    return std::accumulate(v.begin(), v.end(), 0.0);
  };
  CHECK(total_variance({samples, per_sample, bits}) < total_variance({samples, per_sample, {4, 4, 4, 4}}));

  CHECK_THROWS_WITH(actnn::range_weights(view, 3), Catch::Contains("equal samples"));
  y[5] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_AS(actnn::range_weights(view, samples), Error);
}

TEST_CASE("GPU and CPU produce identical codes, metadata and dequantized values", "[actnn][gpu]") {
  if (!test::gpu_or_skip()) return;
  const test::HalfTensor h = test::random_fp16(3000, 8), b16 = test::random_bf16(3000, 9);
  const std::vector<float> f = test::normal_tensor(3000, 10);
  const std::vector<TensorView> inputs = {
      {f.data(), DType::fp32, 3000}, {h.bits.data(), DType::fp16, 3000}, {b16.bits.data(), DType::bf16, 3000}};
  for (const TensorView& full : inputs)
    for (const actnn::Layout& l :
         {actnn::Layout::uniform(1, 2), actnn::Layout::uniform(257, 1), actnn::Layout::uniform(3000, 4),
          actnn::Layout::uniform(3000, 8), actnn::Layout{3, 1000, {2, 8, 1}},
          actnn::Layout{3, 999, {4, 8, 2}}}) {  // samples 1 and 2 start off 16-byte and code-word alignment
      const TensorView x{full.data, full.dtype, l.elements()};
      const actnn::Compressed cpu = actnn::quantize_cpu(x, l, 77), gpu = actnn::quantize_cuda(x, l, 77);
      REQUIRE(cpu.codes == gpu.codes);
      REQUIRE(cpu.zero_bf16 == gpu.zero_bf16);
      REQUIRE(cpu.range_bf16 == gpu.range_bf16);
      REQUIRE(actnn::dequantize_cpu(cpu) == actnn::dequantize_cuda(gpu));
    }
  std::vector<float> bad(600, 0.5f);
  bad[417] = -std::numeric_limits<float>::infinity();
  REQUIRE_THROWS_WITH(actnn::quantize_cuda({bad.data(), DType::fp32, 600}, actnn::Layout::uniform(600, 2), 1),
                      Catch::Contains("at element 417"));
}

TEST_CASE("GPU and CPU agree on more than 65,535 groups and an odd last group", "[actnn][gpu]") {
  if (!test::gpu_or_skip()) return;
  const std::uint64_t n = 70'001 * actnn::kGroupSize + 77;  // 70,002 groups: above grid y/z's 65,535
  const std::vector<float> f = test::normal_tensor(n, 12);
  for (const actnn::Layout& l : {actnn::Layout::uniform(n, 1), actnn::Layout{7, n / 7, {2, 4, 8, 1, 2, 4, 8}}}) {
    const TensorView x{f.data(), DType::fp32, l.elements()};
    const actnn::Compressed cpu = actnn::quantize_cpu(x, l, 5), gpu = actnn::quantize_cuda(x, l, 5);
    REQUIRE(cpu.codes == gpu.codes);
    REQUIRE(cpu.zero_bf16 == gpu.zero_bf16);
    REQUIRE(cpu.range_bf16 == gpu.range_bf16);
    REQUIRE(actnn::dequantize_cpu(cpu) == actnn::dequantize_cuda(gpu));
  }
}
