// Parsing of the shared workload options into a Workload, and the layers it counts.
#include "workload.hpp"

#include <fmt/core.h>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cli {

po::options_description workload_options() {
  po::options_description o("Workload");
  o.add_options()
      ("model", po::value<std::string>(),
       "zoo model: pvt_v2_b0..b5, pvt_v2_b2_li, twins_svt_s/b/l, lra_text, lra_retrieval")
      ("layer", po::value<std::string>(), "'attention': count one attention layer of --batch/--heads/--seq/--dim")
      ("attention", po::value<std::string>()->default_value("msa"),
       "msa|performer|linformer|reformer|ecoformer|fp-ecoformer|bi-ecoformer|lsh-ecoformer|klsh-ecoformer|sra|lsa, "
       "or native (--model: the model's own attention, e.g. PVTv2's SRA, Twins' LSA/GSA)")
      ("convention", po::value<std::string>()->default_value("paper"),
       "paper (mmcv MACs + DESIGN §3 attention formulas) or exact (every op performed)")
      ("scope", po::value<std::string>()->default_value("model"), "model, or attention (attention layers only)")
      ("resolution", po::value<std::int64_t>(), "image models: input height = width (default: the model's)")
      ("seq-len", po::value<std::int64_t>(), "sequence models: tokens (default: the model's)")
      ("batch", po::value<std::int64_t>()->default_value(1), "batch size")
      ("heads", po::value<std::int64_t>()->default_value(1), "--layer: heads H")
      ("seq", po::value<std::int64_t>(), "--layer: tokens N")
      ("dim", po::value<std::int64_t>()->default_value(32), "--layer: head width D (embedding H·D)")
      ("no-proj", "--layer: the attention core alone, without q/k/v/output projections");
  o.add(variant_parameter_options());
  return o;
}

po::options_description variant_parameter_options() {
  po::options_description o("Attention variant parameters");
  o.add_options()
      ("bits", po::value<std::int64_t>()->default_value(16), "EcoFormer hash bits b (1..64)")
      ("support", po::value<std::int64_t>()->default_value(25), "EcoFormer kernel anchors m (≤ N)")
      ("features", po::value<std::int64_t>()->default_value(256), "Performer random features")
      ("proj-k", po::value<std::int64_t>()->default_value(256), "Linformer projected length k")
      ("hashes", po::value<std::int64_t>()->default_value(2), "Reformer hash rounds")
      ("chunk", po::value<std::int64_t>()->default_value(64), "Reformer chunk length")
      ("chunks-before", po::value<std::int64_t>()->default_value(1), "Reformer chunks attended before each chunk")
      ("sr-ratio", po::value<std::int64_t>()->default_value(8), "SRA reduction conv kernel = stride (one layer)")
      ("grid-height", po::value<std::int64_t>()->default_value(0), "SRA/LSA token grid height (0: most nearly square)")
      ("window", po::value<std::int64_t>()->default_value(7), "LSA window side (one layer)");
  return o;
}

void read_variant_parameters(const po::variables_map& vm, AttentionConfig& c) {
  c.bits = positive(vm, "bits");
  c.support = positive(vm, "support");
  c.features = positive(vm, "features");
  c.proj_k = positive(vm, "proj-k");
  c.hashes = positive(vm, "hashes");
  c.chunk = positive(vm, "chunk");
  const std::int64_t before = vm["chunks-before"].as<std::int64_t>();
  if (before < 0) throw Error("--chunks-before must be ≥ 0");
  c.chunks_before = static_cast<std::uint64_t>(before);
  c.sr_ratio = positive(vm, "sr-ratio");
  const std::int64_t height = vm["grid-height"].as<std::int64_t>();
  if (height < 0) throw Error("--grid-height must be ≥ 0");
  c.grid_height = static_cast<std::uint64_t>(height);
  c.window = positive(vm, "window");
}

