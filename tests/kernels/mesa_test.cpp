// Mesa: first-step (α, β) exact, the moving-average sequence, saturation (never wrap), α = 0, unbiasedness
// inside the range, head layout, bad input, and GPU-vs-CPU bitwise agreement.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "compression_test_data.hpp"
#include "ecosim/kernels/mesa.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/primitives.hpp"

using namespace ecosim;
using namespace ecosim::kernels;

namespace {
/// Per-head min and max of a tensor viewed as outer × heads × inner.
std::pair<std::vector<float>, std::vector<float>> head_min_max(const std::vector<float>& x, const mesa::Layout& l) {
  std::vector<float> lo(l.heads, INFINITY), hi(l.heads, -INFINITY);
  for (std::uint64_t e = 0; e < x.size(); ++e) {
    const std::uint64_t h = (e / l.inner) % l.heads;
    lo[h] = std::min(lo[h], x[e]);
    hi[h] = std::max(hi[h], x[e]);
  }
  return {lo, hi};
}
}  // namespace

TEST_CASE("first step is exact and later steps follow the moving average with lambda = 0.9", "[mesa]") {
  const mesa::Layout l{3, 4, 50};
  mesa::State state;
  std::vector<double> alpha, beta;
  for (int step = 0; step < 4; ++step) {
    const std::vector<float> x = test::normal_tensor(l.elements(), 100 + step, 0.5f * step, 1.0f + step);
    const auto [lo, hi] = head_min_max(x, l);
    const mesa::Compressed c = mesa::quantize_cpu({x.data(), DType::fp32, x.size()}, l, state, 7);
    for (std::uint64_t h = 0; h < l.heads; ++h) {
      if (step == 0) {
        alpha.push_back(static_cast<double>(hi[h]) - lo[h]);
        beta.push_back(lo[h]);
        REQUIRE(c.alpha[h] == hi[h] - lo[h]);
        REQUIRE(c.beta[h] == lo[h]);
      } else {
        alpha[h] = 0.9 * alpha[h] + 0.1 * (static_cast<double>(hi[h]) - lo[h]);
        beta[h] = 0.9 * beta[h] + 0.1 * lo[h];
        REQUIRE(c.alpha[h] == Approx(alpha[h]).epsilon(1e-5));
        REQUIRE(c.beta[h] == Approx(beta[h]).epsilon(1e-5).margin(1e-6));
      }
      REQUIRE(state.alpha[h] == c.alpha[h]);
    }
  }
}

TEST_CASE("values outside the running range saturate at 0 and 255, never wrap", "[mesa]") {
  const mesa::Layout l{1, 1, 100};
  mesa::State state;
  std::vector<float> x(100);
  for (int i = 0; i < 100; ++i) x[i] = i / 99.0f;  // range [0, 1]
  mesa::quantize_cpu({x.data(), DType::fp32, 100}, l, state, 1);
  x[10] = 50.0f;   // far above: the running α only grows by 10 % of the new range
  x[20] = -50.0f;  // far below
  const mesa::Compressed c = mesa::quantize_cpu({x.data(), DType::fp32, 100}, l, state, 2);
  REQUIRE(c.codes[10] == 255);
  REQUIRE(c.codes[20] == 0);
  const std::vector<float> y = mesa::dequantize_cpu(c);
  REQUIRE(y[10] == Approx(c.beta[0] + c.alpha[0]));
  REQUIRE(y[20] == c.beta[0]);
}

TEST_CASE("alpha = 0 (a constant head) gives code 0 and dequantizes to beta without dividing by zero", "[mesa]") {
  const mesa::Layout l{2, 2, 10};
  std::vector<float> x(40, 3.25f);
  for (int i = 10; i < 20; ++i) x[i] = -1.0f + i;  // head 1 varies in the first outer slice
  mesa::State state;
  const mesa::Compressed c = mesa::quantize_cpu({x.data(), DType::fp32, 40}, l, state, 3);
  REQUIRE(c.alpha[0] == 0.0f);
  const std::vector<float> y = mesa::dequantize_cpu(c);
  for (int i = 0; i < 10; ++i) {
    REQUIRE(c.codes[i] == 0);
    REQUIRE(y[i] == 3.25f);
  }
}

