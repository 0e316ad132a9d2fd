// `ecosim crossover`: the options of a decoder model's context sweep (crossover.hpp) — the model, the phase, the
// contexts (1k = 1024 tokens), the variants against MSA and their parameters, the accelerator and tech table — and
// its table or JSON; with --out DIR, crossover.json, crossover.csv and the plot crossover.png.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <optional>

#include "accel_report.hpp"
#include "count_report.hpp"
#include "crossover.hpp"
#include "ecosim/accel_model/gpu/gpu_spec.hpp"
#include "ecosim/ops_counter/dtype.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/hf_config.hpp"
#include "ecosim/sim/commands.hpp"
#include "ecosim/traces/atomic_file.hpp"
#include "embedded_texts.hpp"
#include "plot_script.hpp"
#include "report_folder.hpp"
#include "variant_parameters.hpp"
#include "workload.hpp"

namespace ecosim::cli {

namespace {

/// "1k,2k,32768": tokens, k = 1024; ascending, each once.
std::vector<std::uint64_t> parse_contexts(const std::string& list) {
  std::vector<std::uint64_t> out;
  for (const std::string& item : comma_items(list, "contexts")) {
    const bool kilo = !item.empty() && (item.back() == 'k' || item.back() == 'K');
    const std::string digits = kilo ? item.substr(0, item.size() - 1) : item;
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; }))
      throw Error("--contexts: '" + item + "' is not a token count (such as 4096 or 4k)");
    const std::uint64_t tokens = std::stoull(digits) * (kilo ? 1024 : 1);
    if (tokens == 0 || (!out.empty() && tokens <= out.back()))
      throw Error("--contexts must be positive and ascending, each once: '" + item + "'");
    out.push_back(tokens);
  }
  if (out.empty()) throw Error("--contexts is empty");
  return out;
}

/// msa first, then the others listed, each once.
std::vector<AttentionVariant> parse_variant_list(const std::string& list) {
  std::vector<AttentionVariant> out{AttentionVariant::msa};
  for (const std::string& item : comma_items(list, "variants")) {
    const AttentionVariant v = attention_variant_named(item);  // throws listing the valid names
    if (v == AttentionVariant::msa) continue;
    if (std::find(out.begin(), out.end(), v) != out.end()) throw Error("--variants lists '" + item + "' twice");
    out.push_back(v);
  }
  return out;
}

DType dtype_named(const po::variables_map& vm, const std::string& key) {
  const std::string text = vm[key].as<std::string>();
  if (auto t = parse_dtype(text)) return *t;
  throw Error("--" + key + ": unknown data type '" + text + "'");
}

/// Writes crossover.json and crossover.csv (each atomically) into `folder`, then draws crossover.png
/// (scripts/plot_crossover.py); a failed plot is a warning, the JSON and CSV being complete.
void write_reports(ReportFolder& folder, const std::string& dir, const nlohmann::ordered_json& report) {
  folder.create();
  folder.write("crossover.json", [&](const std::string& path) { write_file_atomically(path, report.dump(2) + "\n"); });
  folder.write("crossover.csv", [&](const std::string& path) { write_file_atomically(path, crossover_csv(report)); });
  folder.keep();
  const std::string png = dir + "/crossover.png";
  draw_plot("plot_crossover.py", embedded::plot_crossover_py(), {dir + "/crossover.json", png}, png,
            fmt::format("{0}/crossover.json, {0}/crossover.csv", dir));
}

}  // namespace

