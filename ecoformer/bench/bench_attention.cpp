// bench_attention: EcoFormer hashed attention vs MSA (fp32, and fp16 inputs) vs Performer at N ∈ --seqs (default
// 1024, 3136, 4096, 16384, 65536), D ∈ --dims (default 32, 64), B·H = 16 (B = 1, H = 16), on the GPU when present,
// else on the CPU reference kernels (the table says which), and on the GPU the cuBLAS baseline (library_attention.hpp).
// Prints each kernel's median time and spread (timing.hpp: warm-up runs, then repetitions; CUDA events on the GPU,
// the steady clock on the CPU; op records delivered after each run's timer), its ratio to fp32 MSA measured in the
// same run, and the fraction of the bandwidth bound: the time of a copy moving the traffic of reading Q, K, V and
// writing O in the kernel's dtypes (copy_time.hpp: a device-to-device copy, or memcpy on the CPU) divided by the
// kernel's time. A case that cannot run (memory, a kernel's limit) or would take longer than
// --max-seconds-per-case is "n/a" with the reason; --json FILE writes every case (bench_records.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench_records.hpp"
#include "copy_time.hpp"
#include "ecosim/ecoformer/kernel_parameters.hpp"
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

constexpr std::uint64_t kHeads = 16;  // B = 1: batch·heads = 16
constexpr std::uint64_t kQuickMaxSeq = 3136;

/// Assumed GPU rates (H100) for the estimate made before a quadratic kernel runs, to skip what would exceed the
/// cap: the in-house MSA, one thread per query row on CUDA cores, ~15 TFLOP/s; cuBLAS SGEMM without TF32
/// ~50 TFLOP/s (the FP32 peak is 67). Memory traffic is priced at the bandwidth of the bound's measured copy.
constexpr double kMsaFlopPerS = 15e12, kSgemmFlopPerS = 50e12;

const char* const kUsage =
    "usage: bench_attention [--device auto|cpu|cuda] [--quick (N <= 3136)] [--repeats R] [--seqs N,N,...]\n"
    "                       [--dims D,D,...] [--max-seconds-per-case S (default 10)] [--max-seconds S]\n"
    "                       [--json FILE]\n"
    "B = 1, H = 16; default --seqs 1024,3136,4096,16384,65536 --dims 32,64. A case (kernel, dtype, N, D) whose\n"
    "runs (warm-up and repetitions) are estimated (FLOPs at assumed GPU rates, then the wall time of its first\n"
    "run) to exceed the cap, the smaller of --max-seconds-per-case and what is left of --max-seconds (the whole\n"
    "run; default no limit), is reported as n/a with the estimate; 0 means no cap. --json FILE writes one record\n"
    "per case, atomically (FILE.tmp renamed to FILE), at the start and after every (N, D).\n";

struct Options {
  std::string device = "auto";
  int repeats = 0;  // 0: timing::kGpuPlan on the GPU, one run on the CPU (the references take seconds)
  std::vector<std::uint64_t> seqs{1024, 3136, 4096, 16384, 65536};
  std::vector<std::uint64_t> dims{32, 64};
  double max_seconds_per_case = 10;
  double max_seconds = 0;  // the whole run; 0: no limit
  std::string json;
  bool help = false;
};

std::vector<std::uint64_t> positive_list(const std::string& flag, const std::string& text) {
  std::vector<std::uint64_t> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 9 ||
        std::stoull(item) == 0)
      throw Error(flag + " needs a comma-separated list of positive integers, got '" + text + "'");
    values.push_back(std::stoull(item));
    start = comma + 1;
  }
  return values;
}

Options parse(int argc, char** argv) {
  Options o;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else if (arg == "--quick") {
      quick = true;
    } else if (arg == "--device" && has_value) {
      o.device = argv[++i];
    } else if (arg == "--repeats" && has_value) {
      o.repeats = std::stoi(argv[++i]);
      if (o.repeats < 1) throw Error("--repeats must be ≥ 1");
    } else if ((arg == "--seqs" || arg == "--dims") && has_value) {
      (arg == "--seqs" ? o.seqs : o.dims) = positive_list(arg, argv[++i]);
    } else if ((arg == "--max-seconds-per-case" || arg == "--max-seconds") && has_value) {
      double& seconds = arg == "--max-seconds" ? o.max_seconds : o.max_seconds_per_case;
      seconds = std::stod(argv[++i]);
      if (!(seconds >= 0) || !std::isfinite(seconds)) throw Error(arg + " must be a number ≥ 0");
    } else if (arg == "--json" && has_value) {
      o.json = argv[++i];
    } else {
      throw Error(std::string("unknown or incomplete option '") + arg + "'\n" + kUsage);
    }
  }
  if (o.device != "auto" && o.device != "cpu" && o.device != "cuda") throw Error("--device must be auto, cpu or cuda");
  if (quick) std::erase_if(o.seqs, [](std::uint64_t n) { return n > kQuickMaxSeq; });
  return o;
}