std::uint64_t positive(const po::variables_map& vm, const std::string& key) {
  const std::int64_t v = vm[key].as<std::int64_t>();
  if (v <= 0) throw Error("--" + key + " must be a positive integer, got " + std::to_string(v));
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
  w.model_options.native_attention = attention == "native";
  if (w.model_options.native_attention && !vm.count("model"))
    throw Error("--attention native needs --model (it means the model's own attention)");
  a.variant = w.model_options.native_attention ? AttentionVariant::msa : attention_variant_named(attention);
  a.batch = positive(vm, "batch");
  a.heads = positive(vm, "heads");
  a.head_dim = positive(vm, "dim");
  read_variant_parameters(vm, a);
  a.projections = !vm.count("no-proj");

  if (vm.count("model") && vm.count("layer")) throw Error("give --model or --layer, not both");
  if (vm.count("model")) {
    w.model = vm["model"].as<std::string>();
    w.model_options.attention = a;
    w.model_options.batch = a.batch;
    if (vm.count("resolution")) w.model_options.resolution = positive(vm, "resolution");
    if (vm.count("seq-len")) w.model_options.seq_len = positive(vm, "seq-len");
    ModelZoo::builtin().build(w.model, w.model_options);  // validates the model and the options now
  } else if (vm.count("layer")) {
    if (vm["layer"].as<std::string>() != "attention")
      throw Error("unknown layer '" + vm["layer"].as<std::string>() + "' (valid: attention)");
    if (!vm.count("seq")) throw Error("--layer attention needs --seq N");
    a.seq = positive(vm, "seq");
    a.validate();
  } else {
    throw Error("give --model NAME or --layer attention");
  }
  return w;
}

nlohmann::json Workload::describe() const {
  nlohmann::json j{{"attention", model_options.native_attention ? std::string("native") : std::string(name(layer.variant))},
                   {"convention", name(convention)},
                   {"scope", attention_scope ? "attention" : "model"},
                   {"batch", layer.batch}};
  if (!model.empty()) {
    j["model"] = model;
    if (model_options.resolution) j["resolution"] = model_options.resolution;
    if (model_options.seq_len) j["seq_len"] = model_options.seq_len;
  } else {
    j["layer"] = "attention";
    j["heads"] = layer.heads;
    j["seq"] = layer.seq;
    j["dim"] = layer.head_dim;
    j["projections"] = layer.projections;
  }
  if (model_options.native_attention) return j;  // the model's own attention: its parameters are the zoo's
  if (is_hashed(layer.variant)) {
    j["bits"] = layer.bits;
    j["support"] = layer.support;
  }
  if (layer.variant == AttentionVariant::performer) j["features"] = layer.features;
  if (layer.variant == AttentionVariant::linformer) j["proj_k"] = layer.proj_k;
  if (layer.variant == AttentionVariant::sra) j["sr_ratio"] = layer.sr_ratio;
  if (layer.variant == AttentionVariant::lsa) j["window"] = layer.window;
  if (layer.variant == AttentionVariant::reformer) {
    j["hashes"] = layer.hashes;
    j["chunk"] = layer.chunk;
    j["chunks_before"] = layer.chunks_before;
  }
  return j;
}

std::vector<Layer> Workload::layers() const {
  if (model.empty()) return {{"attention", layer}};
  std::vector<Layer> all = ModelZoo::builtin().build(model, model_options);
  if (attention_scope) std::erase_if(all, [](const Layer& l) { return !is_attention(l); });
  return all;
}

bool parse_args(const std::vector<std::string>& args, const po::options_description& options,
                po::variables_map& vm, const std::string& usage_line) {
  po::store(po::command_line_parser(args).options(options).run(), vm);
  if (vm.count("help")) {
    fmt::print("usage: {}\n\n", usage_line);
    std::ostringstream text;
    text << options;
    fmt::print("{}", text.str());
    return false;
  }
  po::notify(vm);
  return true;
}

}  // namespace ecosim::cli
