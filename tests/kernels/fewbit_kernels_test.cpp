// Few-Bit Backward kernels: pack/unpack identity, forward codes and values against the definition,
// backward = gradient × level of x's interval, fp16/bf16 inputs, non-finite and malformed input, op
// records (compressed vs uncompressed bytes), and GPU against CPU bit for bit (skipped visibly).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "compression_test_data.hpp"
#include "ecosim/kernels/fewbit.hpp"
#include "ecosim/ops_counter/error.hpp"

using namespace ecosim::kernels;
using namespace ecosim::kernels::fewbit;
using ecosim::DType;

namespace {

Codebook codebook(Activation a, unsigned bits) { return Codebook::from(solve(a, bits, {.range = 10.0, .grid = 400})); }

TensorView view(const std::vector<float>& x) { return {x.data(), DType::fp32, x.size()}; }

/// The interval of v among ascending borders, found independently of the kernels (binary search).
std::size_t interval(const Codebook& c, float x) {
  const float v = c.absolute ? std::abs(x) : x;
  return static_cast<std::size_t>(std::upper_bound(c.borders.begin(), c.borders.end(), v) - c.borders.begin());
}

/// fp32 → bf16 round to nearest even, by comparing the two neighbouring bf16 values in double.
std::uint16_t bf16_reference(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  const std::uint32_t down = u & 0xffff0000u, up = down + 0x10000u;
  float lo, hi;
  std::memcpy(&lo, &down, 4);
  std::memcpy(&hi, &up, 4);
  const double d_lo = std::abs(double(f) - lo), d_hi = std::abs(double(hi) - f);
  const bool pick_up = d_hi < d_lo || (d_hi == d_lo && ((down >> 16) & 1u));
  return static_cast<std::uint16_t>((pick_up ? up : down) >> 16);
}

std::uint16_t fp16_reference(float f) {
  const _Float16 h = static_cast<_Float16>(f);  // the compiler's round-to-nearest-even conversion
  std::uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}

std::uint16_t half_bits(const HostTensor& t, std::uint64_t i) {
  std::uint16_t b;
  std::memcpy(&b, t.bytes.data() + 2 * i, 2);
  return b;
}

}  // namespace

TEST_CASE("fewbit packing: 8 elements take b bytes, and pack/unpack is the identity") {
  for (unsigned bits = 1; bits <= 4; ++bits) {
    CHECK(code_bytes(8, bits) == bits);
    CHECK(code_bytes(16, bits) == 2 * bits);
    for (std::uint64_t n : {1ull, 3ull, 7ull, 8ull, 9ull, 13ull, 1001ull}) {
      std::vector<std::uint8_t> codes(n);
      for (std::uint64_t i = 0; i < n; ++i)
        codes[i] = static_cast<std::uint8_t>(ecosim::rng::random_words(bits, 1, i).v[0] & ((1u << bits) - 1));
      const auto packed = pack_codes(codes, bits);
      CHECK(packed.size() == (n * bits + 7) / 8);
      CHECK(unpack_codes(packed, n, bits) == codes);
    }
  }
  // LSB first: element 0 in the low bits of byte 0; a 3-bit code straddles bytes 0 and 1.
  CHECK(pack_codes(std::vector<std::uint8_t>{1, 0, 0, 0, 0, 0, 0, 0}, 1) == std::vector<std::uint8_t>{0x01});
  CHECK(pack_codes(std::vector<std::uint8_t>{0, 0, 7}, 3) == std::vector<std::uint8_t>{0xc0, 0x01});
  CHECK_THROWS_AS(pack_codes(std::vector<std::uint8_t>{4}, 2), ecosim::Error);
  CHECK_THROWS_AS(unpack_codes(std::vector<std::uint8_t>{0, 0}, 3, 2), ecosim::Error);
}

TEST_CASE("fewbit forward writes f(x) and the packed interval codes — backward multiplies by the level") {
  for (Activation a : {Activation::gelu, Activation::tanh, Activation::softplus, Activation::leaky_relu}) {
    for (unsigned bits = 1; bits <= (spec(a).piecewise_constant ? 1u : 4u); ++bits) {
      const Codebook c = codebook(a, bits);
      const std::uint64_t n = 1003;  // not a multiple of 8
      const std::vector<float> x = ecosim::test::normal_tensor(n, bits, 0.0f, 3.0f);
      const std::vector<float> g = ecosim::test::normal_tensor(n, 100 + bits);
      const Forward f = forward_cpu(c, view(x));
      REQUIRE(f.codes.size() == code_bytes(n, bits));
      const auto codes = unpack_codes(f.codes, n, bits);
      const HostTensor grad = backward_cpu(c, f.codes, view(g));
      INFO(spec(a).name << " bits " << bits);
      for (std::uint64_t i = 0; i < n; ++i) {
        REQUIRE(codes[i] == interval(c, x[i]));
        REQUIRE(f.output.at(i) == static_cast<float>(evaluate(a, x[i])));
        REQUIRE(grad.at(i) == g[i] * c.levels[interval(c, x[i])]);
      }
    }
  }
}

