// Parsing of the shared workload options into a Workload, and the layers it counts.
#include "workload.hpp"

#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <iostream>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/hf_config.hpp"
#include "variant_parameters.hpp"

namespace ecosim::cli {

po::options_description model_file_option() {
  po::options_description o("Model file");
  o.add_options()("model-file", po::value<std::string>(),
                  "a zoo file (JSON, format in ops_counter/README.md) whose models --model names before the "
                  "built-in ones");
  return o;
}

ModelZoo model_zoo(const po::variables_map& vm) {
  ModelZoo builtin = ModelZoo::builtin();
  if (!vm.count("model-file")) return builtin;
  const std::string path = vm["model-file"].as<std::string>();
  const ModelZoo file = ModelZoo::load(path);
  ModelZoo zoo = file.overlaying(builtin);
  // a built-in model extending a name the file redefines inherits the file's entry: said, as its name is the
  // built-in's (PVTv2-B1 extends B0)
  if (vm.count("model")) {
    const std::vector<std::string> defined = file.names(), builtins = builtin.names();
    const auto in = [](const std::vector<std::string>& names, const std::string& name) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    const auto in_file = [&](const std::string& name) { return in(defined, name); };
    const std::string model = vm["model"].as<std::string>();
    if (!in_file(model) && in(builtins, model))
      for (const std::string& base : zoo.extends_chain(model))
        if (in_file(base)) {
          fmt::print(stderr,
                     "note: built-in model '{}' extends '{}', which {} redefines: it inherits the file's entry\n",
                     model, base, path);
          break;
        }
  }
  return zoo;
}

po::options_description decoder_options() {
  po::options_description o("Decoder LLMs (--model of the decoder family, or --hf-config)");
  o.add_options()("hf-config", po::value<std::string>(),
                  ("a Hugging Face config.json (model_type " + hf_model_types() + "), in place of --model").c_str())(
      "phase", po::value<std::string>(),
      "prefill (causal pass over --seq N tokens, default the model's context or its sliding window where shorter) or "
      "decode (--tokens T steps over a "
      "KV cache holding --context N tokens)")("context", po::value<std::int64_t>(),
                                              "decode: tokens already in the KV cache")(
      "tokens", po::value<std::int64_t>(), "decode: steps, one new token each (default 1)")(
      "kv-dtype", po::value<std::string>()->default_value("fp16"), "KV-cache element type (its bytes)")(
      "weight-dtype", po::value<std::string>()->default_value("fp16"), "weight element type (weight traffic)");
  return o;
}

namespace {

DType dtype_option(const po::variables_map& vm, const std::string& key) {
  const std::string text = vm[key].as<std::string>();
  const std::optional<DType> t = parse_dtype(text);
  if (!t) throw Error("--" + key + ": unknown data type '" + text + "'");
  return *t;
}

}  // namespace

void parse_decoder_phase(const po::variables_map& vm, ModelOptions& o) {
  DecoderPhase& p = o.phase;
  p.kv_dtype = dtype_option(vm, "kv-dtype");
  p.weight_dtype = dtype_option(vm, "weight-dtype");
  if (!vm.count("phase")) {
    reject_given(vm, {"context", "tokens", "seq"}, "--phase decode (--context, --tokens) or --phase prefill (--seq)");
    return;
  }
  const std::string phase = vm["phase"].as<std::string>();
  if (phase == "prefill") {
    p.phase = Phase::prefill;
    reject_given(vm, {"context", "tokens"}, "--phase decode");
    const bool seq = vm.count("seq") && !vm["seq"].defaulted();  // (compare's --seq defaults to its layer's N)
    if (seq && vm.count("seq-len")) throw Error("give the prefill length once: --seq or --seq-len");
    if (seq) o.seq_len = positive(vm, "seq");
  } else if (phase == "decode") {
    p.phase = Phase::decode;
    reject_given(vm, {"seq", "seq-len"}, "--phase prefill (a decode step's context is --context N)");
    if (!vm.count("context")) throw Error("--phase decode needs --context N (the tokens already in the KV cache)");
    p.context = positive(vm, "context");
    if (vm.count("tokens")) p.tokens = positive(vm, "tokens");
  } else {
    throw Error("--phase must be 'prefill' or 'decode', got '" + phase + "'");
  }
}

po::options_description workload_options(Convention convention) {
  po::options_description o("Workload");
  static const std::string model_help =
      fmt::format("zoo model: {} (or one of --model-file)", fmt::join(ModelZoo::builtin().names(), ", "));
  o.add_options()("model", po::value<std::string>(), model_help.c_str())(
      "layer", po::value<std::string>(), "'attention': count one attention layer of --batch/--heads/--seq/--dim")(
      "onnx", po::value<std::string>(), "an ONNX model file (static shapes; ops_counter/README.md, ONNX import)")(
      "attention", po::value<std::string>()->default_value("msa"),
      (variant_names([](const VariantInfo&) { return true; }, ", ") +
       ", or native (--model: the model's own attention, e.g. PVTv2's SRA, Twins' LSA/GSA; --onnx: the "
       "export's own ops, the default there)")
          .c_str())("convention", po::value<std::string>()->default_value(std::string(name(convention))),
                    "paper (mmcv MACs + DESIGN §3 attention formulas) or exact (every op performed; the only "
                    "one ecosim replay accepts)")("scope", po::value<std::string>()->default_value("model"),
                                                  "model, or attention (attention layers only)")(
      "resolution", po::value<std::int64_t>(), "image models: input height = width (default: the model's)")(
      "seq-len", po::value<std::int64_t>(), "sequence models: tokens (default: the model's)")(
      "batch", po::value<std::int64_t>()->default_value(1), "batch size")(
      "heads", po::value<std::int64_t>()->default_value(1), "--layer: heads H")(
      "seq", po::value<std::int64_t>(), "--layer: tokens N")("dim", po::value<std::int64_t>()->default_value(32),
                                                             "--layer: head width D (embedding H·D)")(
      "no-proj",
      "--layer: the attention core alone, without q/k/v/output projections (a variant's own key reduction kept: "
      "Linformer's, SRA's conv)")(
      "rules", po::value<std::string>(),
      "--onnx, paper convention: mmcv (the default: the convention's MAC rules) or fvcore (conv, linear and "
      "matmul MACs only, biases not counted: how torchvision, timm and fvcore publish GFLOPs)");
  o.add(model_file_option());
  o.add(decoder_options());
  o.add(onnx_options());
  o.add(variant_parameter_options());
  return o;
}

void reject_given(const po::variables_map& vm, std::initializer_list<std::string_view> keys,
                  std::string_view applies_to) {
  for (std::string_view key : keys)
    if (vm.count(std::string(key)) && !vm[std::string(key)].defaulted())
      throw Error(fmt::format("--{} does not apply here: it is for {}", key, applies_to));
}

void reject_model_layout_options(const po::variables_map& vm) {
  for (const VariantParameter* p : model_layout_parameters())
    reject_given(vm, {p->option()},
                 "--layer attention or --onnx (a zoo model's windows, reduction ratios and token grids are its own, "
                 "stage by stage)");
}

std::uint64_t positive(const po::variables_map& vm, const std::string& key) {
  const std::int64_t v = vm[key].as<std::int64_t>();
  if (v <= 0) throw Error("--" + key + " must be a positive integer, got " + std::to_string(v));
  return static_cast<std::uint64_t>(v);
}

std::vector<std::string> comma_items(const std::string& text, const std::string& option) {
  std::vector<std::string> items;
  std::size_t start = 0;
  for (std::size_t comma = text.find(',');; comma = text.find(',', start)) {
    items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (items.back().empty())
      throw Error(fmt::format("--{}: an empty item in '{}' (give items separated by single commas)", option, text));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

std::uint64_t non_negative(const po::variables_map& vm, const std::string& key) {
  const std::int64_t v = vm[key].as<std::int64_t>();
  if (v < 0) throw Error("--" + key + " must be ≥ 0, got " + std::to_string(v));
  return static_cast<std::uint64_t>(v);
}

Workload parse_workload(const po::variables_map& vm) {
  Workload w;
  w.convention = parse_convention(vm["convention"].as<std::string>());
  const std::string scope = vm["scope"].as<std::string>();
  if (scope != "model" && scope != "attention") throw Error("--scope must be 'model' or 'attention'");
  w.attention_scope = scope == "attention";

  AttentionConfig& a = w.layer;
  const std::string attention = vm["attention"].as<std::string>();
  // --onnx keeps the export's attention unless --attention names a variant
  w.model_options.native_attention = attention == "native" || (vm.count("onnx") && vm["attention"].defaulted());
  if (w.model_options.native_attention && !vm.count("model") && !vm.count("onnx") && !vm.count("hf-config"))
    throw Error("--attention native needs --model, --hf-config or --onnx (it means the model's own attention)");
  a.variant = w.model_options.native_attention ? AttentionVariant::msa : attention_variant_named(attention);
  a.batch = positive(vm, "batch");
  a.heads = positive(vm, "heads");
  a.head_dim = positive(vm, "dim");
  read_variant_parameters(vm, a);
  a.projections = !vm.count("no-proj");
  const std::vector<AttentionVariant> variants =
      w.model_options.native_attention ? std::vector<AttentionVariant>{} : std::vector<AttentionVariant>{a.variant};
  check_parameters_apply(vm, variants);

  if (vm.count("model") + vm.count("layer") + vm.count("onnx") + vm.count("hf-config") > 1)
    throw Error("give one of --model, --hf-config, --layer and --onnx");
  const bool zoo_model = vm.count("model") || vm.count("hf-config");  // a model of the zoo or a config.json
  if (vm.count("onnx") || vm.count("layer"))
    reject_given(vm, {"phase", "context", "tokens", "kv-dtype", "weight-dtype"},
                 "decoder models (--model, --hf-config)");
  if (zoo_model || vm.count("layer")) reject_given(vm, {"rules", "strict", "onnx-max-bytes"}, "--onnx");
  if (vm.count("onnx")) {
    parse_onnx_workload(vm, w);
  } else if (zoo_model) {
    reject_given(vm, {"heads", "dim", "no-proj"}, "--layer attention (a model's shapes are its own)");
    reject_model_layout_options(vm);
    if (!vm.count("phase")) reject_given(vm, {"seq"}, "--layer attention, or --phase prefill");
    if (vm.count("hf-config")) reject_given(vm, {"model-file"}, "--model");
    w.model_options.batch = a.batch;
    if (vm.count("resolution")) w.model_options.resolution = positive(vm, "resolution");
    if (vm.count("seq-len")) w.model_options.seq_len = positive(vm, "seq-len");
    parse_decoder_phase(vm, w.model_options);
    if (vm.count("hf-config")) {
      w.hf_config = vm["hf-config"].as<std::string>();
      w.zoo = hf_config_zoo(w.hf_config);
      w.model = hf_config_model_name(w.hf_config);
    } else {
      w.model = vm["model"].as<std::string>();
      if (vm.count("model-file")) w.model_file = vm["model-file"].as<std::string>();
      w.zoo = model_zoo(vm);
    }
    take_model_window(vm, w.zoo, w.model, a);
    w.model_options.attention = a;
    const std::vector<Layer> built = w.zoo.build(w.model, w.model_options);  // validates the model and options
    if (vm.count("attention") && !vm["attention"].defaulted() && !w.model_options.native_attention &&
        !has_attention(built))
      throw Error(fmt::format("--attention {}: model '{}' has no attention to swap (count it without --attention)",
                              vm["attention"].as<std::string>(), w.model));
    if (w.attention_scope && !has_attention(built))
      throw Error(fmt::format("--scope attention: model '{}' has no attention layers (its count would be 0)", w.model));
    if (const std::optional<DecoderFacts> facts = w.decoder_facts(); !facts)
      reject_given(vm, {"kv-dtype", "weight-dtype"}, "decoder models (the decoder family, --hf-config)");
    else if (facts->kv_bytes_per_token == 0)  // a recurrent variant's state, kept in fp32
      reject_given(vm, {"kv-dtype"}, "a KV cache (this attention keeps none: its recurrent state is fp32)");
  } else if (vm.count("layer")) {
    if (vm["layer"].as<std::string>() != "attention")
      throw Error("unknown layer '" + vm["layer"].as<std::string>() + "' (valid: attention)");
    reject_given(vm, {"resolution", "seq-len", "model-file"}, "--model");
    if (!vm.count("seq")) throw Error("--layer attention needs --seq N");
    a.seq = positive(vm, "seq");
    a.validate();
  } else {
    throw Error("give --model NAME, --onnx FILE or --layer attention");
  }
  note_attention_choices(w.layers());
  return w;
}

void note_attention_choices(const std::vector<Layer>& layers) {
  bool projected_up = false, banded = false, padded = false;
  for (const Layer& l : layers) {
    const auto* a = std::get_if<AttentionConfig>(&l.op);
    if (!a) continue;
    if (!projected_up && a->variant == AttentionVariant::linformer && a->proj_k > a->key_count()) {
      fmt::print(stderr,
                 "note: linformer projects the {} keys of '{}' up to k = {} rows (--proj-k): it costs more than "
                 "softmax attention there; k at most the keys projects them down\n",
                 a->key_count(), l.name, a->proj_k);
      projected_up = true;
    }
    if (!banded && a->variant == AttentionVariant::sliding && !a->causal && a->seq > 1) {
      fmt::print(stderr,
                 "note: sliding attends each query to the {} keys ending at it, a causal band: '{}' is not causal, so "
                 "each query's later keys are left out (a symmetric, Longformer-style window is not modelled)\n",
                 a->sliding_window, l.name);
      banded = true;
    }
    // Twins pads the grid to whole windows, padded tokens attending too: counted so, but a window far off the grid
    // multiplies the work without a word
    if (!padded && a->variant == AttentionVariant::lsa) {
      const std::uint64_t height = token_grid_height(*a),
                          tokens = checked_product({lsa_windows(*a), a->window, a->window});
      if (tokens > 2 * a->seq) {
        fmt::print(stderr,
                   "note: lsa pads the {} x {} token grid of '{}' to whole {} x {} windows: {} tokens where it has {} "
                   "({:.3g}x the attention's work; --window and --grid-height set the windows and the grid)\n",
                   height, a->seq / height, l.name, a->window, a->window, tokens, a->seq, double(tokens) / a->seq);
        padded = true;
      }
    }
  }
}

nlohmann::json Workload::describe() const {
  nlohmann::json j{
      {"attention", model_options.native_attention ? std::string("native") : std::string(name(layer.variant))},
      {"convention", name(convention)},
      {"scope", attention_scope ? "attention" : "model"},
      {"batch", layer.batch}};
  if (!onnx.empty()) {
    j["onnx"] = onnx;
    j["attention_blocks"] = onnx_model->attention.size();
    j["attention_shapes"] = nlohmann::json::array();  // each block found: its nodes and shape
    for (const FoundAttention& a : onnx_model->attention)
      j["attention_shapes"].push_back({{"nodes", a.nodes},
                                       {"batch", a.shape.batch},
                                       {"heads", a.shape.heads},
                                       {"kv_heads", a.shape.kv_heads},
                                       {"queries", a.shape.queries},
                                       {"keys", a.shape.keys},
                                       {"head_dim", a.shape.head_dim},
                                       {"causal", a.shape.causal}});
    j["unknown_ops"] = onnx_model->unknown_ops;  // op types counted as zero, by how many nodes
    j["unmatched_attention"] = onnx_model->unmatched_attention;
    j["rules"] = fvcore_rules ? "fvcore" : "mmcv";
    j.erase("batch");  // the export's own
  } else if (!model.empty()) {
    j["model"] = model;
    if (!model_file.empty()) j["model_file"] = model_file;
    if (!hf_config.empty()) j["hf_config"] = hf_config;
    if (const DecoderPhase& p = model_options.phase; p.phase != Phase::model_default) {
      j["phase"] = p.phase == Phase::prefill ? "prefill" : "decode";
      if (p.phase == Phase::decode) {
        j["context"] = p.context;
        j["tokens"] = p.tokens;
      }
    }
    if (decoder_facts()) {
      j["kv_dtype"] = name(model_options.phase.kv_dtype);
      j["weight_dtype"] = name(model_options.phase.weight_dtype);
    }
    if (model_options.resolution) j["resolution"] = model_options.resolution;
    if (model_options.seq_len) j["seq_len"] = model_options.seq_len;
  } else {
    j["layer"] = "attention";
    j["heads"] = layer.heads;
    j["seq"] = layer.seq;
    j["dim"] = layer.head_dim;
    j["projections"] = layer.projections;
  }
  if (!model_options.native_attention) j.update(describe_parameters(layer));  // native: the zoo's own
  return j;
}

std::vector<Layer> Workload::layers() const {
  if (single_layer()) return {{"attention", layer}};
  std::vector<Layer> all = onnx.empty() ? zoo.build(model, model_options) : onnx_layers(*onnx_model, onnx_swap);
  if (fvcore_rules) all = fvcore_layers(all);
  if (attention_scope) std::erase_if(all, [](const Layer& l) { return !is_attention(l); });
  return all;
}

void Workload::emit_records(OpSink& sink) const {
  for (const Layer& layer : layers()) emit(layer, convention, sink);
}

std::optional<DecoderFacts> Workload::decoder_facts() const {
  if (model.empty()) return std::nullopt;
  return zoo.decoder_facts(model, model_options);
}

std::vector<std::string> leading_argument_as(const std::vector<std::string>& args, const std::string& option) {
  std::vector<std::string> out = args;
  if (!out.empty() && !out[0].empty() && out[0][0] != '-') out.insert(out.begin(), "--" + option);
  return out;
}

bool parse_args(const std::vector<std::string>& args, const po::options_description& options, po::variables_map& vm,
                const std::string& usage_line, const std::string& help_epilogue) {
  const po::parsed_options parsed = po::command_line_parser(args).options(options).run();
  // a bare word is no option's value (a flag takes none: `--causal false` would run causal): refused, not dropped
  for (const po::option& o : parsed.options)
    if (o.string_key.empty())
      throw Error(fmt::format("unexpected argument '{}': every argument is an option (--name VALUE, or a flag alone)",
                              o.value.empty() ? std::string() : o.value.front()));
  // an option whose value was left out takes the next option as its value (`--trace --causal` wrote a file named
  // "--causal" and ran without --causal): a value in the next argument never starts with "--" (`--trace=--x.jsonl`
  // gives one so on purpose)
  for (const po::option& o : parsed.options)
    for (const std::string& value : o.value)
      if (value.starts_with("--") && o.original_tokens.size() > 1)
        throw Error(
            fmt::format("--{} takes a value, but got the option '{}' (give --{} its value first; a value "
                        "that starts with -- as --{}=VALUE)",
                        o.string_key, value, o.string_key, o.string_key));
  po::store(parsed, vm);
  if (vm.count("help")) {
    fmt::print(std::cout, "usage: {}\n\n", usage_line);
    std::ostringstream text;
    text << options;
    fmt::print(std::cout, "{}", text.str());
    if (!help_epilogue.empty()) fmt::print(std::cout, "\n{}", help_epilogue);
    return false;
  }
  po::notify(vm);
  return true;
}

}  // namespace ecosim::cli