/// One (N, D) shape's context: where and how long to run, and the measured copy bandwidth for estimates.
struct Shape {
  AttentionConfig config;
  Device device = Device::cpu;
  timing::Plan plan;
  double cap_s = 0;             // 0: no cap; negative: --max-seconds spent
  double copy_bytes_per_s = 0;  // traffic per second of the bound's copy (read + write)
};

int runs(const timing::Plan& plan) { return plan.warmup + plan.repetitions; }

/// FLOPs of softmax attention on the shape: Q·Kᵀ and P·V, each G·N²·D multiply-adds.
double attention_flop(const AttentionConfig& c) {
  return 4.0 * static_cast<double>(c.batch * c.heads) * static_cast<double>(c.seq) * static_cast<double>(c.seq) *
         static_cast<double>(c.head_dim);
}

/// The plan's timing by `timed`, unless its runs would exceed the cap: first by `estimate_run_s` (one run's
/// estimated seconds, 0 when there is none, with `estimate_basis` saying how it was made), then by the wall time
/// of the first run (transfers included): the first warm-up run, or with no warm-up and one repetition the
/// measured run itself. Empty with `reason` set when skipped.
std::optional<timing::Stats> capped(const Shape& s, double estimate_run_s, const std::string& estimate_basis,
                                    const std::function<timing::Stats(const timing::Plan&)>& timed,
                                    std::string& reason) {
  const int total = runs(s.plan);
  if (s.cap_s < 0) {
    reason = "--max-seconds spent";
    return std::nullopt;
  }
  char text[256];
  if (s.cap_s > 0 && estimate_run_s * total > s.cap_s) {
    std::snprintf(text, sizeof text, "estimated %.3g s for %d runs (%s) > cap %.3g s", estimate_run_s * total, total,
                  estimate_basis.c_str(), s.cap_s);
    reason = text;
    return std::nullopt;
  }
  const bool first_is_all = s.plan.warmup == 0 && s.plan.repetitions == 1;
  if (s.cap_s <= 0 || (s.plan.warmup < 1 && !first_is_all)) return timed(s.plan);
  timing::Stats first;
  const double first_s = timing::steady_ms([&] { first = timed(timing::Plan{0, 1}); }) / 1000;
  if (first_is_all) return first;
  if (first_s * total > s.cap_s) {
    std::snprintf(text, sizeof text, "first run took %.3g s wall: %d runs ~ %.3g s > cap %.3g s", first_s, total,
                  first_s * total, s.cap_s);
    reason = text;
    return std::nullopt;
  }
  return timed(timing::Plan{s.plan.warmup - 1, s.plan.repetitions});
}

/// The in-house kernels' record (fp16: MSA on fp16 inputs).
bench::Record kernel_record(const ecoformer::AttentionInputs& in, const Shape& s, AttentionVariant v, bool fp16) {
  AttentionConfig c = s.config;
  c.variant = v;
  bench::Record r{std::string(name(v)), fp16 ? "fp16" : "fp32", c.seq, c.head_dim, c.batch * c.heads, {}, "", 0};
  double estimate_s = 0;
  char basis[96] = "";
  if (s.device == Device::cuda && v == AttentionVariant::msa) {
    estimate_s = attention_flop(c) / kMsaFlopPerS;
    std::snprintf(basis, sizeof basis, "4·G·N²·D FLOP at an assumed %.0f TFLOP/s", kMsaFlopPerS / 1e12);
  }
  try {
    // drawn once, not in every run: EcoFormer learns its hash projections on the host (~0.4 s a draw)
    const ecoformer::KernelParameters parameters =
        fp16 || s.cap_s < 0 ? ecoformer::KernelParameters{} : ecoformer::draw_kernel_parameters(in, c, 1);
    r.time = capped(
        s, estimate_s, basis,
        [&](const timing::Plan& plan) {
          return ecoformer::time_runs(plan, s.device, [&](OpSink& sink) {
            return fp16 ? ecoformer::run_msa_fp16(in, c, s.device, sink)
                        : ecoformer::run_attention(in, c, s.device, parameters, sink);
          });
        },
        r.reason);
  } catch (const std::exception& e) {  // ecosim::Error (CUDA errors included), std::bad_alloc
    r.reason = e.what();
  }
  return r;
}

