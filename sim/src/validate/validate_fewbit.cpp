// `ecosim validate --suite compression`, Few-Bit Backward part: the solver reproduces the published GELU
// errors, equals exhaustive search, its levels are interval means and its error falls with bits; the
// kernels pack exactly, reject non-finite input, and the CUDA kernels equal the CPU reference bit for bit.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ecosim/kernels/fewbit.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/kernels/philox.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "validation.hpp"

namespace ecosim::cli {

namespace {

namespace fb = kernels::fewbit;

void solver_checks(Validation& v) {
  const double published[] = {0.1410, 0.0406, 0.0119, 0.0031};
  for (unsigned bits = 1; bits <= 4; ++bits) {
    const double error = fb::solve(fb::Activation::gelu, bits, {.range = 10.0, .grid = 4000}).error;
    const double relative = std::abs(error - published[bits - 1]) / published[bits - 1];
    v.check(fmt::format("fewbit gelu {}-bit error vs published {}", bits, published[bits - 1]), relative <= 0.02,
            fmt::format("computed {:.6f} ({:+.2f} %), grid 4000", error,
                        100 * (error - published[bits - 1]) / published[bits - 1]));
  }
  for (fb::Activation a : {fb::Activation::gelu, fb::Activation::sigmoid, fb::Activation::mish}) {
    const fb::SolverOptions coarse{.range = 6.0, .grid = 24};
    const double dp = fb::solve(a, 3, coarse).error, exhaustive = fb::solve_exhaustive(a, 3, coarse);
    v.check(fmt::format("fewbit {} 3-bit DP equals exhaustive search", fb::spec(a).name),
            std::abs(dp - exhaustive) <= 1e-12 * exhaustive, fmt::format("{:.9g} vs {:.9g}, grid 24", dp, exhaustive));
  }
  for (const fb::ActivationSpec& s : fb::activations()) {
    if (s.piecewise_constant) {
      const fb::Quantizer q = fb::solve(s.activation, 1);
      v.check(fmt::format("fewbit {} 1-bit is exact", s.name), q.error < 1e-12 && q.borders[0] == 0.0,
              fmt::format("error {:.3g}, border {:g}", q.error, q.borders[0]));
      continue;
    }
    double previous = INFINITY, worst_mean = 0;
    bool falling = true;
    for (unsigned bits = 1; bits <= 4; ++bits) {
      const fb::Quantizer q = fb::solve(s.activation, bits, {.range = 10.0, .grid = 1000});
      falling = falling && q.error <= previous;
      previous = q.error;
      std::vector<double> edges{s.even_derivative ? 0.0 : -10.0};
      edges.insert(edges.end(), q.borders.begin(), q.borders.end());
      edges.push_back(10.0);
      for (std::size_t k = 0; k < q.levels.size(); ++k) {
        const double mean = (fb::evaluate(s.activation, edges[k + 1]) - fb::evaluate(s.activation, edges[k])) /
                            (edges[k + 1] - edges[k]);
        worst_mean = std::max(worst_mean, std::abs(q.levels[k] - mean));
      }
    }
    v.check(fmt::format("fewbit {} error non-increasing in bits 1..4", s.name), falling, "");
    v.check(fmt::format("fewbit {} levels are interval means", s.name), worst_mean <= 1e-12,
            fmt::format("max deviation {:.2g}", worst_mean));
  }
}

/// Inputs for the kernel checks: a seeded normal tensor (σ = 3) of n elements in dtype t.
std::vector<std::uint8_t> input_bytes(std::uint64_t n, DType t) {
  std::vector<float> x(n);
  for (std::uint64_t i = 0; i < n; ++i) x[i] = 3.0f * rng::normal(0xfeb, 1, i);
  return kernels::encode(x, t);
}

void kernel_checks(Validation& v) {
  const gpu::Availability gpu_state = gpu::probe();
  const std::string skip_reason = v.device() == DeviceChoice::cuda ? ""
                                  : gpu_state.available            ? "--device cpu"
                                                                   : "no GPU: " + gpu_state.reason;
  for (unsigned bits = 1; bits <= 4; ++bits) {
    const fb::Codebook c = fb::Codebook::from(fb::solve(fb::Activation::gelu, bits, {.range = 10.0, .grid = 1000}));
    for (DType t : {DType::fp32, DType::fp16, DType::bf16})
      for (std::uint64_t n : {1ull, 1003ull, 65'537ull}) {
        const std::vector<std::uint8_t> bytes = input_bytes(n, t);
        const kernels::TensorView x{bytes.data(), t, n};
        const fb::Forward cpu = fb::forward_cpu(c, x);
        const std::string what = fmt::format("fewbit gelu {}-bit {} n={}", bits, name(t), n);
        const auto codes = fb::unpack_codes(cpu.codes, n, bits);
        const std::vector<float> values = kernels::decode(x);
        bool codes_right = cpu.codes.size() == (n * bits + 7) / 8;
        for (std::uint64_t i = 0; i < n; ++i) codes_right = codes_right && codes[i] == c.code(values[i]);
        v.check(what + " codes packed b bits/element and in the right interval", codes_right,
                fmt::format("{} bytes", cpu.codes.size()));
        if (!skip_reason.empty()) {
          v.skip(what + " CUDA = CPU (codes, backward bitwise; f(x) to 1 ulp)", skip_reason);
          continue;
        }
        const fb::Forward gpu = fb::forward_cuda(c, x);
        const bool backward_equal = fb::backward_cuda(c, cpu.codes, x).bytes == fb::backward_cpu(c, cpu.codes, x).bytes;
        double worst_ulps = 0;
        for (std::uint64_t i = 0; i < n; ++i) {
          const double a = cpu.output.at(i), b = gpu.output.at(i);
          // One ulp of the output type at this magnitude (fp16 subnormals: 2^-24).
          const double ulp = std::max(
              std::ldexp(1.0, std::ilogb(std::max({std::abs(a), std::abs(b), 1e-30})) - (t == DType::fp32   ? 23
                                                                                         : t == DType::fp16 ? 10
                                                                                                            : 7)),
              t == DType::fp16 ? 0x1p-24 : 0.0);
          worst_ulps = std::max(worst_ulps, std::abs(a - b) / ulp);
        }
        v.check(what + " CUDA = CPU (codes, backward bitwise; f(x) to 1 ulp)",
                gpu.codes == cpu.codes && backward_equal && worst_ulps <= 1.0,
                fmt::format("{} on {}, max f(x) difference {:.2g} ulp",
                            gpu.codes == cpu.codes && backward_equal ? "bitwise" : "MISMATCH", gpu_state.device_name,
                            worst_ulps));
      }
  }
  std::vector<float> bad(100, 0.25f);
  bad[42] = NAN;
  const fb::Codebook c = fb::Codebook::from(fb::solve(fb::Activation::gelu, 2, {.range = 10.0, .grid = 200}));
  std::string message;
  try {
    fb::forward_cpu(c, {bad.data(), DType::fp32, bad.size()});
  } catch (const Error& e) {
    message = e.what();
  }
  v.check("fewbit NaN input rejected naming the element", message.find("element 42") != std::string::npos, message);
}

}  // namespace

void validate_fewbit(Validation& v) {
  solver_checks(v);
  kernel_checks(v);
}

}  // namespace ecosim::cli