TEST_CASE("a head narrower than 2^-120 is quantized over 2^-120: codes spread, error within one step of it", "[mesa]") {
  const mesa::Layout l{1, 1, 256};
  std::vector<float> x = test::normal_tensor(256, 22);
  for (float& v : x) v *= 1e-37f;  // 255 / α would overflow fp32
  mesa::State state;
  const mesa::Compressed c = mesa::quantize_cpu({x.data(), DType::fp32, 256}, l, state, 4);
  const std::vector<float> y = mesa::dequantize_cpu(c);
  const double step = std::max<double>(c.alpha[0], std::ldexp(1.0, -120)) / 255;
  for (int i = 0; i < 256; ++i) REQUIRE(std::abs(double(y[i]) - x[i]) <= step * (1 + 1e-6));
  CHECK(std::count(c.codes.begin(), c.codes.end(), std::uint8_t{255}) < 8);
}

TEST_CASE("mesa stochastic rounding is unbiased inside the range", "[mesa][statistics]") {
  const mesa::Layout l{1, 2, 64};
  const std::vector<float> x = test::normal_tensor(128, 4);
  std::vector<double> sum(128, 0.0), sum2(128, 0.0);
  constexpr int kSeeds = 1000;
  mesa::Compressed first;
  for (int seed = 0; seed < kSeeds; ++seed) {
    mesa::State state;  // first step every time: (α, β) exact, so every value is inside the range
    first = mesa::quantize_cpu({x.data(), DType::fp32, 128}, l, state, static_cast<std::uint64_t>(seed));
    const std::vector<float> y = mesa::dequantize_cpu(first);
    for (int i = 0; i < 128; ++i) {
      sum[i] += static_cast<double>(y[i]) - x[i];
      sum2[i] += (static_cast<double>(y[i]) - x[i]) * (static_cast<double>(y[i]) - x[i]);
    }
  }
  for (int i = 0; i < 128; ++i) {
    const double step = first.alpha[static_cast<std::size_t>(i / 64)] / 255.0;
    const double u = (x[i] - first.beta[static_cast<std::size_t>(i / 64)]) / step, f = u - std::floor(u);
    const double var = step * step * f * (1 - f), slack = std::ldexp(step, -16) + 1e-6;
    CAPTURE(i, sum[i] / kSeeds, var);
    REQUIRE(std::abs(sum[i] / kSeeds) <= 5 * std::sqrt(var / kSeeds) + slack);
  }
}

TEST_CASE("mesa reports bytes, takes fp16/bf16 and rejects bad input", "[mesa]") {
  const test::HalfTensor h = test::random_fp16(600, 3);
  mesa::State a, b;
  test::RecordingSink sink;
  const mesa::Compressed half = mesa::quantize_cpu({h.bits.data(), DType::fp16, 600}, {2, 3, 100}, a, 5, &sink);
  const mesa::Compressed full = mesa::quantize_cpu({h.values.data(), DType::fp32, 600}, {2, 3, 100}, b, 5);
  REQUIRE(half.codes == full.codes);
  // 600 fp16 elements read twice: the min/max pass, then the quantizing pass (two kernels on a GPU)
  REQUIRE(sink.records.at(0).counts.read_bytes(DType::fp16) == 2 * 1200);
  REQUIRE(sink.records.at(0).param(ops::kPassesParam) == 2);
  REQUIRE(sink.records.at(0).counts.written_bytes(DType::int8) == 600);
  REQUIRE(half.storage_bytes() == 600 + 3 * 8);
  std::vector<float> x(10, 1.0f);
  mesa::State s;
  REQUIRE_THROWS_WITH(mesa::quantize_cpu({x.data(), DType::fp32, 10}, {1, 1, 0}, s, 1), Catch::Contains("empty"));
  REQUIRE_THROWS_WITH(mesa::quantize_cpu({x.data(), DType::fp32, 10}, {1, 2, 4}, s, 1),
                      Catch::Contains("does not match"));
  x[7] = std::numeric_limits<float>::infinity();
  REQUIRE_THROWS_WITH(mesa::quantize_cpu({x.data(), DType::fp32, 10}, {1, 1, 10}, s, 1),
                      Catch::Contains("at element 7"));
  REQUIRE_FALSE(s.initialized());  // a failed step leaves the running state untouched
  mesa::Compressed bad = half;
  bad.codes.pop_back();
  REQUIRE_THROWS_WITH(mesa::dequantize_cpu(bad), Catch::Contains("do not match its layout"));
  bad = half;
  bad.alpha.clear();
  REQUIRE_THROWS_WITH(mesa::dequantize_cpu(bad), Catch::Contains("do not match its layout"));
}