#if ECOSIM_HAS_CUDA
/// The cuBLAS baseline's record, and a warning when its output differs from ecosim's MSA on the GPU by more than
/// MSA's tolerance (1e-5 of max |O|, with headroom for the library's summation order: 1e-4); the check runs
/// ecosim's MSA once more, so only when MSA itself was measured.
bench::Record cublas_record(const ecoformer::AttentionInputs& in, const Shape& s, bool msa_measured) {
  AttentionConfig c = s.config;
  bench::Record r{"cublas-msa", "fp32", c.seq, c.head_dim, c.batch * c.heads, {}, "", 0};
  try {
    if (s.cap_s >= 0) r.reason = ecoformer::library_attention_unfit(c.batch * c.heads, c.seq, c.head_dim);
    if (!r.reason.empty()) return r;
    // S written by the first GEMM, read 3 and written 2 times by the softmax, read by the second GEMM
    const double score_bytes = 7.0 * sizeof(float) * static_cast<double>(c.batch * c.heads * c.seq * c.seq);
    const double estimate_s = attention_flop(c) / kSgemmFlopPerS + score_bytes / s.copy_bytes_per_s;
    std::vector<float> out;
    char basis[128];
    std::snprintf(basis, sizeof basis,
                  "SGEMMs at an assumed %.0f TFLOP/s, 7 passes over the scores at the copy's bandwidth",
                  kSgemmFlopPerS / 1e12);
    r.time = capped(
        s, estimate_s, basis,
        [&](const timing::Plan& plan) {
          ecoformer::LibraryAttention lib = ecoformer::library_attention_cuda(in, plan);
          out = std::move(lib.out);
          return lib.time;
        },
        r.reason);
    if (!r.time || !msa_measured) return r;
    c.variant = AttentionVariant::msa;
    OpCounter discard;
    const std::vector<float> ours = ecoformer::run_attention(in, c, Device::cuda, 1, discard).out.data;
    double worst = 0, largest = 0;
    for (std::size_t i = 0; i < ours.size(); ++i) {
      worst = std::max(worst, std::fabs(static_cast<double>(out[i]) - ours[i]));
      largest = std::max(largest, std::fabs(static_cast<double>(ours[i])));
    }
    if (worst > 1e-4 * largest)
      std::printf("  warning: cublas-msa at N = %llu, D = %llu differs from msa by %.3g of max |O|\n",
                  static_cast<unsigned long long>(c.seq), static_cast<unsigned long long>(c.head_dim), worst / largest);
  } catch (const std::exception& e) {
    r.time.reset();
    r.reason = e.what();
  }
  return r;
}
#endif

/// One row of the table: the median, its spread, the ratio to fp32 MSA's median (when measured) and the bound
/// fraction; or n/a and the reason.
void print_row(const bench::Record& r, const std::optional<double>& msa_ms) {
  const std::string label = r.kernel + (r.dtype == "fp16" ? "-fp16" : "");
  const auto n = static_cast<unsigned long long>(r.n), d = static_cast<unsigned long long>(r.d);
  if (!r.time) {
    std::printf("%6llu %4llu  %-10s n/a (%s)\n", n, d, label.c_str(), r.reason.c_str());
  } else {
    const timing::Stats& t = *r.time;
    char spread[48], ratio[24] = "n/a";
    std::snprintf(spread, sizeof spread, "%.3f-%.3f", t.min_ms, t.max_ms);
    if (msa_ms) std::snprintf(ratio, sizeof ratio, "%.3fx", t.median_ms / *msa_ms);
    std::printf("%6llu %4llu  %-10s %12.3f %21s %10s %10.4f %12.4f\n", n, d, label.c_str(), t.median_ms, spread, ratio,
                r.bound_ms, r.bound_ms / t.median_ms);
  }
  std::fflush(stdout);
}

