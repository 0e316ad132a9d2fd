// `ecosim compare`: for each attention variant, runs the kernel (GPU when present, else the CPU reference)
// while counting its operations and writing its trace (a count-only variant without a kernel: its analytic
// exact-convention records), replays the trace on the accelerator model (--engine: SystemC or closed form),
// and reports op counts, accelerator latency/energy, GPU latency and ratios to MSA beside the published ones: a
// summary on the terminal (compare_table.hpp), everything with its provenance in the report files.
// With --model, compares whole-model analytic traces instead; with --onnx, an imported model's traces with its
// attention blocks swapped for each variant, the kernels run at the blocks' shapes. Every variant's parameters are
// checked before anything runs, and traces and reports are written only when all runs have succeeded.
#include <fmt/core.h>
#include <algorithm>
#include <array>
#include <filesystem>
#include <iostream>
#include <map>

#include "accel_report.hpp"
#include "compare_report.hpp"
#include "compare_table.hpp"
#include "crossover.hpp"
#include "device_option.hpp"
#include "ecosim/accel_model/gpu/op_records.hpp"
#include "ecosim/ecoformer/library_attention.hpp"
#include "ecosim/ecoformer/run.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/hf_config.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "ecosim/ops_counter/sinks.hpp"
#include "ecosim/sim/commands.hpp"
#include "ecosim/traces/atomic_file.hpp"
#include "ecosim/traces/trace_writer.hpp"
#include "embedded_texts.hpp"
#include "gpu_estimate.hpp"
#include "gpu_of_run.hpp"
#include "plot_script.hpp"
#include "provenance.hpp"
#include "replay/replay_progress.hpp"
#include "report_folder.hpp"
#include "variant_parameters.hpp"
#include "work_limits.hpp"
#include "workload.hpp"