TEST_CASE("fewbit codes of even derivatives depend on |x| only") {
  const Codebook c = codebook(Activation::sigmoid, 3);
  CHECK(c.absolute);
  const std::vector<float> x = ecosim::test::normal_tensor(257, 7, 0.0f, 4.0f);
  std::vector<float> negated(x.size());
  std::transform(x.begin(), x.end(), negated.begin(), [](float v) { return -v; });
  CHECK(forward_cpu(c, view(x)).codes == forward_cpu(c, view(negated)).codes);
}

TEST_CASE("fewbit fp16 and bf16 inputs are converted on load and outputs rounded to nearest even") {
  const Codebook c = codebook(Activation::gelu, 2);
  const std::uint64_t n = 301;
  for (DType t : {DType::fp16, DType::bf16}) {
    const ecosim::test::HalfTensor x =
        t == DType::fp16 ? ecosim::test::random_fp16(n, 3) : ecosim::test::random_bf16(n, 3);
    const ecosim::test::HalfTensor g =
        t == DType::fp16 ? ecosim::test::random_fp16(n, 4) : ecosim::test::random_bf16(n, 4);
    const Forward f = forward_cpu(c, {x.bits.data(), t, n});
    CHECK(f.output.dtype == t);
    CHECK(f.codes == forward_cpu(c, view(x.values)).codes);
    const HostTensor grad = backward_cpu(c, f.codes, {g.bits.data(), t, n});
    const auto round = [t](float v) { return t == DType::fp16 ? fp16_reference(v) : bf16_reference(v); };
    for (std::uint64_t i = 0; i < n; ++i) {
      REQUIRE(half_bits(f.output, i) == round(static_cast<float>(evaluate(Activation::gelu, x.values[i]))));
      REQUIRE(half_bits(grad, i) == round(g.values[i] * c.levels[interval(c, x.values[i])]));
    }
  }
}

TEST_CASE("fewbit refuses non-finite, empty and mismatched input, naming the first bad element") {
  const Codebook c = codebook(Activation::gelu, 2);
  std::vector<float> x(20, 0.5f);
  x[13] = INFINITY;
  x[17] = NAN;
  CHECK_THROWS_WITH(forward_cpu(c, view(x)), Catch::Contains("element 13"));
  x[13] = 0.0f;
  CHECK_THROWS_WITH(forward_cpu(c, view(x)), Catch::Contains("element 17"));
  CHECK_THROWS_AS(forward_cpu(c, {x.data(), DType::fp32, 0}), ecosim::Error);
  CHECK_THROWS_AS(forward_cpu(c, {x.data(), DType::int8, 4}), ecosim::Error);
  const std::vector<float> g(20, 1.0f);
  CHECK_THROWS_AS(backward_cpu(c, std::vector<std::uint8_t>(4), view(g)), ecosim::Error);  // needs 5 bytes
  Codebook broken = c;
  broken.levels.pop_back();
  CHECK_THROWS_AS(forward_cpu(broken, view(g)), ecosim::Error);
}

TEST_CASE("fewbit op records: codes instead of the saved input on the backward pass") {
  const Codebook c = codebook(Activation::gelu, 3);
  const std::uint64_t n = 1000;
  ecosim::test::RecordingSink sink;
  const std::vector<float> x = ecosim::test::normal_tensor(n, 9);
  const Forward f = forward_cpu(c, view(x), &sink);
  backward_cpu(c, f.codes, view(x), &sink);
  REQUIRE(sink.records.size() == 2);
  const std::uint64_t codes = 375;  // 1000 · 3 / 8
  CHECK(sink.records[0].counts.read_bytes() == 4 * n);
  CHECK(sink.records[0].counts.written_bytes() == 4 * n + codes);
  CHECK(sink.records[0].counts.ops(ecosim::OpKind::cmp) == 7 * n);  // one compare per border
  CHECK(sink.records[1].counts.read_bytes() == 4 * n + codes);
  CHECK(sink.records[1].counts.written_bytes() == 4 * n);
  const ecosim::OpRecord plain = backward_uncompressed_record(Activation::gelu, n, DType::fp32);
  CHECK(plain.counts.read_bytes() == 8 * n);  // saved x and the gradient
}

