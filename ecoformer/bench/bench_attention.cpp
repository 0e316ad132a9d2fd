// bench_attention: EcoFormer hashed attention vs MSA (fp32, and fp16 inputs) vs Performer at N ∈ {1024, 3136, 4096,
// 16384}, D ∈ {32, 64}, B·H = 16 (B = 1, H = 16), on the GPU when present, else on the CPU reference kernels (the table
// says which), and on the GPU the cuBLAS baseline (library_attention.hpp). Prints each kernel's median time and spread
// (timing.hpp: warm-up runs, then repetitions; CUDA events on the GPU, the steady clock on the CPU; op records
// delivered after each run's timer), its ratio to MSA measured in the same run, and the fraction of the bandwidth
// bound: the time of a copy moving the traffic of reading Q, K, V and writing O (copy_time.hpp: a device-to-device
// copy, or memcpy on the CPU) divided by the kernel's time.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "copy_time.hpp"
#include "ecosim/ecoformer/library_attention.hpp"
#include "ecosim/ecoformer/msa_fp16.hpp"
#include "ecosim/ecoformer/run.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/kernels/timing.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/op_counter.hpp"

namespace {

using namespace ecosim;
using ecoformer::Device;

struct Options {
  std::string device = "auto";
  bool quick = false;
  int repeats = 0;  // 0: timing::kGpuPlan on the GPU, one run on the CPU (the references take seconds)
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      o.quick = true;
    } else if (arg == "--device" && i + 1 < argc) {
      o.device = argv[++i];
    } else if (arg == "--repeats" && i + 1 < argc) {
      o.repeats = std::stoi(argv[++i]);
      if (o.repeats < 1) throw Error("--repeats must be ≥ 1");
    } else {
      throw Error("usage: bench_attention [--device auto|cpu|cuda] [--quick (N ≤ 3136)] [--repeats R]; got '" + arg +
                  "'");
    }
  }
  if (o.device != "auto" && o.device != "cpu" && o.device != "cuda") throw Error("--device must be auto, cpu or cuda");
  return o;
}

/// The kernel's timing by the plan (fp16: MSA on fp16 inputs).
timing::Stats kernel_time(const ecoformer::AttentionInputs& in, const AttentionConfig& c, Device device,
                          const timing::Plan& plan, bool fp16) {
  return ecoformer::time_runs(plan, device, [&](OpSink& sink) {
    return fp16 ? ecoformer::run_msa_fp16(in, c, device, sink) : ecoformer::run_attention(in, c, device, 1, sink);
  });
}

/// One row of the table: the median, its spread, the ratio to fp32 MSA's median and the bound fraction.
void print_row(std::uint64_t n, std::uint64_t d, const std::string& label, const timing::Stats& t, double msa_ms,
               double bound_ms) {
  char spread[48];
  std::snprintf(spread, sizeof spread, "%.3f-%.3f", t.min_ms, t.max_ms);
  std::printf("%6llu %4llu  %-10s %12.3f %21s %9.3fx %10.4f %12.4f\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(d), label.c_str(), t.median_ms, spread, t.median_ms / msa_ms, bound_ms,
              bound_ms / t.median_ms);
  std::fflush(stdout);
}

#if ECOSIM_HAS_CUDA
/// The cuBLAS baseline's row, and a warning when its output differs from ecosim's MSA on the GPU by more than
/// MSA's tolerance (1e-5 of max |O|, with headroom for the library's summation order: 1e-4).
void print_cublas_row(const ecoformer::AttentionInputs& in, AttentionConfig c, const timing::Plan& plan, double msa_ms,
                      double bound_ms) {
  try {
    const ecoformer::LibraryAttention lib = ecoformer::library_attention_cuda(in, plan);
    c.variant = AttentionVariant::msa;
    OpCounter discard;
    const std::vector<float> ours = ecoformer::run_attention(in, c, Device::cuda, 1, discard).out.data;
    double worst = 0, largest = 0;
    for (std::size_t i = 0; i < ours.size(); ++i) {
      worst = std::max(worst, std::fabs(static_cast<double>(lib.out[i]) - ours[i]));
      largest = std::max(largest, std::fabs(static_cast<double>(ours[i])));
    }
    print_row(c.seq, c.head_dim, "cublas-msa", lib.time, msa_ms, bound_ms);
    if (worst > 1e-4 * largest)
      std::printf("  warning: cublas-msa differs from msa by %.3g of max |O|\n", worst / largest);
  } catch (const Error& e) {
    std::printf("%6llu %4llu  %-10s unavailable: %s\n", static_cast<unsigned long long>(c.seq),
                static_cast<unsigned long long>(c.head_dim), "cublas-msa", e.what());
  }
}
#endif

