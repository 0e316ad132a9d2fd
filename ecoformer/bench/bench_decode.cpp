// bench_decode: one decode step of a causal attention after a context of N tokens — MSA against its K/V cache,
// Performer and EcoFormer against their recurrent state (ecoformer::AttentionDecoder) — at N ∈ --contexts (default
// 1024, 4096, 16384, 65536), D = --dim (64), B·H = 16 (B = 1, H = 16), on the GPU when present, else the CPU
// reference (the table says which). The context is the state alone (its prefill output skipped), so a long context
// costs what its cache or state costs to build, not a quadratic prefill. Prints the median of --steps steps after
// --warmup and their spread (CUDA events on the GPU, the steady clock on the CPU), the ratio to MSA's step at the
// same N measured in the same run, the state's bytes, and the process's peak resident memory.
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "ecosim/ecoformer/attention_decoder.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/hash_stages.hpp"
#include "ecosim/ops_counter/op_counter.hpp"

namespace {

using namespace ecosim;
using ecoformer::Device;

const char* const kUsage =
    "usage: bench_decode [--device auto|cpu|cuda] [--contexts N,N,...] [--dim D] [--steps S] [--warmup W]\n"
    "                    [--variants msa,performer,ecoformer]\n"
    "B = 1, H = 16; defaults --contexts 1024,4096,16384,65536 --dim 64 --steps 10 --warmup 2.\n";

struct Options {
  std::string device = "auto";
  std::vector<std::uint64_t> contexts{1024, 4096, 16384, 65536};
  std::uint64_t dim = 64;
  int steps = 10, warmup = 2;
  std::vector<std::string> variants{"msa", "performer", "ecoformer"};
  bool help = false;
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

std::uint64_t positive(const std::string& flag, const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoull(text) == 0)
    throw Error(flag + " needs positive integers, got '" + text + "'");
  return std::stoull(text);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else if (arg == "--device" && has_value) {
      o.device = argv[++i];
    } else if (arg == "--contexts" && has_value) {
      o.contexts.clear();
      for (const std::string& item : split(argv[++i])) o.contexts.push_back(positive(arg, item));
    } else if (arg == "--dim" && has_value) {
      o.dim = positive(arg, argv[++i]);
    } else if ((arg == "--steps" || arg == "--warmup") && has_value) {
      const std::string value = argv[++i];
      (arg == "--steps" ? o.steps : o.warmup) =
          value == "0" && arg == "--warmup" ? 0 : static_cast<int>(positive(arg, value));
    } else if (arg == "--variants" && has_value) {
      o.variants = split(argv[++i]);
    } else {
      throw Error(std::string("unknown or incomplete option '") + arg + "'\n" + kUsage);
    }
  }
  if (o.device != "auto" && o.device != "cpu" && o.device != "cuda") throw Error("--device must be auto, cpu or cuda");
  return o;
}

struct Row {
  std::string variant;
  std::uint64_t context = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  std::uint64_t state_bytes = 0;
};

/// A variant's causal layer over the context of n tokens and the steps after it (B = 1, H = 16).
AttentionConfig layer(AttentionVariant v, std::uint64_t n, const Options& o) {
  AttentionConfig c;
  c.variant = v;
  c.batch = 1, c.heads = 16, c.seq = n + static_cast<std::uint64_t>(o.warmup + o.steps), c.head_dim = o.dim;
  c.projections = false;
  c.causal = true;
  return c;
}

/// One variant's decode steps after a context of n tokens of `all` (the context's and the steps' tokens).
Row measure(AttentionVariant v, std::uint64_t n, const Options& o, Device device,
            const ecoformer::AttentionInputs& all) {
  const AttentionConfig c = layer(v, n, o);
  if (stages::hashes_through_anchors(v) && n < c.support)
    throw Error("a context of " + std::to_string(n) + " tokens is fewer than " + std::string(name(v)) + "'s " +
                std::to_string(c.support) +
                " anchors, which its causal kernel draws from the context: give longer "
                "--contexts");
  AttentionConfig context = c;
  context.seq = n;
  OpCounter counts;
  ecoformer::AttentionDecoder decoder(ecoformer::token_range(all, 0, n), context, device, 1, counts,
                                      ecoformer::AttentionDecoder::PrefillOutput::skipped);
  std::vector<double> ms;
  for (int s = 0; s < o.warmup + o.steps; ++s) {
    const double step_ms =
        decoder.step(ecoformer::token_range(all, n + static_cast<std::uint64_t>(s), 1), counts).latency_ms;
    if (s >= o.warmup) ms.push_back(step_ms);
  }
  std::sort(ms.begin(), ms.end());
  return {std::string(name(v)), n, ms[ms.size() / 2], ms.front(), ms.back(), decoder.state_bytes()};
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each row as it is measured, even when a time limit stops the run
  try {
    const Options o = parse(argc, argv);
    if (o.help) {
      std::printf("%s", kUsage);
      return 0;
    }
    std::vector<AttentionVariant> variants;  // every name checked before anything runs
    for (const std::string& label : o.variants) variants.push_back(attention_variant_named(label));
    if (o.device == "cuda") gpu::require("bench_decode --device cuda");
    const bool gpu = o.device == "cuda" || (o.device == "auto" && gpu::probe().available);
    const Device device = gpu ? Device::cuda : Device::cpu;
    std::printf(
        "bench_decode on %s, B = 1, H = 16, D = %llu: one decode step after a context of N tokens, median "
        "of %d after %d warm-up (%s)\n",
        gpu ? ("GPU " + gpu::probe().device_name).c_str() : "the CPU (reference kernels)",
        static_cast<unsigned long long>(o.dim), o.steps, o.warmup, gpu ? "CUDA events" : "steady clock");
    std::printf("%8s  %-14s %12s %22s %10s %14s\n", "N", "variant", "median_ms", "min-max ms", "vs MSA", "state bytes");
    for (std::uint64_t n : o.contexts) {
      // the same tokens for every variant: drawn once a context (the draw takes longer than the steps)
      const ecoformer::AttentionInputs all = ecoformer::synthetic_inputs(layer(variants.front(), n, o), 1);
      double msa_ms = 0;
      for (AttentionVariant v : variants) {
        const Row r = measure(v, n, o, device, all);
        if (v == AttentionVariant::msa) msa_ms = r.median_ms;
        const std::string ratio = msa_ms > 0 ? std::to_string(r.median_ms / msa_ms).substr(0, 6) + "x" : "-";
        std::printf("%8llu  %-14s %12.4f %10.4f-%-11.4f %10s %14llu\n", static_cast<unsigned long long>(n),
                    r.variant.c_str(), r.median_ms, r.min_ms, r.max_ms, ratio.c_str(),
                    static_cast<unsigned long long>(r.state_bytes));
      }
    }
    std::printf("vs MSA: step time / MSA's step time at the same N in this run (MSA listed first); peak RSS %.0f MiB\n",
                peak_rss_mib());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_decode: error: %s\n", e.what());
    return 1;
  }
}