namespace ecosim::cli {

namespace {

constexpr std::uint64_t kInputSeed = 1;

struct VariantRun {
  std::vector<OpRecord> ops;  // also the variant's trace
  OpCounts total;
  std::optional<KernelTiming> timing;  // the kernel's latency, when a kernel ran
  std::string source;
};

/// The library baseline (library_attention.hpp) at one attention shape on the GPU: its measured time, or why it
/// could not run there.
struct LibraryTiming {
  std::optional<timing::Stats> time;
  std::string error;
};

/// Measured once per shape: every variant of a comparison shares the layer's shape, hence its baseline.
LibraryTiming time_library(const AttentionConfig& config) {
  LibraryTiming t;
  try {
    t.error = ecoformer::library_attention_unfit(config.batch * config.heads, config.seq, config.head_dim);
    if (t.error.empty())
      t.time =
          ecoformer::library_attention_cuda(ecoformer::synthetic_inputs(config, kInputSeed), timing::kGpuPlan).time;
  } catch (const Error& e) {
    t.error = e.what();
  }
  return t;
}

/// The kernel-run step: the variant's kernel on synthetic inputs, its records teed into an op counter and
/// the list returned for the replay and the trace. Its latency: on the GPU, timing::kGpuPlan's runs after
/// this one (each run's op records discarded after its timer stops); on the CPU, this run itself.
VariantRun run_kernel(const AttentionConfig& config, DeviceChoice device) {
  const ecoformer::AttentionInputs inputs = ecoformer::synthetic_inputs(config, kInputSeed);
  OpCounter counter;
  RecordingSink list;
  FanOutSink sink({&counter, &list});
  const auto dev = device == DeviceChoice::cuda ? ecoformer::Device::cuda : ecoformer::Device::cpu;
  const ecoformer::RunResult r = ecoformer::run_attention(inputs, config, dev, kInputSeed, sink);
  const bool on_gpu = r.device == ecoformer::Device::cuda;
  KernelTiming measured{on_gpu ? "cuda (" + gpu::probe().device_name + ")" : "cpu",
                        on_gpu ? ecoformer::time_attention(inputs, config, dev, kInputSeed, timing::kGpuPlan)
                               : timing::summarize({r.latency_ms}, {0, 1}, timing::kSteadyClock)};
  return {std::move(list.records), counter.total(), std::move(measured), on_gpu ? "kernel (cuda)" : "kernel (cpu)"};
}

/// A count-only variant's layer (no kernel to run): the analytic records, named as the kernels name theirs.
VariantRun run_analytic_layer(const AttentionConfig& config) {
  OpCounter counter;
  RecordingSink list;
  FanOutSink sink({&counter, &list});
  emit_attention(ecoformer::kAttentionRecordPrefix, config, Convention::exact, sink);
  return {std::move(list.records), counter.total(), std::nullopt, "analytic (no kernel)"};
}

/// One column of the comparison: an attention variant, or (with --model) the model's own attention.
struct Entry {
  std::string label;  // the variant's name, or "native"
  AttentionConfig config;
  bool native = false;
};

/// The zoo model with every attention layer of the entry's variant, or its own (exact convention).
Workload model_workload(const std::string& model, const ModelZoo& zoo, const ModelOptions& phase, const Entry& e) {
  Workload w;
  w.model = model;
  w.zoo = zoo;
  w.model_options.phase = phase.phase;
  w.model_options.seq_len = phase.seq_len;
  w.model_options.attention = e.config;
  w.model_options.batch = e.config.batch;
  w.model_options.native_attention = e.native;
  w.convention = Convention::exact;
  return w;
}

/// Whole-model analytic records of a workload.
VariantRun run_model(const Workload& w) {
  OpCounter counter;
  RecordingSink list;
  FanOutSink sink({&counter, &list});
  w.emit_records(sink);
  return {std::move(list.records), counter.total(), std::nullopt, "analytic"};
}

/// The ONNX model with the entry's attention (exact convention): analytic records, except that each attention
/// block becomes, for a variant with a kernel, the kernel run at the block's shape (once per distinct shape), its
/// records renamed after the block. A block the kernels cannot run (ecoformer::kernel_limitation: queries ≠ keys,
/// causal) keeps its analytic records, and the run's source says so.
VariantRun run_onnx(const OnnxModel& model, const Entry& e, DeviceChoice device) {
  OpCounter counter;
  RecordingSink list;
  FanOutSink sink({&counter, &list});
  const bool kernel = !e.native && ecoformer::has_kernel(e.config.variant);
  const std::string prefix = std::string(ecoformer::kAttentionRecordPrefix) + ".";
  std::map<std::array<std::uint64_t, 4>, std::vector<OpRecord>> runs;  // batch, heads, tokens, head width
  std::map<std::string, std::uint64_t> not_run;                        // reason → blocks counted instead
  for (const Layer& layer : onnx_layers(model, e.native ? std::nullopt : std::optional{e.config})) {
    const auto* a = std::get_if<AttentionConfig>(&layer.op);
    const std::string limitation = kernel && a ? ecoformer::kernel_limitation(*a) : "";
    if (!limitation.empty()) ++not_run[limitation];
    if (!kernel || !a || !limitation.empty()) {
      emit(layer, Convention::exact, sink);
      continue;
    }
    auto run = runs.find({a->batch, a->heads, a->seq, a->head_dim});
    if (run == runs.end())
      run = runs.emplace(std::array{a->batch, a->heads, a->seq, a->head_dim}, run_kernel(*a, device).ops).first;
    for (OpRecord r : run->second) {
      if (r.name.starts_with(prefix)) r.name = layer.name + "." + r.name.substr(prefix.size());
      if (r.group.starts_with(prefix)) r.group = layer.name + "." + r.group.substr(prefix.size());
      sink.record(r);
    }
  }
  std::string source = kernel && !runs.empty() ? fmt::format("kernel x{}+analytic", runs.size()) : "analytic";
  for (const auto& [why, blocks] : not_run) {
    source += fmt::format("; {} block{} not run: {}", blocks, blocks == 1 ? "" : "s", why);
    fmt::print(stderr, "[{}] note: {} attention block{} counted, not run: {}\n", e.label, blocks,
               blocks == 1 ? "" : "s", why);
  }
  return {std::move(list.records), counter.total(), std::nullopt, source};
}

/// Variant names (or "native"), each once.
std::vector<std::string> parse_variants(const std::string& list) {
  std::vector<std::string> out;
  for (const std::string& item : comma_items(list, "variants")) {
    if (item != "native") attention_variant_named(item);  // throws listing the valid names
    if (std::find(out.begin(), out.end(), item) != out.end()) throw Error("--variants lists '" + item + "' twice");
    out.push_back(item);
  }
  if (out.empty()) throw Error("--variants is empty");
  return out;
}

constexpr const char* kPublishedOrigin = "builtin published_accelerator.json";

/// sim/data/published_accelerator.json, every key checked: its source, the workload the accelerator figures were
/// published for (`compare`'s default layer) and each variant's latency and energy.
nlohmann::json published_figures() {
  nlohmann::json doc = parse_json(embedded::published_accelerator(), kPublishedOrigin);
  const JsonReader r(doc, kPublishedOrigin);
  r.exact_keys({"source", "workload", "variants"});
  (void)r.text("source");
  const JsonReader workload(r.object("workload"), fmt::format("{}: workload", kPublishedOrigin));
  workload.exact_keys({"batch", "seq", "dim", "heads", "accelerator"});
  for (const char* key : {"batch", "seq", "dim", "heads"}) (void)workload.count(key, {1, kMaxDimension, ""});
  (void)accel::builtin_config(workload.text("accelerator"));  // one of the built-in configurations
  for (const auto& [variant, figures] : r.object("variants").items()) {
    try {
      (void)attention_variant_named(variant);
    } catch (const Error& e) {
      r.fail("variants." + variant, e.what());
    }
    const JsonReader v(figures, fmt::format("{}: variants.{}", kPublishedOrigin, variant));
    v.exact_keys({"latency_ms", "energy_pj"});
    (void)v.number("latency_ms", {0, 1e9, " ms"});
    (void)v.number("energy_pj", {0, 1e18, " pJ"});
  }
  return doc;
}

/// A number of the workload the accelerator figures were published for.
std::int64_t published_workload(const nlohmann::json& published, const char* key) {
  return published["workload"][key].get<std::int64_t>();
}

/// Draws the bar chart with Debian's interpreter (the python3 first on PATH may lack Debian's matplotlib),
/// running scripts/plot_compare.py as embedded at build time (run_embedded_python); the paths are plain arguments
/// after the script. A failure is a warning: the CSV and JSON are complete. Returns whether the chart exists.
bool plot(const std::string& json_path, const std::string& png_path) {
  const ProgramRun run = run_embedded_python("/usr/bin/python3", {}, "plot_compare.py", embedded::plot_compare_py(),
                                             {json_path, png_path});
  std::error_code ec;
  if (run.succeeded && std::filesystem::is_regular_file(png_path, ec)) return true;
  fmt::print(stderr,
             "warning: no bar chart written ({}; is python3-matplotlib installed?); CSV and JSON are complete\n",
             run.succeeded ? png_path + " is missing" : run.failure);
  return false;
}

}  // namespace

int compare(const Args& args) {
  const nlohmann::json published = published_figures();
  const auto batch = published_workload(published, "batch"), seq = published_workload(published, "seq"),
             dim = published_workload(published, "dim"), heads = published_workload(published, "heads");
  po::options_description options("ecosim compare");
  options.add_options()("help,h", "this help")("batch", po::value<std::int64_t>()->default_value(batch),
                                               "batch size B (a decoder model: one sequence unless given)")(
      "seq", po::value<std::int64_t>()->default_value(seq), "tokens N (attention layer)")(
      "dim", po::value<std::int64_t>()->default_value(dim), "head width D")(
      "heads", po::value<std::int64_t>()->default_value(heads), "heads H")(
      "variants",
      po::value<std::string>()->default_value(
          variant_names([](const VariantInfo& row) { return row.compared_by_default; }, ",")),
      "attention variants, comma-separated (with --model also 'native': the model's own attention)")(
      "model", po::value<std::string>(),
      "compare whole-model analytic traces of this zoo model instead (a decoder: its default prefill, or --phase)")(
      "onnx", po::value<std::string>(),
      "compare an ONNX model's traces instead: its attention blocks swapped for each variant, kernels run at "
      "the blocks' shapes ('native': the export's own attention)")(
      "device", po::value<std::string>()->default_value("auto"), "kernels on auto|cpu|cuda")(
      "gpu", po::value<std::string>()->default_value("h100-sxm"),
      "GPU of the modelled columns: a100-sxm, h100-sxm, h100-pcie, h200, l4, rtx4090 (not given, kernels run on a "
      "GPU: the model's error printed beside them is of that GPU where a built-in file lists CUDA's name of it)")(
      "gpu-model", po::value<std::string>()->default_value("model"),
      "the GPU column without a GPU: model (accel_model's GPU model) or roofline (max(ops / FP32 peak, bytes / "
      "bandwidth) per op)")("out", po::value<std::string>()->default_value("reports"), "output directory");
  options.add(model_file_option());
  options.add(decoder_options());
  options.add(onnx_options());
  options.add(variant_parameter_options());
  options.add(accel_options());
  options.add(work_limit_options());
  po::variables_map vm;
  if (!parse_args(
          args, options, vm,
          fmt::format("ecosim compare [--batch {} --seq {} --dim {} --heads {}] [--variants ...] "
                      "[--model NAME | --onnx FILE] [--device auto] [--engine systemc|closed-form] [--out reports/]",
                      batch, seq, dim, heads),
          variant_list_help()))
    return 0;
  const accel::AccelConfig accel_config = parse_accel(vm);
  const accel::Engine engine = parse_engine(vm);
  const auto variants = parse_variants(vm["variants"].as<std::string>());
  if (vm.count("model") && vm.count("hf-config")) throw Error("give --model or --hf-config, not both");
  const std::string model = vm.count("hf-config") ? hf_config_model_name(vm["hf-config"].as<std::string>())
                            : vm.count("model")   ? vm["model"].as<std::string>()
                                                  : "";
  const DeviceChoice device = resolve_device(vm["device"].as<std::string>());
  const std::string out = vm["out"].as<std::string>();
  const TechTable tech = TechTable::builtin_45nm();
  const WorkLimits limits = parse_work_limits(vm);
  const gpu::GpuSpec named_gpu = gpu::builtin_gpu(vm["gpu"].as<std::string>());  // an unknown GPU fails before any work
  const std::string gpu_model = vm["gpu-model"].as<std::string>();
  if (gpu_model != "model" && gpu_model != "roofline")
    throw Error("unknown --gpu-model '" + gpu_model + "' (valid: model, roofline)");
  const GpuRoofline roofline = gpu_roofline(named_gpu);
  std::shared_ptr<const OnnxModel> onnx;
  if (vm.count("onnx")) {
    if (!model.empty()) throw Error("give --model (or --hf-config) or --onnx, not both");
    reject_given(vm, {"seq", "dim", "heads", "batch", "model-file"}, "the single-layer comparison or --model");
    Workload w;
    w.model_options.native_attention = true;
    parse_onnx_workload(vm, w);
    onnx = w.onnx_model;
  } else {
    reject_given(vm, {"strict", "onnx-max-bytes"}, "--onnx");
  }
  const bool whole_model = !model.empty() || onnx;
  ModelOptions phase;  // a decoder's phase (--seq given: its prefill length)
  if (!model.empty()) {
    reject_given(vm, {"dim", "heads", "device"}, "the single-layer comparison (without --model)");
    reject_model_layout_options(vm);
    reject_given(vm, {"kv-dtype", "weight-dtype"},
                 "count and trace of a decoder (their kv_cache_bytes, kv_read_bytes and weight_read_bytes); compare "
                 "costs every operand at the hardware's own precision");
    parse_decoder_phase(vm, phase);
  } else {
    reject_given(vm, {"model-file"}, "--model");
    reject_given(vm, {"phase", "context", "tokens", "kv-dtype", "weight-dtype"},
                 "decoder models (--model, --hf-config)");
  }
  if (vm.count("hf-config")) reject_given(vm, {"model-file"}, "--model");
  const ModelZoo zoo = vm.count("hf-config") ? hf_config_zoo(vm["hf-config"].as<std::string>()) : model_zoo(vm);
  std::vector<AttentionVariant> chosen;
  for (const std::string& label : variants)
    if (label != "native") chosen.push_back(attention_variant_named(label));
  check_parameters_apply(vm, chosen);
  ModelOptions own_attention = phase;  // the model's own attention (MSA swapped in may not serve a windowed phase)
  own_attention.native_attention = true;
  if (!model.empty() && !chosen.empty()) {  // a model without attention: every variant would be the same model
    if (!has_attention(zoo.build(model, own_attention)))
      throw Error(
          fmt::format("model '{}' has no attention for the variants to replace (compare --variants native, "
                      "or count it)",
                      model));
  }

  // The default batch is the published layer's; a decoder (its default prefill or a --phase) compares one
  // sequence unless --batch says more.
  const bool decoder = !model.empty() && zoo.decoder_facts(model, own_attention).has_value();
  const std::uint64_t batch_size = vm["batch"].defaulted() && decoder ? 1 : positive(vm, "batch");
  CompareReport report;
  report.workload = {{"batch", batch_size}, {"accelerator", accel_config.name}};
  if (onnx) {
    report.workload = {{"onnx", onnx->origin}, {"accelerator", accel_config.name}};
  } else if (model.empty()) {
    report.workload.update(
        {{"seq", positive(vm, "seq")}, {"dim", positive(vm, "dim")}, {"heads", positive(vm, "heads")}});
  } else {
    report.workload["model"] = model;
    if (vm.count("hf-config")) report.workload["hf_config"] = vm["hf-config"].as<std::string>();
    if (phase.phase.phase == Phase::decode)
      report.workload.update({{"phase", "decode"}, {"context", phase.phase.context}, {"tokens", phase.phase.tokens}});
    else if (decoder)  // a prefill, --phase prefill or not: its length (the model's default where not given)
      report.workload.update({{"phase", "prefill"}, {"seq", zoo.decoder_facts(model, own_attention)->context}});
  }
  report.published = published;
  report.published_applies = published_for(report.workload, accel_config, published);
  report.provenance = provenance(accel_config, engine, tech);
  report.accel_area = accel::area_breakdown(accel_config);
  report.provenance["variant_parameters"] = nlohmann::ordered_json::object();
  std::vector<Entry> entries;
  // With the default --variants, a variant the model's attention cannot take (no causal form for a decoder, more
  // anchors than a block's tokens) is left out with the reason, so a decoder or a small model still compares;
  // a variant named with --variants is required (the error names the block and the reason).
  const bool leave_out_unfit = whole_model && vm["variants"].defaulted();
  nlohmann::ordered_json left_out = nlohmann::ordered_json::object();
  for (const std::string& label : variants) {  // every variant's parameters checked before anything runs
    try {
      Entry e{label, {}, label == "native"};
      AttentionConfig& config = e.config;
      config.variant = e.native ? AttentionVariant::msa : attention_variant_named(label);
      config.batch = batch_size;
      config.heads = positive(vm, "heads");
      config.seq = whole_model ? 1 : positive(vm, "seq");
      config.head_dim = positive(vm, "dim");
      config.projections = false;  // kernels take projected q, k, v
      read_variant_parameters(vm, config);
      if (!whole_model && e.native)
        throw Error("'native' (a model's own attention) needs --model, --hf-config or --onnx");
      if (onnx) {  // the variant at every block's shape (throws naming the block it cannot replace)
        const std::vector<Layer> layers = onnx_layers(*onnx, e.native ? std::nullopt : std::optional{config});
        for (const Layer& layer : layers)
          if (const auto* a = std::get_if<AttentionConfig>(&layer.op);
              a && ecoformer::has_kernel(a->variant) && ecoformer::kernel_limitation(*a).empty())
            check_attention_kernel(limits, *a, device == DeviceChoice::cuda);
        note_attention_choices(layers);
      } else if (model.empty()) {
        config.validate();
        if (ecoformer::has_kernel(config.variant)) check_attention_kernel(limits, config, device == DeviceChoice::cuda);
        note_attention_choices({{"attention", config}});
      } else {
        take_model_window(vm, zoo, model, config);
        note_attention_choices(model_workload(model, zoo, phase, e).layers());  // throws for a model it cannot build
      }
      report.provenance["variant_parameters"][label] =
          e.native ? nlohmann::json(onnx ? "the export's own attention" : "the model's own attention (zoo)")
                   : describe_parameters(config);
      if (!e.native && describe_parameters(config) != describe_parameters(AttentionConfig{.variant = config.variant}))
        report.other_parameters.push_back(label);
      entries.push_back(std::move(e));
    } catch (const Error& e) {
      if (!leave_out_unfit) throw;
      fmt::print(stderr, "note: {} left out of the comparison (name it with --variants to require it): {}\n", label,
                 e.what());
      left_out[label] = e.what();
    }
  }
  if (entries.empty()) throw Error("no default variant can take this model's attention (see the notes above)");
  if (!left_out.empty()) report.provenance["variants_left_out"] = left_out;
  ReportFolder folder(out);  // checked now, created only once every run has succeeded
  std::vector<std::vector<OpRecord>> traces;
  std::map<std::array<std::uint64_t, 4>, LibraryTiming> library_runs;  // per shape, on the GPU
  std::optional<gpu::GpuSpec> ran_gpu;  // the GPU the model's error is of, set at the first measured row
  for (const Entry& e : entries) {
    const bool kernel = model.empty() && !e.native && ecoformer::has_kernel(e.config.variant);
    fmt::print(stderr, "[{}] {} ...\n", e.label, kernel ? "running kernel" : "building analytic trace");
    const std::optional<Workload> workload =
        onnx || model.empty() ? std::nullopt : std::optional(model_workload(model, zoo, phase, e));
    VariantRun run = onnx       ? run_onnx(*onnx, e, device)
                     : workload ? run_model(*workload)
                     : kernel   ? run_kernel(e.config, device)
                                : run_analytic_layer(e.config);
    fmt::print(stderr, "[{}] replaying {} ops on {} ...\n", e.label, run.ops.size(), accel_config.name);
    const auto progress = announce_replay(engine, "[" + e.label + "]", [&] {
      RecordList all(run.ops);
      accel::PlanSource counted(all, Convention::exact, e.label, accel_config, tech);
      return accel::plan_work(counted);
    });
    RecordList records(run.ops);
    accel::PlanSource plans(records, Convention::exact, e.label, accel_config, tech,
                            replay_budget(limits, accel_config));
    const accel::ReplayResult replay =
        accel::replay(engine, plans, accel_config, nullptr, nullptr, progress->callback());
    CompareRow row{e.label,
                   run.source,
                   run.total.ops(OpKind::mul),
                   run.total.ops(OpKind::add),
                   tech.energy_pj(run.total),
                   replay.total,
                   replay.latency_ms(),
                   0,
                   false,
                   "",
                   "",
                   0,
                   false,
                   "",
                   std::nullopt,
                   run.timing,
                   std::nullopt};
    const gpu::ModelledLatency modelled = gpu::modelled_latency(run.ops, named_gpu, gpu::Software::ecosim_kernels);
    const double modelled_ms = modelled.seconds * 1e3;
    // a decoder's phase: whether the named GPU holds its weights and KV cache or state (else its GPU times assume
    // memory the GPU does not have, said on stderr)
    if (const std::optional<DecoderFacts> facts = workload ? workload->decoder_facts() : std::nullopt) {
      row.gpu_fits = facts->resident_bytes() <= named_gpu.memory_bytes;
      if (!*row.gpu_fits) fmt::print(stderr, "{}", gpu_memory_warning(e.label, named_gpu, facts->resident_bytes()));
    }
    LibraryTiming library;  // measured only beside a kernel that ran on the GPU
    if (run.timing && run.timing->stats.method == timing::kCudaEvents) {
      const std::array<std::uint64_t, 4> shape{e.config.batch, e.config.heads, e.config.seq, e.config.head_dim};
      auto it = library_runs.find(shape);
      if (it == library_runs.end()) it = library_runs.emplace(shape, time_library(e.config)).first;
      library = it->second;
    }
    if (library.time) {
      row.gpu_library_latency_ms = library.time->median_ms;
      row.gpu_library_measured = true;
      row.gpu_library_label =
          fmt::format("measured, {}, CUDA events ({})", ecoformer::kLibraryAttentionName, gpu::probe().device_name);
    } else {
      gpu::ModelledLatency best = gpu::modelled_latency(run.ops, named_gpu, gpu::Software::best_library);
      row.gpu_library_latency_ms = best.seconds * 1e3;
      row.gpu_library_op_by_op = std::move(best.op_by_op);
      row.gpu_library_label =
          fmt::format("modelled, {}, {}{}", named_gpu.name, gpu::software_description(gpu::Software::best_library),
                      library.error.empty() ? "" : "; the measured baseline could not run: " + library.error);
    }
    if (run.timing && run.timing->stats.method == timing::kCudaEvents) {
      row.gpu_latency_ms = run.timing->stats.median_ms;
      row.gpu_measured = true;
      row.gpu_latency_kind = "measured";
      row.gpu_label = "measured, CUDA events (" + gpu::probe().device_name + ")";
      // the model's error on this run: of the GPU that ran where it is a built-in one and --gpu was not given
      if (!ran_gpu) {
        const std::optional<std::string> builtin = gpu_of_run(vm, gpu::probe().device_name);
        ran_gpu = builtin ? gpu::builtin_gpu(*builtin) : named_gpu;
      }
      const double ran_modelled_ms =
          ran_gpu->name == named_gpu.name
              ? modelled_ms
              : gpu::modelled_latency(run.ops, *ran_gpu, gpu::Software::ecosim_kernels).seconds * 1e3;
      row.gpu_model_error = (ran_modelled_ms - row.gpu_latency_ms) / row.gpu_latency_ms;
      report.provenance["gpu_model_error_of"] = ran_gpu->name;
    } else if (gpu_model == "roofline") {
      row.gpu_latency_ms = estimate_gpu_latency_ms(run.ops, roofline);
      row.gpu_latency_kind = "estimated";
      row.gpu_label = "estimated, " + roofline.gpu + " roofline (no GPU kernel ran)";
    } else {
      row.gpu_latency_ms = modelled_ms;
      row.gpu_latency_kind = "modelled";
      row.gpu_label = fmt::format("modelled, {}, {}; no GPU kernel ran", named_gpu.name,
                                  gpu::software_description(gpu::Software::ecosim_kernels));
      row.gpu_op_by_op = modelled.op_by_op;
    }
    report.provenance["gpu_timing"][e.label] =
        row.gpu_measured ? fmt::format(
                               "measured: median of {} runs after {} warm-up runs, CUDA events around each run's "
                               "kernels on {} (op records delivered after the timer stops)",
                               timing::kGpuPlan.repetitions, timing::kGpuPlan.warmup, gpu::probe().device_name)
        : row.gpu_latency_kind == "estimated"
            ? fmt::format(
                  "estimated: sum over ops of max(ops / {:.4g} op/s, bytes / {:.4g} B/s), the "
                  "{} roofline; no GPU kernel ran",
                  roofline.ops_per_s, roofline.bytes_per_s, roofline.gpu)
            : fmt::format(
                  "modelled: accel_model's GPU model (accel_model/README.md), {}, {}; no GPU "
                  "kernel ran",
                  named_gpu.name, gpu::software_description(gpu::Software::ecosim_kernels));
    report.rows.push_back(std::move(row));
    traces.push_back(std::move(run.ops));
  }
  folder.create();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    nlohmann::json workload = report.workload;
    workload["variant"] = entries[i].label;
    folder.write(entries[i].label + ".jsonl", [&](const std::string& path) {
      trace::TraceWriter writer(
          path, {trace::kFormatVersion, "ecosim " ECOSIM_VERSION " compare", Convention::exact, workload});
      for (const OpRecord& op : traces[i]) writer.record(op);
      writer.finish();
    });
  }
  folder.write("compare.csv", [&](const std::string& path) { write_file_atomically(path, render_csv(report)); });
  folder.write("compare.json",
               [&](const std::string& path) { write_file_atomically(path, to_json(report).dump(2) + "\n"); });
  folder.keep();
  const bool plotted = plot(out + "/compare.json", out + "/compare.png");
  std::cout << render_terminal(report, out, plotted);  // std::cout: the Python package captures it
  return 0;
}

}  // namespace ecosim::cli
