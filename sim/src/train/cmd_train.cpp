// `ecosim train`: what one training step of a zoo model (or an ONNX export's graph) costs — forward, backward and
// optimizer ops, the tensors autograd saves (activation memory) and the peak memory — per activation scheme, the
// schemes applied by kernels/training_schemes.hpp (ops_counter/README.md, "Training step").
#include <fmt/core.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <tuple>
#include <utility>

#include "accel_report.hpp"
#include "count_report.hpp"
#include "ecosim/accel_model/gpu/gpu_spec.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/training_step.hpp"
#include "ecosim/sim/commands.hpp"
#include "ecosim/traces/atomic_file.hpp"
#include "embedded_texts.hpp"
#include "gpu_of_run.hpp"
#include "plot_script.hpp"
#include "provenance.hpp"
#include "report_folder.hpp"
#include "train_measure.hpp"
#include "train_pricing.hpp"
#include "train_report.hpp"
#include "workload.hpp"

namespace ecosim::cli {

namespace {

namespace schemes = kernels::schemes;

/// --onnx: the export's layers, its attention native (its shapes and batch are the export's: --batch, --resolution,
/// --seq-len and --model-file do not apply), and its batch (ActNN L3 allocates bits sample by sample).
std::pair<std::vector<Layer>, std::uint64_t> onnx_step_layers(const po::variables_map& vm) {
  reject_given(vm, {"resolution", "seq-len", "model-file"}, "--model (an ONNX export's shapes are its own)");
  if (vm.count("strict")) throw Error("--strict: train --onnx always refuses unknown op types, leave it out");
  if (!vm["batch"].defaulted()) throw Error("--batch applies to --model (an ONNX export's batch is its own)");
  OnnxImportOptions options;
  options.max_file_bytes = positive(vm, "onnx-max-bytes");
  const OnnxModel model = import_onnx(vm["onnx"].as<std::string>(), options);
  if (!model.unknown_ops.empty())  // what they save is unknown: the step would leave it out (--strict or not)
    throw Error(fmt::format("ONNX model '{}': unknown op types ({}): a training step needs every op known",
                            model.origin, unknown_op_summary(model)));
  if (!model.unmatched_attention.empty())
    fmt::print(stderr, "warning: {}: {}\n", model.origin, unmatched_attention_warning(model));
  if (!model.inference_export_nodes.empty())
    fmt::print(stderr,
               "warning: {}: an inference export ({} node(s) in inference form: a BatchNormalization without its "
               "training outputs, or a convolution with a BatchNorm folded in; '{}' first): its BatchNorms folded "
               "into convolutions and its Dropout dropped, their saved tensors are missing from this step; export "
               "with torch.onnx.export(..., training=torch.onnx.TrainingMode.TRAINING)\n",
               model.origin, model.inference_export_nodes.size(), model.inference_export_nodes.front());
  if (!model.shared_norm_scales.empty())
    fmt::print(stderr,
               "warning: {}: {} norm scale(s) read by several norms ('{}' first): their parameters count once. An "
               "inference export merges initializers of equal values (a fresh model's γ = 1); unless the model "
               "shares these norms, export with torch.onnx.export(..., training=torch.onnx.TrainingMode.TRAINING)\n",
               model.origin, model.shared_norm_scales.size(), model.shared_norm_scales.front());
  return {onnx_layers(model, std::nullopt), model.batch};
}

/// train.png in `dir` from its train.json and memory_curve.csv (scripts/plot_train.py); a failed plot is a
/// warning, the JSON and CSV being complete.
void plot_memory_curves(const std::string& dir) {
  const std::string png = dir + "/train.png";
  draw_plot("plot_train.py", embedded::plot_train_py(), {dir + "/train.json", dir + "/memory_curve.csv", png}, png,
            fmt::format("{0}/train.json, {0}/train.csv, {0}/memory_curve.csv", dir));
}

/// --memory-gb in bytes: positive, finite, at most 2^20 GiB.
std::uint64_t memory_bytes(const po::variables_map& vm) {
  if (!vm.count("memory-gb")) throw Error("--max-batch needs --memory-gb G");
  const double gib = vm["memory-gb"].as<double>();
  if (!(gib > 0) || !(gib <= 1024.0 * 1024.0)) throw Error("--memory-gb: give a size in (0, 1048576] GiB");
  return static_cast<std::uint64_t>(gib * 1024.0 * 1024.0 * 1024.0);
}

/// The comma-separated schemes of --scheme, or the default list for `layers` when it is not given.
std::vector<schemes::Scheme> parse_schemes(const po::variables_map& vm, const std::vector<Layer>& layers) {
  if (!vm.count("scheme")) return schemes::default_schemes(layers);
  std::vector<schemes::Scheme> list;
  for (const std::string& s : comma_items(vm["scheme"].as<std::string>(), "scheme")) {
    try {
      list.push_back(schemes::parse_scheme(s));
    } catch (const Error& e) {
      throw Error(std::string("--scheme: ") + e.what());
    }
    for (std::size_t i = 0; i + 1 < list.size(); ++i)
      if (list[i].name() == list.back().name()) throw Error("--scheme: '" + s + "' given twice");
  }
  if (list.empty()) throw Error("--scheme: give at least one scheme");
  return list;
}

/// The GPU file of the step's estimate: --gpu's if given; else the built-in one listing CUDA's name of the card,
/// --gpu-device's or else `measured_device` (the GPU that ran; empty: none); else --gpu's default (a card no file
/// lists said on stderr).
std::string estimated_gpu(const po::variables_map& vm, const std::string& measured_device) {
  const std::string device = vm.count("gpu-device") ? vm["gpu-device"].as<std::string>() : measured_device;
  if (const std::optional<std::string> builtin = gpu_of_run(vm, device)) return *builtin;
  if (!vm["gpu"].defaulted() || device.empty()) return vm["gpu"].as<std::string>();
  fmt::print(stderr, "note: no built-in GPU file names the card '{}'; the estimate is for the {}\n", device,
             vm["gpu"].as<std::string>());
  return vm["gpu"].as<std::string>();
}

/// The options a model was built with (resolution, sequence length, the zoo file), added to a report's workload.
void add_build_options(nlohmann::ordered_json& workload, const ModelOptions& o, const po::variables_map& vm) {
  if (o.resolution) workload["resolution"] = o.resolution;
  if (o.seq_len) workload["seq_len"] = o.seq_len;
  if (vm.count("model-file")) workload["model_file"] = vm["model-file"].as<std::string>();
}

}  // namespace

int train(const Args& args) {
  po::options_description options("ecosim train");
  options.add_options()("help,h", "this help")("model", po::value<std::string>(),
                                               "zoo model (its own attention), e.g. resnet50, vgg16, deit_tiny, "
                                               "swin_tiny, bert_large")(
      "batch", po::value<std::int64_t>()->default_value(1), "batch size")(
      "resolution", po::value<std::int64_t>(), "image models: input height = width (default: the model's)")(
      "seq-len", po::value<std::int64_t>(), "sequence models: tokens (default: the model's)")(
      "scheme", po::value<std::string>(),
      "activation schemes, comma-separated: none, amp, actnn:L1|L2|L3, gact:B (1, 2, 4, 8, 32), gact:avgB (an "
      "average budget of B bits allocated per tensor), mesa, fewbit:B "
      "(1-4) (default: none, amp, actnn:L3, gact:4, mesa, fewbit:2 where each applies)")(
      "optimizer", po::value<std::string>()->default_value("sgd"), "sgd (momentum, weight decay) or adamw")(
      "convention", po::value<std::string>()->default_value("exact"),
      "exact or paper (mmcv MACs; gradient GEMMs twice the forward)")(
      "format", po::value<std::string>()->default_value("table"), "table, json or csv")(
      "out", po::value<std::string>(),
      "also write train.json, train.csv, memory_curve.csv and train.png (the memory curves) into this folder")(
      "accel", po::value<std::string>()->default_value("bitfusion-45nm"), "built-in accelerator pricing the step")(
      "accel-config", po::value<std::string>(),
      "accelerator JSON file, merged over the built-in one (format: accel_model/README.md)")(
      "engine", po::value<std::string>()->default_value("closed-form"), "accelerator timing: closed-form or systemc")(
      "gpu", po::value<std::string>()->default_value("h100-sxm"),
      "GPU whose modelled step time is estimated (not given, with --measure-gpu: the GPU that ran where a built-in "
      "file lists CUDA's name of it)")(
      "gpu-device", po::value<std::string>(),
      "instead of --gpu: the GPU as CUDA names it (torch.cuda.get_device_name(), e.g. 'NVIDIA H200'): the built-in "
      "GPU file that lists the name, else --gpu's default with a note")(
      "measure-gpu", po::value<std::string>(),
      "also measure the step in PyTorch on this machine's GPU with the interpreter at this absolute path (a python3 "
      "whose torch sees the GPU): none, amp, and with the ecosim package importable gact, mesa, fewbit; the "
      "measured time replaces the estimate (kept as gpu_ms_estimate), or a note says why nothing was measured")(
      "max-batch", "instead of one step: the largest batch per scheme whose step peaks within --memory-gb")(
      "memory-gb", po::value<double>(), "with --max-batch: the memory in GiB (2^30 bytes)")(
      "onnx", po::value<std::string>(),
      "instead of --model: an ONNX export's graph (its shapes and batch are its own; its attention native)");
  options.add(model_file_option());
  options.add(onnx_options());
  po::variables_map vm;
  if (!parse_args(args, options, vm,
                  "ecosim train --model NAME [--batch B] | --onnx FILE  [--optimizer sgd|adamw] [options]",
                  "Memory is in bytes (GiB = 2^30 bytes in the table); activation_bytes is the sum of the distinct\n"
                  "tensors autograd saves for backward, peak_bytes the highest point of the memory curve.\n"))
    return 0;
  if (vm.count("model") == vm.count("onnx")) throw Error("give --model NAME or --onnx FILE");
  const Optimizer optimizer = parse_optimizer(vm["optimizer"].as<std::string>());
  const Convention convention = parse_convention(vm["convention"].as<std::string>());
  if (vm.count("measure-gpu") && vm.count("onnx"))
    throw Error("--measure-gpu builds the network from its zoo entry: it needs --model");
  if (vm.count("measure-gpu") && convention != Convention::exact)
    throw Error("--measure-gpu prices the step in the exact convention");
  if (vm.count("measure-gpu") && vm.count("max-batch")) throw Error("--measure-gpu measures one step, not --max-batch");
  if (vm.count("max-batch") || convention != Convention::exact)  // nothing is priced: a pricing option is unused
    reject_given(vm, {"accel", "accel-config", "engine", "gpu", "gpu-device"},
                 "pricing one step on the accelerator and the GPU (the exact convention, without --max-batch)");
  if (vm.count("gpu-device") && !vm["gpu"].defaulted()) throw Error("give --gpu or --gpu-device, not both");
  const Format format = parse_format(vm["format"].as<std::string>());
  std::optional<ReportFolder> folder;
  if (vm.count("out")) folder.emplace(vm["out"].as<std::string>());

  ModelOptions model_options;
  model_options.native_attention = true;
  model_options.batch = positive(vm, "batch");
  if (vm.count("resolution")) model_options.resolution = positive(vm, "resolution");
  if (vm.count("seq-len")) model_options.seq_len = positive(vm, "seq-len");
  const std::string model = vm.count("model") ? vm["model"].as<std::string>() : "";
  const ModelZoo zoo = model_zoo(vm);
  if (!model.empty()) reject_given(vm, {"strict", "onnx-max-bytes"}, "--onnx");
  if (vm.count("max-batch") && model.empty())  // (before an export is read, and warned about)
    throw Error("--max-batch rebuilds the model at each batch: it needs --model (an export's is fixed)");
  std::vector<Layer> layers;
  if (model.empty())
    std::tie(layers, model_options.batch) = onnx_step_layers(vm);
  else
    layers = zoo.build(model, model_options);
  if (vm.count("max-batch")) {
    const std::uint64_t memory = memory_bytes(vm);
    if (!vm["batch"].defaulted()) throw Error("--max-batch searches the batch: leave out --batch");
    if (folder) throw Error("--max-batch writes no --out folder");
    const schemes::NetworkAt network = [&](std::uint64_t batch) {
      ModelOptions o = model_options;
      o.batch = batch;
      return zoo.build(model, o);
    };
    nlohmann::ordered_json workload{{"model", model}, {"optimizer", name(optimizer)}};
    add_build_options(workload, model_options, vm);
    std::cout << max_batch_report(workload, parse_schemes(vm, layers), network, optimizer, memory, format);
    return 0;
  }
  if (vm.count("memory-gb")) throw Error("--memory-gb needs --max-batch");

  const std::vector<schemes::Scheme> list = parse_schemes(vm, layers);
  const TrainingStep step = training_step(layers, optimizer, convention);
  std::vector<SchemeStep> steps;
  for (const schemes::Scheme& s : list) steps.push_back(schemes::apply_scheme(s, layers, step, model_options.batch));
  StepPrices prices(steps.size());  // priced in the exact convention only (the accelerator's work)
  std::string accel_name, gpu_name = estimated_gpu(vm, "");
  std::optional<gpu::GpuSpec> estimate_gpu;
  if (convention == Convention::exact) {
    const PricingSetup setup{parse_accel(vm), accel::parse_engine(vm["engine"].as<std::string>()),
                             gpu::builtin_gpu(gpu_name)};
    for (std::size_t i = 0; i < steps.size(); ++i)
      prices[i] =
          price_step(schemes::step_records(step, steps[i], layers), schemes::gpu_step_records(step, steps[i]), setup,
                     TechTable::builtin_45nm(), schemes::runs_under_autocast(list[i]), steps[i].peak_bytes);
    accel_name = setup.accel.name;
    estimate_gpu = setup.gpu;
  }

  std::optional<StepMeasurement> measured;
  if (vm.count("measure-gpu")) {
    measured.emplace(
        measure_step_on_gpu(vm["measure-gpu"].as<std::string>(), zoo, model, model_options, list, optimizer));
    if (!measured->why_not.empty())
      fmt::print(stderr, "note: the GPU step was not measured ({}); gpu_ms stays the GPU model's estimate\n",
                 measured->why_not);
    // the estimate beside the measurement: of the GPU that ran where --gpu (or --gpu-device) did not say
    if (!vm.count("gpu-device") && !measured->device_name.empty() && estimate_gpu) {
      const std::string ran = estimated_gpu(vm, measured->device_name);
      if (ran != gpu_name) {
        gpu_name = ran;
        estimate_gpu = gpu::builtin_gpu(ran);
        for (std::size_t i = 0; i < steps.size(); ++i)
          price_on_gpu(*prices[i], schemes::gpu_step_records(step, steps[i]), *estimate_gpu,
                       schemes::runs_under_autocast(list[i]), steps[i].peak_bytes);
      }
    }
  }
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (prices[i] && !prices[i]->gpu_fits)
      fmt::print(stderr,
                 "warning: {}: the step's peak memory ({:.1f} GB) exceeds the {}'s {:.1f} GB; its gpu_ms (gpu_fits "
                 "false) assumes memory the GPU does not have\n",
                 list[i].name(), double(steps[i].peak_bytes) / 1e9, estimate_gpu->name,
                 double(estimate_gpu->memory_bytes) / 1e9);

  if (measured)
    for (std::size_t i = 0; i < steps.size(); ++i)
      if (const auto it = measured->schemes.find(list[i].name()); it != measured->schemes.end() && prices[i]) {
        prices[i]->gpu_ms_estimate = prices[i]->gpu_ms;
        prices[i]->gpu_ms = it->second.step_ms;
        prices[i]->gpu_peak_bytes_measured = it->second.peak_bytes;
        prices[i]->gpu_label = measured_label(*measured, list[i]);
      }

  nlohmann::ordered_json workload = model.empty()
                                        ? nlohmann::ordered_json{{"onnx", vm["onnx"].as<std::string>()},
                                                                 {"parameters_counted",
                                                                  "the Linear/Gemm, Conv and normalization layers' "
                                                                  "weights, and the floating-point initializers "
                                                                  "read directly by elementwise and data-movement "
                                                                  "ops (tables, tokens, biases: a graph does not "
                                                                  "tell them from other constants read so)"},
                                                                 {"batch", model_options.batch}}
                                        : nlohmann::ordered_json{{"model", model}, {"batch", model_options.batch}};
  workload["optimizer"] = name(optimizer);
  workload["convention"] = name(convention);
  if (convention == Convention::exact) {
    workload["accel"] = accel_name;
    workload["engine"] = vm["engine"].as<std::string>();
    workload["gpu"] = gpu_name;
  }
  add_build_options(workload, model_options, vm);
  if (measured && measured->why_not.empty())  // what autograd saved in PyTorch's fp32 forward, beside none's
    workload["autograd_saved_bytes_measured"] = measured->saved_activation_bytes;
  const TechTable& tech = TechTable::builtin_45nm();
  const nlohmann::ordered_json prov = provenance(tech);
  const std::string json = train_json(workload, step, steps, prices, tech, prov).dump(2) + "\n";
  const std::string csv = train_csv(step, steps, prices, prov);
  if (folder) {
    folder->create();
    const std::string curve = memory_curve_csv(steps);
    const std::pair<const char*, const std::string*> files[] = {
        {"train.json", &json}, {"train.csv", &csv}, {"memory_curve.csv", &curve}};
    for (const auto& file : files) {  // (a plain pair: clang's lambdas cannot capture structured bindings)
      const std::string* text = file.second;
      folder->write(file.first, [&](const std::string& path) { write_file_atomically(path, *text); });
    }
    folder->keep();
    plot_memory_curves(vm["out"].as<std::string>());
  }
  std::cout << (format == Format::json  ? json
                : format == Format::csv ? csv
                                        : train_table(workload, step, steps, prices, prov));
  return 0;
}

}  // namespace ecosim::cli
