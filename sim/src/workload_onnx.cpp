// The --onnx workload: an imported ONNX model, with its attention blocks kept (native) or swapped for a variant.
#include <fmt/core.h>

#include "ecosim/ops_counter/error.hpp"
#include "workload.hpp"

namespace ecosim::cli {

po::options_description onnx_options() {
  po::options_description o("ONNX model");
  o.add_options()("strict", "--onnx: refuse op types the importer does not know (default: warn, count as zero)")(
      "onnx-max-bytes", po::value<std::int64_t>()->default_value(OnnxImportOptions{}.max_file_bytes),
      "--onnx: largest model file read");
  return o;
}

void parse_onnx_workload(const po::variables_map& vm, Workload& w) {
  reject_given(vm, {"heads", "seq", "dim", "no-proj", "batch", "resolution", "seq-len", "model-file"},
               "--model or --layer (an ONNX model's shapes are its own)");
  OnnxImportOptions options;
  options.strict = vm.count("strict") > 0;
  options.max_file_bytes = positive(vm, "onnx-max-bytes");
  w.onnx = vm["onnx"].as<std::string>();
  if (vm.count("rules")) {
    const std::string rules = vm["rules"].as<std::string>();
    if (rules != "mmcv" && rules != "fvcore") throw Error("--rules must be 'mmcv' or 'fvcore', got '" + rules + "'");
    w.fvcore_rules = rules == "fvcore";
    if (w.fvcore_rules && w.convention != Convention::paper)
      throw Error("--rules fvcore counts MACs: it needs --convention paper");
  }
  auto model = std::make_shared<OnnxModel>(import_onnx(w.onnx, options));
  if (!model->unknown_ops.empty())
    fmt::print(stderr, "warning: {}: op types not counted (counted as zero; --strict refuses them): {}\n", w.onnx,
               unknown_op_summary(*model));
  if (!model->unmatched_attention.empty())
    fmt::print(stderr, "warning: {}: {}\n", w.onnx, unmatched_attention_warning(*model));
  w.onnx_model = std::move(model);
  if (!w.model_options.native_attention) w.onnx_swap = w.layer;
  w.layers();  // validates the swap against every attention block now
  if (w.onnx_swap) {
    const std::string note = swap_dropped_terms_note(*w.onnx_model, w.onnx_swap->variant);
    if (!note.empty()) fmt::print(stderr, "note: {}: {}\n", w.onnx, note);
  }
}

}  // namespace ecosim::cli