int crossover(const Args& args) {
  po::options_description options("ecosim crossover");
  options.add_options()("help,h", "this help")("model", po::value<std::string>(), "zoo decoder model")(
      "hf-config", po::value<std::string>(), "a Hugging Face config.json of a decoder")(
      "phase", po::value<std::string>()->default_value("decode"),
      "decode (per step, the step that makes the context C tokens) or prefill (a pass over C tokens, per token)")(
      "contexts", po::value<std::string>()->default_value("1k,2k,4k,8k,16k,32k,64k,128k"),
      "context lengths C, ascending (k = 1024 tokens)")(
      "variants", po::value<std::string>()->default_value("performer,ecoformer"),
      "variants compared with MSA (always included), comma-separated")(
      "batch", po::value<std::int64_t>()->default_value(1), "sequences")(
      "kv-dtype", po::value<std::string>()->default_value("fp16"),
      "KV-cache element type: the KV-cache column's bytes (energy, latency and GPU time cost every operand at the "
      "hardware's own precision)")(
      "gpu", po::value<std::string>()->default_value("h100-sxm"),
      "the GPU whose modelled time per token is shown: a100-sxm, h100-sxm, h100-pcie, h200, l4, rtx4090")(
      "format", po::value<std::string>()->default_value("table"), "table or json")(
      "out", po::value<std::string>(), "also write crossover.json, crossover.csv and crossover.png into this folder")(
      "tech-table", po::value<std::string>(),
      "energy per op of the op-energy column, JSON (default: built-in 45 nm table; the accelerator's columns price "
      "its own units, as replay does)");
  options.add(model_file_option());
  options.add(accel_options("closed-form", "closed-form only (SystemC's cycles without its dynamic effects)"));
  options.add(variant_parameter_options());
  po::variables_map vm;
  if (!parse_args(args, options, vm,
                  "ecosim crossover (--model NAME | --hf-config FILE) [--phase decode|prefill] [--contexts 1k,...] "
                  "[--variants performer,ecoformer,...] [--out DIR] [options]",
                  variant_list_help()))
    return 0;
  const Format format = parse_format(vm["format"].as<std::string>());
  if (format == Format::csv) throw Error("--format: crossover prints a table or json");
  if (vm["engine"].as<std::string>() != "closed-form")
    throw Error("--engine: crossover replays with the closed form (its cycles are SystemC's without dynamic effects)");
  if (vm.count("model") + vm.count("hf-config") != 1) throw Error("give one of --model and --hf-config");
  std::optional<ReportFolder> folder;  // checked before any work, created once it has succeeded
  if (vm.count("out")) folder.emplace(vm["out"].as<std::string>());

  CrossoverRequest request;
  if (vm.count("hf-config")) {
    request.zoo = hf_config_zoo(vm["hf-config"].as<std::string>());
    request.model = hf_config_model_name(vm["hf-config"].as<std::string>());
  } else {
    request.zoo = model_zoo(vm);
    request.model = vm["model"].as<std::string>();
  }
  const std::string phase = vm["phase"].as<std::string>();
  if (phase != "decode" && phase != "prefill")
    throw Error("--phase must be 'decode' or 'prefill', got '" + phase + "'");
  request.options.phase.phase = phase == "decode" ? Phase::decode : Phase::prefill;
  request.options.phase.kv_dtype = dtype_named(vm, "kv-dtype");
  request.options.batch = positive(vm, "batch");
  request.options.attention.batch = request.options.batch;
  read_variant_parameters(vm, request.options.attention);
  take_model_window(vm, request.zoo, request.model, request.options.attention);
  request.variants = parse_variant_list(vm["variants"].as<std::string>());
  check_parameters_apply(vm, request.variants);
  request.contexts = parse_contexts(vm["contexts"].as<std::string>());
  request.gpu = gpu::builtin_gpu(vm["gpu"].as<std::string>());
  if (!request.zoo.decoder_facts(request.model, {}))
    throw Error("model '" + request.model + "' is not a decoder: the crossover is over a decoder's contexts");
  // MSA, always compared, and every variant but the model's own attend past a windowed model's window
  if (const std::optional<std::uint64_t> window = model_window(request.zoo, request.model);
      window && request.contexts.back() > *window)
    throw Error(fmt::format(
        "model '{}' attends a sliding window of {} tokens: past it, MSA (the crossover's reference) and the variants "
        "would no longer be that model; give --contexts up to {}, or compare its own attention with `compare "
        "--variants native` (a config with \"sliding_window\": null compares the model without its window)",
        request.model, *window, *window));

  const accel::AccelConfig accel = parse_accel(vm);
  const TechTable tech =
      vm.count("tech-table") ? TechTable::load(vm["tech-table"].as<std::string>()) : TechTable::builtin_45nm();
  const std::vector<CrossoverSeries> series = crossover_series(request, accel, tech);
  for (const CrossoverSeries& s : series)  // said once a variant, at the first context that does not fit
    if (const auto p = std::find_if(s.points.begin(), s.points.end(), [](const auto& x) { return !x.gpu_fits; });
        p != s.points.end())
      fmt::print(stderr, "{}",
                 gpu_memory_warning(fmt::format("{} at a context of {}", name(s.variant), p->context), request.gpu));
  for (const CrossoverSeries& s : series)  // said once a variant, at the first context that has it
    if (const auto p =
            std::find_if(s.points.begin(), s.points.end(), [](const auto& x) { return !x.gpu_op_by_op.empty(); });
        p != s.points.end())
      fmt::print(stderr, "warning: {} at a context of {}: its GPU time prices attention op by op, not fused ({})\n",
                 name(s.variant), p->context, fmt::join(p->gpu_op_by_op, "; "));
  const nlohmann::ordered_json report = crossover_json(request, series, accel, tech);
  if (format == Format::json)
    std::cout << report.dump(2) << "\n";
  else
    print_crossover_table(std::cout, request, series);
  std::cout.flush();  // the table before the reports' messages on stderr
  if (folder) write_reports(*folder, vm["out"].as<std::string>(), report);
  return 0;
}

}  // namespace ecosim::cli
