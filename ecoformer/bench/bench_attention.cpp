// bench_attention: EcoFormer hashed attention vs MSA (fp32, and fp16 inputs) vs Performer at N ∈ {1024, 3136, 4096,
// 16384}, D ∈ {32, 64}, B·H = 16 (B = 1, H = 16), on the GPU when present, else on the CPU reference kernels (the table
// says which). Prints each kernel's best time, its ratio to MSA measured in the same run, and the fraction of the
// bandwidth bound: the time to copy the bytes of Q, K, V and O (a device-to-device copy, or memcpy on the CPU) divided
// by the kernel's time.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "copy_time.hpp"
#include "ecosim/ecoformer/msa_fp16.hpp"
#include "ecosim/ecoformer/run.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/op_counter.hpp"

namespace {

using namespace ecosim;
using ecoformer::Device;

struct Options {
  std::string device = "auto";
  bool quick = false;
  int repeats = 0;  // 0: 5 on the GPU, 1 on the CPU
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

/// Best kernel time over `repeats` runs (after one warm-up run on the GPU).
double best_ms(const ecoformer::AttentionInputs& in, const AttentionConfig& c, Device device, int repeats, bool fp16) {
  double best = std::numeric_limits<double>::infinity();
  for (int r = device == Device::cuda ? -1 : 0; r < repeats; ++r) {
    OpCounter discard;
    const double ms = fp16 ? ecoformer::run_msa_fp16(in, c, device, discard).latency_ms
                           : ecoformer::run_attention(in, c, device, 1, discard).latency_ms;
    if (r >= 0) best = std::min(best, ms);
  }
  return best;
}

int run(const Options& o) {
  const gpu::Availability gpu = gpu::probe();
  if (o.device == "cuda" && !gpu.available) throw Error("--device cuda: no GPU (" + gpu.reason + ")");
  const Device device = o.device != "cpu" && gpu.available ? Device::cuda : Device::cpu;
  const int repeats = o.repeats ? o.repeats : device == Device::cuda ? 5 : 1;
  const std::string where = device == Device::cuda
                                ? "GPU " + gpu.device_name
                                : "CPU (reference kernels, single thread" +
                                      (gpu.available ? std::string(")") : "; no GPU: " + gpu.reason + ")");
  std::printf("bench_attention on %s, B = 1, H = 16, best of %d\n", where.c_str(), repeats);
  std::printf("bound = time to copy the bytes of Q, K, V and O (%s); bound fraction = bound / kernel time\n\n",
              device == Device::cuda ? "cudaMemcpy device to device" : "memcpy");
  std::printf("%6s %4s  %-10s %12s %10s %10s %12s\n", "N", "D", "variant", "time_ms", "vs MSA", "bound_ms",
              "bound frac");
  const std::vector<std::uint64_t> seqs =
      o.quick ? std::vector<std::uint64_t>{1024, 3136} : std::vector<std::uint64_t>{1024, 3136, 4096, 16384};
  for (std::uint64_t n : seqs)
    for (std::uint64_t d : {32, 64}) {
      AttentionConfig c;
      c.batch = 1, c.heads = 16, c.seq = n, c.head_dim = d, c.projections = false;
      const ecoformer::AttentionInputs in = ecoformer::synthetic_inputs(c, 1);
      const std::uint64_t bytes = 4 * in.q.data.size() * sizeof(float);  // Q, K, V read and O written
      const double bound_ms = bench::copy_time_ms(bytes, device, std::max(repeats, 3));
      double msa_ms = 0;
      const std::pair<AttentionVariant, bool> kernels[] = {{AttentionVariant::msa, false},
                                                           {AttentionVariant::msa, true},
                                                           {AttentionVariant::performer, false},
                                                           {AttentionVariant::ecoformer, false}};
      for (const auto& [v, fp16] : kernels) {
        c.variant = v;
        const double ms = best_ms(in, c, device, repeats, fp16);
        if (v == AttentionVariant::msa && !fp16) msa_ms = ms;
        const std::string label = std::string(name(v)) + (fp16 ? "-fp16" : "");
        std::printf("%6llu %4llu  %-10s %12.3f %9.3fx %10.4f %12.4f\n", static_cast<unsigned long long>(n),
                    static_cast<unsigned long long>(d), label.c_str(), ms, ms / msa_ms, bound_ms, bound_ms / ms);
        std::fflush(stdout);
      }
    }
  std::printf(
      "\n'vs MSA' = time / fp32 MSA time in this run (below 1 is faster); msa-fp16 reads fp16 Q, K, V "
      "(the bound is for fp32 tensors throughout).\n");
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