TEST_CASE("fewbit CUDA kernels equal the CPU reference bit for bit", "[fewbit][gpu]") {
  if (!ecosim::test::gpu_or_skip()) return;
  for (const ActivationSpec& act : activations())
    for (DType t : {DType::fp32, DType::fp16, DType::bf16})
      for (unsigned bits = 1; bits <= (act.piecewise_constant ? 1u : 4u); ++bits) {
        const Codebook c = codebook(act.activation, bits);
        const std::uint64_t n = 100'003;  // odd: the last group of codes is partial
        INFO(act.name);
        const ecosim::test::HalfTensor half =
            t == DType::fp16 ? ecosim::test::random_fp16(n, bits) : ecosim::test::random_bf16(n, bits);
        const std::vector<float> x32 = ecosim::test::normal_tensor(n, bits, 0.0f, 3.0f);
        const TensorView x = t == DType::fp32 ? view(x32) : TensorView{half.bits.data(), t, n};
        const Forward cpu = forward_cpu(c, x), gpu = forward_cuda(c, x);
        INFO(ecosim::name(t) << " bits " << bits);
        CHECK(gpu.codes == cpu.codes);
        for (std::uint64_t i = 0; i < n; ++i) {
          // f is evaluated by two math libraries: equal to 1 fp32 ulp, so to 1 ulp of the output type.
          const float a = cpu.output.at(i), b = gpu.output.at(i);
          const float ulp = t == DType::fp32 ? 0x1p-23f : t == DType::fp16 ? 0x1p-10f : 0x1p-7f;
          REQUIRE(std::abs(a - b) <= ulp * std::max(std::abs(a), std::abs(b)) + 0x1p-24f * (t == DType::fp16));
        }
        CHECK(backward_cuda(c, cpu.codes, x).bytes == backward_cpu(c, cpu.codes, x).bytes);
      }
}

TEST_CASE("fewbit CUDA kernels on one fp16 tensor of more than 2^31 elements", "[fewbit][gpu][large]") {
  if (!ecosim::test::gpu_or_skip()) return;
  const unsigned bits = 2;
  const Codebook c = codebook(Activation::silu, bits);
  const std::uint64_t n = (std::uint64_t{1} << 31) + 13;  // indices past int32, a partial last group of 8
  const ecosim::test::HalfTensor tile = ecosim::test::random_fp16(std::uint64_t{1} << 20, 7);
  std::vector<std::uint16_t> x(n);  // 4 GiB: the tile repeated
  for (std::uint64_t first = 0; first < n; first += tile.bits.size())
    std::copy_n(tile.bits.begin(), std::min<std::uint64_t>(tile.bits.size(), n - first), x.begin() + first);
  const TensorView all{x.data(), DType::fp16, n};
  const Forward gpu = forward_cuda(c, all);
  const HostTensor grad = backward_cuda(c, gpu.codes, all);  // x reused as the incoming gradient
  // Slices (starting on a group of 8, whose codes start on a byte) against the CPU reference: the start,
  // across element 2^31, and the end with its partial group. An inner slice holds whole groups only: a partial
  // last group would leave its code byte's high bits 0 where the whole tensor has the next elements' codes.
  for (std::uint64_t start : {std::uint64_t{0}, (std::uint64_t{1} << 31) - 4096, n / 8 * 8 - 8192}) {
    const std::uint64_t count = n - start < 2 * 8192 ? n - start : 8192;
    INFO("elements from " << start);
    const TensorView slice{x.data() + start, DType::fp16, count};
    const Forward cpu = forward_cpu(c, slice);
    const std::uint64_t code_start = start / 8 * bits;
    REQUIRE(std::equal(cpu.codes.begin(), cpu.codes.end(), gpu.codes.begin() + code_start));
    const HostTensor cpu_grad = backward_cpu(c, cpu.codes, slice);
    for (std::uint64_t i = 0; i < count; ++i) {
      const float a = cpu.output.at(i), b = gpu.output.at(start + i);  // two math libraries: 1 fp16 ulp
      REQUIRE(std::abs(a - b) <= 0x1p-10f * std::max(std::abs(a), std::abs(b)) + 0x1p-24f);
      REQUIRE(cpu_grad.at(i) == grad.at(start + i));
    }
  }
}