namespace {
/// Three Mesa steps on the GPU and the CPU, each on fp32 normal values (mean 0.1·step, seeds `seed` + step)
/// and on `half`: codes, scales and dequantized values equal bit for bit.
void require_equal_steps(const mesa::Layout& l, const test::HalfTensor& half, DType half_type, std::uint64_t seed) {
  const std::uint64_t n = l.elements();
  mesa::State cpu_state, gpu_state;
  for (int step = 0; step < 3; ++step) {
    const std::vector<float> x = test::normal_tensor(n, seed + step, 0.1f * step);
    for (const TensorView& v : {TensorView{x.data(), DType::fp32, n}, TensorView{half.bits.data(), half_type, n}}) {
      const mesa::Compressed cpu = mesa::quantize_cpu(v, l, cpu_state, seed),
                             gpu = mesa::quantize_cuda(v, l, gpu_state, seed);
      REQUIRE(cpu.codes == gpu.codes);
      REQUIRE(cpu.alpha == gpu.alpha);
      REQUIRE(cpu.beta == gpu.beta);
      REQUIRE(mesa::dequantize_cpu(cpu) == mesa::dequantize_cuda(gpu));
    }
  }
}
}  // namespace

TEST_CASE("mesa GPU and CPU agree bit for bit over several steps", "[mesa][gpu]") {
  if (!test::gpu_or_skip()) return;
  require_equal_steps({2, 4, 2500}, test::random_bf16(20000, 5), DType::bf16, 200);
}

namespace {
/// Mesa input of layout l whose heads 1 and 2 span ±3e38 (a range above fp32's largest value): zero except
/// one element at each end of the range in a segment of each.
std::vector<float> overflowing_heads(const mesa::Layout& l) {
  std::vector<float> x(l.elements(), 0.0f);
  const std::uint64_t head1_outer1 = (1 * l.heads + 1) * l.inner, head2_outer0 = 2 * l.inner;
  x[head1_outer1 + 7] = -3e38f;
  x[head1_outer1 + l.inner - 1] = 3e38f;
  x[head2_outer0] = 3e38f;
  x[head2_outer0 + 1] = -3e38f;
  return x;
}
}  // namespace

TEST_CASE("mesa CPU names the first head whose range overflows fp32", "[mesa]") {
  const mesa::Layout l{2, 3, 100};
  const std::vector<float> x = overflowing_heads(l);
  mesa::State s;
  REQUIRE_THROWS_WITH(mesa::quantize_cpu({x.data(), DType::fp32, l.elements()}, l, s, 1),
                      "mesa: the range of head 1 overflows fp32");
}

TEST_CASE("mesa GPU and CPU agree across 4,096-element chunks and report the same overflow", "[mesa][gpu]") {
  if (!test::gpu_or_skip()) return;
  const mesa::Layout l{2, 3, 2 * 4096 + 123};  // three chunks per head segment, the last one partial
  require_equal_steps(l, test::random_fp16(l.elements(), 31), DType::fp16, 300);
  const mesa::Layout small{2, 3, 100};
  const std::vector<float> wide = overflowing_heads(small);
  mesa::State fresh;
  REQUIRE_THROWS_WITH(mesa::quantize_cuda({wide.data(), DType::fp32, small.elements()}, small, fresh, 1),
                      "mesa: the range of head 1 overflows fp32");
}
