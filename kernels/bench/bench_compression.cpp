// bench_compression: quantize+pack and unpack(+dequantize) throughput of ActNN (1/2/4/8 bits), Mesa and
// Few-Bit (GELU, 1..4 bits), in GB/s of bytes read + written, as a ratio to copying the input's bytes
// measured in the same run (cudaMemcpy device-to-device on the GPU, std::memcpy on the CPU). Times are the
// median of the repetitions after warm-up runs (timing.hpp; CUDA events on the GPU, the steady clock on the
// CPU), with their min–max spread. GACT runs the
// ActNN kernels (its choice is a bit width per tensor), so its rows are the ActNN rows. Few-Bit's forward
// pass also writes f(x) and its backward reads the incoming gradient: both are counted in its bytes.
//
// usage: bench_compression [--device cpu|cuda] [--elements N] [--repetitions R]
#include <fmt/core.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ecosim/kernels/actnn.hpp"
#include "ecosim/kernels/fewbit.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/kernels/mesa.hpp"
#include "ecosim/kernels/philox.hpp"
#include "ecosim/kernels/timing.hpp"
#include "ecosim/ops_counter/error.hpp"

using namespace ecosim;
using namespace ecosim::kernels;

namespace {

struct Options {
  bool gpu = false;
  std::uint64_t elements = std::uint64_t{64} << 20;
  timing::Plan plan = timing::kGpuPlan;
};

Options parse(int argc, char** argv) {
  Options o;
  o.gpu = gpu::probe().available;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--device" && (value == "cpu" || value == "cuda"))
      o.gpu = value == "cuda";
    else if (key == "--elements")
      o.elements = std::stoull(value);
    else if (key == "--repetitions")
      o.plan.repetitions = std::max(1, std::stoi(value));
    else
      throw Error("usage: bench_compression [--device cpu|cuda] [--elements N] [--repetitions R]");
  }
  if (argc % 2 == 0) throw Error("usage: bench_compression [--device cpu|cuda] [--elements N] [--repetitions R]");
  if (o.gpu && !gpu::probe().available) throw Error("--device cuda: " + gpu::probe().reason);
  return o;
}

/// The plan's runs of `run` by the steady clock.
timing::Stats cpu_stats(const timing::Plan& plan, const std::function<void()>& run) {
  return timing::measure(plan, timing::kSteadyClock, [&] { return timing::steady_ms(run); });
}

/// CPU timings with the same meaning as the CUDA ones.
CudaTiming time_cpu(const TensorView& x, const timing::Plan& plan, const std::function<std::uint64_t()>& quantize,
                    const std::function<std::uint64_t()>& dequantize) {
  const std::uint64_t bytes = x.elements * (bits(x.dtype) / 8);
  std::vector<std::uint8_t> copy(bytes);
  CudaTiming t;
  t.input_bytes = bytes;
  t.quantize = cpu_stats(plan, [&] { t.compressed_bytes = quantize(); });
  t.dequantize = cpu_stats(plan, [&] { t.output_bytes = dequantize(); });
  t.copy = cpu_stats(plan, [&] { std::memcpy(copy.data(), x.data, bytes); });
  return t;
}

/// One row: median ms, its spread, GB/s at the median and the ratio to the copy's GB/s.
void print_row(const std::string& scheme, DType dtype, const char* pass, const timing::Stats& s, std::uint64_t bytes,
               double copy_gbs) {
  const double gbs = static_cast<double>(bytes) / s.median_ms / 1e6;
  fmt::print("{:<14} {:<5} {:<15} {:>10.3f} {:>19} {:>9.1f} {:>9.1f} {:>7.2f}\n", scheme, name(dtype), pass,
             s.median_ms, fmt::format("{:.3f}–{:.3f}", s.min_ms, s.max_ms), gbs, copy_gbs, gbs / copy_gbs);
}

/// `extra_bytes`: bytes each pass moves besides the compressed form and its input/output (Few-Bit: f(x)
/// written by the forward pass, the incoming gradient read by the backward pass).
void print_rows(const std::string& scheme, DType dtype, const CudaTiming& t, std::uint64_t extra_bytes = 0) {
  const double copy_gbs = 2.0 * static_cast<double>(t.input_bytes) / t.copy.median_ms / 1e6;
  print_row(scheme, dtype, "quantize+pack", t.quantize, t.input_bytes + t.compressed_bytes + extra_bytes, copy_gbs);
  print_row(scheme, dtype, "unpack", t.dequantize, t.compressed_bytes + t.output_bytes + extra_bytes, copy_gbs);
}

void run(const Options& o) {
  std::vector<float> values(o.elements);
  for (std::uint64_t i = 0; i < o.elements; ++i) values[i] = rng::normal(1, 0, i);
  fmt::print(
      "bench_compression: {} elements on {}, median of {} runs after {} warm-up ({}; GB/s = bytes read + "
      "written per second at the median; ratio = GB/s / copy GB/s, copy = {})\n",
      o.elements, o.gpu ? gpu::probe().device_name : "CPU", o.plan.repetitions, o.plan.warmup,
      o.gpu ? timing::kCudaEvents : timing::kSteadyClock, o.gpu ? "cudaMemcpy device-to-device" : "std::memcpy");
  fmt::print("{:<14} {:<5} {:<15} {:>10} {:>19} {:>9} {:>9} {:>7}\n", "scheme", "dtype", "pass", "median ms",
             "min–max ms", "GB/s", "copy GB/s", "ratio");
  for (DType dtype : {DType::fp32, DType::fp16, DType::bf16}) {
    const std::vector<std::uint8_t> bytes = encode(values, dtype);
    const TensorView x{bytes.data(), dtype, o.elements};
    for (unsigned b : {1u, 2u, 4u, 8u}) {
      const actnn::Layout layout = actnn::Layout::uniform(o.elements, b);
      actnn::Compressed c;
      const CudaTiming t = o.gpu ? actnn::time_cuda(x, layout, o.plan)
                                 : time_cpu(
                                       x, o.plan,
                                       [&] {
                                         c = actnn::quantize_cpu(x, layout, 1);
                                         return c.storage_bytes();
                                       },
                                       [&] { return 4 * actnn::dequantize_cpu(c).size(); });
      print_rows(fmt::format("actnn {}-bit", b), dtype, t);
    }
    const mesa::Layout heads{1, 1, o.elements};
    mesa::Compressed m;
    const CudaTiming tm = o.gpu ? mesa::time_cuda(x, heads, o.plan)
                                : time_cpu(
                                      x, o.plan,
                                      [&] {
                                        mesa::State s;
                                        m = mesa::quantize_cpu(x, heads, s, 1);
                                        return m.storage_bytes();
                                      },
                                      [&] { return 4 * mesa::dequantize_cpu(m).size(); });
    print_rows("mesa 8-bit", dtype, tm);
    for (unsigned b : {1u, 2u, 3u, 4u}) {
      const fewbit::Codebook book = fewbit::Codebook::from(fewbit::solve(fewbit::Activation::gelu, b, {10.0, 2000}));
      std::optional<fewbit::Forward> f;
      const CudaTiming tf = o.gpu ? fewbit::time_cuda(book, x, o.plan)
                                  : time_cpu(
                                        x, o.plan,
                                        [&] {
                                          f = fewbit::forward_cpu(book, x);
                                          return f->codes.size();
                                        },
                                        [&] { return fewbit::backward_cpu(book, f->codes, x).bytes.size(); });
      print_rows(fmt::format("fewbit {}-bit", b), dtype, tf, tf.input_bytes);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    run(parse(argc, argv));
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_compression: error: {}\n", e.what());
    return 1;
  }
}
