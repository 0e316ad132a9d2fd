// `ecosim gpu-time`: the modelled latency of one operation on a named GPU (accel_model's GPU model): attention
// in the FlashAttention-2/3, cuDNN, materialised or ecosim style, a GEMM, or a bandwidth-bound kernel.
#include <fmt/core.h>

#include <iostream>

#include <nlohmann/json.hpp>

#include "ecosim/accel_model/gpu/kernel_model.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/sim/commands.hpp"
#include "workload.hpp"

namespace ecosim::cli {

namespace {

constexpr const char* kUsage =
    "ecosim gpu-time [--gpu NAME | --gpu-file PATH] --op attention --impl flash2|flash3|cudnn|naive|sdpa-math|ecosim "
    "--batch B --heads H [--kv-heads K] --seq N [--kv-seq N] --dim D [--causal] [--pass fwd|bwd|fwd+bwd] "
    "[--dtype fp16|bf16|fp32 (naive, sdpa-math, ecosim)] [--timed kernel|pytorch-call|cuda-call]\n"
    "       ecosim gpu-time [--gpu NAME] --op gemm --m M --n N --k K [--dtype fp32|tf32|fp16|bf16|fp8]\n"
    "       ecosim gpu-time [--gpu NAME] --op copy|softmax|rmsnorm --rows R --cols C [--dtype D] [--timed ...]";

struct Timed {
  std::string what;
  gpu::KernelTime time;
};

/// How the operation's line names a --timed other than the kernels alone.
std::string_view timed_note(gpu::Timed timed) {
  switch (timed) {
    case gpu::Timed::kernel: return "";
    case gpu::Timed::pytorch_call: return ", timed as one PyTorch call";
    case gpu::Timed::cuda_call: return ", timed as one CUDA call";
  }
  return "";
}

Timed time_op(const po::variables_map& vm, const gpu::GpuSpec& g, const std::string& op, gpu::DType dtype) {
  const gpu::KernelModel& model = gpu::KernelModel::builtin();
  const gpu::Timed timed = gpu::parse_timed(vm["timed"].as<std::string>());
  if (op == "attention") {
    reject_given(vm, {"m", "n", "k", "rows", "cols"}, "--op gemm and the bandwidth-bound ops");
    for (const char* key : {"batch", "heads", "seq", "dim"})
      if (!vm.count(key)) throw Error(fmt::format("--op attention needs --{}", key));
    const std::string pass = vm["pass"].as<std::string>();
    gpu::AttentionShape s{positive(vm, "batch"),
                          positive(vm, "heads"),
                          positive(vm, "seq"),
                          vm.count("kv-seq") ? positive(vm, "kv-seq") : 0,
                          positive(vm, "dim"),
                          vm.count("causal") > 0,
                          false,
                          dtype};
    if (vm.count("window")) s.window = positive(vm, "window");
    if (vm.count("kv-heads")) s.kv_heads = positive(vm, "kv-heads");
    gpu::set_attention_pass(s, pass);
    const gpu::AttentionImpl impl = gpu::parse_attention_impl(vm["impl"].as<std::string>());
    return {fmt::format("attention {} {}{}{}, B {} H {}{} N {} Nkv {} D {} {}{}", gpu::attention_impl_name(impl), pass,
                        s.causal ? " causal" : "", s.window ? fmt::format(" window {}", s.window) : "", s.batch,
                        s.heads, s.kv_heads ? fmt::format(" Hkv {}", s.kv_heads) : "", s.seq,
                        s.kv_seq ? s.kv_seq : s.seq, s.dim, gpu::dtype_name(dtype), timed_note(timed)),
            model.timed(model.attention(g, impl, s), timed)};
  }
  reject_given(vm, {"impl", "batch", "heads", "kv-heads", "seq", "kv-seq", "dim", "causal", "window", "pass"},
               "--op attention");
  if (op == "gemm") {
    if (!vm["timed"].defaulted()) throw Error("--timed applies to --op attention and the bandwidth-bound ops");
    reject_given(vm, {"rows", "cols"}, "the bandwidth-bound ops");
    for (const char* key : {"m", "n", "k"})
      if (!vm.count(key)) throw Error(fmt::format("--op gemm needs --{}", key));
    const gpu::GemmShape s{positive(vm, "m"), positive(vm, "n"), positive(vm, "k"), 1, dtype};
    const gpu::KernelTime t = model.gemm(g, s);
    // (here, not in the model: a convolution priced as its im2col GEMM states more operand bytes than it holds)
    if (t.bytes > double(g.memory_bytes))
      throw Error(fmt::format("the GEMM's operands and output ({:.1f} GB) need more memory than the {} has ({:.1f} GB)",
                              t.bytes / 1e9, g.name, double(g.memory_bytes) / 1e9));
    return {fmt::format("gemm {} x {} x {} {}", s.m, s.n, s.k, gpu::dtype_name(dtype)), t};
  }
  const gpu::BandwidthOp bandwidth_op = gpu::parse_bandwidth_op(op);
  reject_given(vm, {"m", "n", "k"}, "--op gemm");
  for (const char* key : {"rows", "cols"})
    if (!vm.count(key)) throw Error(fmt::format("--op {} needs --{}", op, key));
  const gpu::RowsShape s{positive(vm, "rows"), positive(vm, "cols"), dtype};
  return {fmt::format("{} {} x {} {}{}", op, s.rows, s.cols, gpu::dtype_name(dtype), timed_note(timed)),
          model.timed(model.bandwidth(g, bandwidth_op, s), timed)};
}

}  // namespace

int gpu_time(const Args& args) {
  po::options_description options("ecosim gpu-time");
  options.add_options()("help,h", "this help")("gpu", po::value<std::string>()->default_value("h100-sxm"),
                                               "a100-sxm, h100-sxm, h100-pcie, h200, l4, rtx4090")(
      "gpu-file", po::value<std::string>(),
      "a GPU description of your own (JSON, as "
      "accel_model/data/gpus/*.json)")("op", po::value<std::string>(), "attention, gemm, copy, softmax, rmsnorm")(
      "impl", po::value<std::string>()->default_value("flash2"),
      "attention: flash2, flash3, cudnn, naive, sdpa-math, ecosim")(
      "batch", po::value<std::int64_t>(), "attention batch")("heads", po::value<std::int64_t>(), "attention heads")(
      "kv-heads", po::value<std::int64_t>(), "grouped-query attention: K/V heads, dividing --heads (default: --heads)")(
      "seq", po::value<std::int64_t>(), "query sequence length")("kv-seq", po::value<std::int64_t>(),
                                                                 "key/value sequence length (default: --seq)")(
      "dim", po::value<std::int64_t>(), "head width")("causal", "causal mask")(
      "window", po::value<std::int64_t>(), "with --causal: a sliding window, each query over the W keys ending at it")(
      "pass", po::value<std::string>()->default_value("fwd"), "fwd, bwd or fwd+bwd")(
      "timed", po::value<std::string>()->default_value("kernel"),
      "attention and bandwidth-bound ops: kernel (the kernels alone), pytorch-call (one eager PyTorch call between "
      "CUDA events, its dispatch included) or cuda-call (one CUDA runtime call from C++, e.g. cudaMemcpy, between "
      "CUDA events)")("m", po::value<std::int64_t>(), "GEMM rows")("n", po::value<std::int64_t>(), "GEMM columns")(
      "k", po::value<std::int64_t>(), "GEMM depth")("rows", po::value<std::int64_t>(), "rows")(
      "cols", po::value<std::int64_t>(), "columns")("dtype", po::value<std::string>()->default_value("fp16"),
                                                    "fp32, tf32, fp16, bf16, fp8")(
      "format", po::value<std::string>()->default_value("table"), "table or json");
  po::variables_map vm;
  if (!parse_args(args, options, vm, kUsage,
                  "Latency as modelled by accel_model's GPU model (accel_model/README.md): no GPU is used.\n"))
    return 0;
  const std::string format = vm["format"].as<std::string>();
  if (format != "table" && format != "json") throw Error("unknown format '" + format + "' (valid: table, json)");
  if (!vm.count("op")) throw Error("give --op attention|gemm|copy|softmax|rmsnorm");
  if (vm.count("gpu-file") && !vm["gpu"].defaulted()) throw Error("give --gpu or --gpu-file, not both");
  const gpu::GpuSpec g = vm.count("gpu-file") ? gpu::read_gpu_file(vm["gpu-file"].as<std::string>())
                                              : gpu::builtin_gpu(vm["gpu"].as<std::string>());
  const gpu::DType dtype = gpu::parse_dtype(vm["dtype"].as<std::string>());
  const Timed t = time_op(vm, g, vm["op"].as<std::string>(), dtype);
  if (format == "json") {
    const nlohmann::json out = {{"gpu", g.name},
                                {"operation", t.what},
                                {"label", "modelled"},
                                {"latency_ms", t.time.latency_s * 1e3},
                                {"tflops", t.time.tflops()},
                                {"gbs", t.time.gb_per_s()}};
    std::cout << fmt::format("{}\n", out.dump(2));
  } else {
    std::cout << fmt::format("{} on the {} (modelled)\n", t.what, g.name);
    std::cout << fmt::format("  latency  {:.4f} ms\n  TFLOP/s  {:.1f}\n  GB/s     {:.1f}\n", t.time.latency_s * 1e3,
                             t.time.tflops(), t.time.gb_per_s());
  }
  return 0;
}

}  // namespace ecosim::cli