int run(const Options& o) {
  if (o.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const gpu::Availability gpu = gpu::probe();
  if (o.device == "cuda" && !gpu.available) throw Error("--device cuda: no GPU (" + gpu.reason + ")");
  const Device device = o.device != "cpu" && gpu.available ? Device::cuda : Device::cpu;
  timing::Plan plan = device == Device::cuda ? timing::kGpuPlan : timing::Plan{0, 1};
  if (o.repeats) plan.repetitions = o.repeats;
  const std::string where = device == Device::cuda
                                ? "GPU " + gpu.device_name
                                : "CPU (reference kernels, single thread" +
                                      (gpu.available ? std::string(")") : "; no GPU: " + gpu.reason + ")");
  const char* const method = device == Device::cuda ? timing::kCudaEvents : timing::kSteadyClock;
  std::printf("bench_attention on %s, B = 1, H = %llu, median of %d runs after %d warm-up (%s)\n", where.c_str(),
              static_cast<unsigned long long>(kHeads), plan.repetitions, plan.warmup, method);
  std::printf(
      "bound = time of a copy moving the traffic of reading Q, K, V and writing O in the kernel's dtypes (%s of half "
      "their bytes); bound frac = bound / kernel time; cap %.1f s per case, %.1f s in all (0: none)\n\n",
      device == Device::cuda ? "cudaMemcpy device to device" : "memcpy", o.max_seconds_per_case, o.max_seconds);
  std::printf("%6s %4s  %-10s %12s %21s %10s %10s %12s\n", "N", "D", "variant", "median_ms", "min-max ms", "vs MSA",
              "bound_ms", "bound frac");
  const bench::RecordsHeader header{"bench_attention", where, method, plan, o.max_seconds_per_case, o.max_seconds};
  std::vector<bench::Record> records;
  if (!o.json.empty()) bench::write_records(o.json, header, records);  // a run cut short leaves a valid file
  const auto started = std::chrono::steady_clock::now();
  // The next case's cap: the smaller of --max-seconds-per-case and what is left of --max-seconds (0: no cap);
  // negative once --max-seconds is spent.
  const auto cap_now = [&] {
    if (o.max_seconds <= 0) return o.max_seconds_per_case;
    const double left =
        o.max_seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (left <= 0) return -1.0;
    return o.max_seconds_per_case > 0 ? std::min(left, o.max_seconds_per_case) : left;
  };
  for (std::uint64_t n : o.seqs)
    for (std::uint64_t d : o.dims) {
      Shape s;
      s.config.batch = 1, s.config.heads = kHeads, s.config.seq = n, s.config.head_dim = d;
      s.config.projections = false;
      s.device = device, s.plan = plan, s.cap_s = cap_now();
      const bool spent = s.cap_s < 0;  // then no inputs, no bound: every case of the shape is n/a
      const ecoformer::AttentionInputs in =
          spent ? ecoformer::AttentionInputs{} : ecoformer::synthetic_inputs(s.config, 1);
      const std::uint64_t elements = in.q.data.size();
      const double fp32_bound_ms =
          spent ? 0 : bench::copy_time(bench::bound_copy_bytes(elements), device, plan).median_ms;
      const double fp16_bound_ms =
          spent ? 0 : bench::copy_time(bench::bound_copy_bytes(elements, 2, 4), device, plan).median_ms;
      s.copy_bytes_per_s = 2.0 * static_cast<double>(bench::bound_copy_bytes(elements)) / (fp32_bound_ms / 1000);
      std::optional<double> msa_ms;
      const std::pair<AttentionVariant, bool> kernels[] = {{AttentionVariant::msa, false},
                                                           {AttentionVariant::msa, true},
                                                           {AttentionVariant::performer, false},
                                                           {AttentionVariant::ecoformer, false}};
      for (const auto& [v, fp16] : kernels) {
        if (!spent) s.cap_s = cap_now();
        bench::Record r = kernel_record(in, s, v, fp16);
        r.bound_ms = fp16 ? fp16_bound_ms : fp32_bound_ms;
        if (v == AttentionVariant::msa && !fp16 && r.time) msa_ms = r.time->median_ms;
        print_row(r, msa_ms);
        records.push_back(std::move(r));
      }
#if ECOSIM_HAS_CUDA
      if (device == Device::cuda) {
        if (!spent) s.cap_s = cap_now();
        bench::Record r = cublas_record(in, s, msa_ms.has_value());
        r.bound_ms = fp32_bound_ms;
        print_row(r, msa_ms);
        records.push_back(std::move(r));
      }
#endif
      if (!o.json.empty()) bench::write_records(o.json, header, records);
    }
  std::printf(
      "\n'vs MSA' = time / fp32 MSA time in this run (below 1 is faster); msa-fp16 reads fp16 Q, K, V and writes fp32 "
      "O (its bound likewise); cublas-msa (GPU only) = cuBLAS SGEMM, softmax, SGEMM with the scores in device "
      "memory.\n");
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