int run(const Options& o) {
  const gpu::Availability gpu = gpu::probe();
  if (o.device == "cuda" && !gpu.available) throw Error("--device cuda: no GPU (" + gpu.reason + ")");
  const Device device = o.device != "cpu" && gpu.available ? Device::cuda : Device::cpu;
  timing::Plan plan = device == Device::cuda ? timing::kGpuPlan : timing::Plan{0, 1};
  if (o.repeats) plan.repetitions = o.repeats;
  const std::string where = device == Device::cuda
                                ? "GPU " + gpu.device_name
                                : "CPU (reference kernels, single thread" +
                                      (gpu.available ? std::string(")") : "; no GPU: " + gpu.reason + ")");
  std::printf("bench_attention on %s, B = 1, H = 16, median of %d runs after %d warm-up (%s)\n", where.c_str(),
              plan.repetitions, plan.warmup, device == Device::cuda ? timing::kCudaEvents : timing::kSteadyClock);
  std::printf(
      "bound = time of a copy moving the traffic of reading Q, K, V and writing O (%s of half their bytes); bound "
      "fraction = bound / kernel time\n\n",
      device == Device::cuda ? "cudaMemcpy device to device" : "memcpy");
  std::printf("%6s %4s  %-10s %12s %21s %10s %10s %12s\n", "N", "D", "variant", "median_ms", "min-max ms", "vs MSA",
              "bound_ms", "bound frac");
  const std::vector<std::uint64_t> seqs =
      o.quick ? std::vector<std::uint64_t>{1024, 3136} : std::vector<std::uint64_t>{1024, 3136, 4096, 16384};
  for (std::uint64_t n : seqs)
    for (std::uint64_t d : {32, 64}) {
      AttentionConfig c;
      c.batch = 1, c.heads = 16, c.seq = n, c.head_dim = d, c.projections = false;
      const ecoformer::AttentionInputs in = ecoformer::synthetic_inputs(c, 1);
      const double bound_ms = bench::copy_time(bench::bound_copy_bytes(in.q.data.size()), device, plan).median_ms;
      double msa_ms = 0;
      const std::pair<AttentionVariant, bool> kernels[] = {{AttentionVariant::msa, false},
                                                           {AttentionVariant::msa, true},
                                                           {AttentionVariant::performer, false},
                                                           {AttentionVariant::ecoformer, false}};
      for (const auto& [v, fp16] : kernels) {
        c.variant = v;
        const timing::Stats t = kernel_time(in, c, device, plan, fp16);
        if (v == AttentionVariant::msa && !fp16) msa_ms = t.median_ms;
        print_row(n, d, std::string(name(v)) + (fp16 ? "-fp16" : ""), t, msa_ms, bound_ms);
      }
#if ECOSIM_HAS_CUDA
      if (device == Device::cuda) print_cublas_row(in, c, plan, msa_ms, bound_ms);
#endif
    }
  std::printf(
      "\n'vs MSA' = time / fp32 MSA time in this run (below 1 is faster); msa-fp16 reads fp16 Q, K, V "
      "(the bound is for fp32 tensors throughout); cublas-msa (GPU only) = cuBLAS SGEMM, softmax, SGEMM with the "
      "scores in device memory.\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_attention: error: %s\n", e.what());
    return 1;
  }
}
