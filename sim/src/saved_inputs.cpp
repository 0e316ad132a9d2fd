// A folder of one kernel run's inputs: the manifest written and read, the .npy files checked against the
// shapes the variant's kernel reads.
#include "saved_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/input_files.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/text_file.hpp"
#include "ecosim/traces/atomic_file.hpp"
#include "variant_parameters.hpp"

namespace ecosim::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kFormat = "ecosim attention inputs";
constexpr std::uint64_t kVersion = 1;
constexpr std::uintmax_t kMaxManifestBytes = 1 << 20;  // a real one is about 2 KiB

/// Q, K and V as arrays of the folder, with what each holds for this variant.
std::vector<ecoformer::ParameterSpec> input_specs(const AttentionConfig& c) {
  const std::vector<std::uint64_t> shape = {c.batch, c.heads, c.seq, c.head_dim};
  const bool shared = variant_info(c.variant).shares_qk;
  return {{"q", shape, shared ? "queries, also the keys: this variant shares them" : "queries"},
          {"k", shape, shared ? "keys, not read: this variant takes its keys from q" : "keys"},
          {"v", shape, "values"}};
}

std::string shape_text(const std::vector<std::uint64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

/// "DIR/name" as messages show it.
std::string in_folder(const std::string& dir, const std::string& name) { return (fs::path(dir) / name).string(); }

const json& field(const json& object, const std::string& key, const std::string& origin) {
  if (!object.is_object()) throw Error(origin + ": is not a JSON object");
  if (!object.contains(key)) throw Error(origin + ": lacks '" + key + "'");
  return object.at(key);
}

std::string string_field(const json& object, const std::string& key, const std::string& origin) {
  const json& v = field(object, key, origin);
  if (!v.is_string()) throw Error(origin + ": '" + key + "' is not a string");
  return v.get<std::string>();
}

std::uint64_t positive_field(const json& object, const std::string& key, const std::string& origin) {
  const json& v = field(object, key, origin);
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0)
    throw Error(origin + ": '" + key + "' is not a positive integer (" + v.dump() + ")");
  return v.get<std::uint64_t>();
}

ecoformer::NpyDtype dtype_named(const std::string& text, const std::string& origin) {
  for (ecoformer::NpyDtype d :
       {ecoformer::NpyDtype::float32, ecoformer::NpyDtype::float16, ecoformer::NpyDtype::bfloat16})
    if (ecoformer::dtype_name(d) == text) return d;
  throw Error(origin + ": dtype '" + text + "' is not float32, float16 or bfloat16");
}

/// Every array of the folder: the inputs, then the kernel's parameters.
std::vector<ecoformer::ParameterSpec> folder_arrays(const AttentionConfig& c) {
  std::vector<ecoformer::ParameterSpec> arrays = input_specs(c);
  for (ecoformer::ParameterSpec& s : ecoformer::kernel_parameter_specs(c)) arrays.push_back(std::move(s));
  return arrays;
}

}  // namespace

SavedInputsWriter::SavedInputsWriter(const std::string& dir, const AttentionConfig& config)
    : folder_(dir), config_(config) {
  std::vector<std::string> names = {kManifestFile};
  for (const ecoformer::ParameterSpec& s : folder_arrays(config)) names.push_back(s.name + ".npy");
  for (const std::string& name : names) {
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(fs::path(dir) / name, ec);
    if (status.type() != fs::file_type::not_found && status.type() != fs::file_type::regular)
      throw Error("cannot save inputs: '" + in_folder(dir, name) + "' exists and is not a regular file");
  }
}

void SavedInputsWriter::write(const ecoformer::AttentionInputs& inputs, const ecoformer::KernelParameters& parameters,
                              std::uint64_t seed) {
  ecoformer::check_kernel_parameters(parameters, config_);
  json files = json::array();
  folder_.create();
  for (const ecoformer::ParameterSpec& s : folder_arrays(config_)) {
    const bool is_input = s.name == "q" || s.name == "k" || s.name == "v";
    const std::vector<float>& data = s.name == "q"   ? inputs.q.data
                                     : s.name == "k" ? inputs.k.data
                                     : s.name == "v" ? inputs.v.data
                                                     : parameters.at(s.name);
    const std::string file = s.name + ".npy", bytes = ecoformer::npy_bytes(s.shape, data);
    folder_.write(file, [&](const std::string& path) {
      // an --input that is this very file (run --input d/q.npy,... --save-inputs d) already holds these bytes
      if (is_input && is_input_file(path) && read_text_file(path, bytes.size() + 1) == bytes) return;
      write_file_atomically(path, bytes);
    });
    files.push_back(json{{"name", s.name},
                         {"file", file},
                         {"role", is_input ? "input" : "parameter"},
                         {"shape", s.shape},
                         {"dtype", ecoformer::dtype_name(ecoformer::NpyDtype::float32)},
                         {"meaning", s.meaning}});
  }
  const json manifest = {{"format", kFormat},
                         {"version", kVersion},
                         {"variant", name(config_.variant)},
                         {"seed", seed},
                         {"batch", config_.batch},
                         {"heads", config_.heads},
                         {"seq", config_.seq},
                         {"dim", config_.head_dim},
                         {"causal", config_.causal},
                         {"parameters", describe_parameters(config_)},
                         {"files", files}};
  folder_.write(kManifestFile, [&](const std::string& path) { write_file_atomically(path, manifest.dump(2) + "\n"); });
  folder_.keep();
}

SavedInputs read_saved_manifest(const std::string& dir) {
  const std::string origin = in_folder(dir, kManifestFile);
  std::error_code ec;
  if (!fs::is_regular_file(fs::path(dir) / kManifestFile, ec))
    throw Error("--params " + dir + ": no " + kManifestFile +
                " there (write the folder with `ecosim run --save-inputs " + dir + "`)");
  if (fs::file_size(fs::path(dir) / kManifestFile, ec) > kMaxManifestBytes)
    throw Error(fmt::format("{}: larger than {} bytes, not a manifest", origin, kMaxManifestBytes));
  const std::string text = read_text_file((fs::path(dir) / kManifestFile).string(), kMaxManifestBytes);
  json manifest;
  try {
    manifest = parse_json(text, kManifestFile);  // bounded nesting, duplicate keys refused
  } catch (const Error& e) {
    throw Error(origin + ": not valid JSON (" + e.what() + ")");
  }
  if (string_field(manifest, "format", origin) != kFormat)
    throw Error(origin + ": 'format' is not \"" + kFormat + "\"");
  if (field(manifest, "version", origin) != kVersion)
    throw Error(fmt::format("{}: version {} is not {}", origin, field(manifest, "version", origin).dump(), kVersion));
  SavedInputs saved;
  AttentionConfig& c = saved.config;
  c.variant = attention_variant_named(string_field(manifest, "variant", origin));
  c.projections = false;
  c.batch = positive_field(manifest, "batch", origin);
  c.heads = positive_field(manifest, "heads", origin);
  c.seq = positive_field(manifest, "seq", origin);
  c.head_dim = positive_field(manifest, "dim", origin);
  const json& seed = field(manifest, "seed", origin);
  if (!seed.is_number_unsigned()) throw Error(origin + ": 'seed' is not a non-negative integer");
  saved.seed = seed.get<std::uint64_t>();
  if (manifest.contains("causal")) {  // (absent in folders written before it was recorded: not causal)
    if (!manifest["causal"].is_boolean()) throw Error(origin + ": 'causal' is not true or false");
    c.causal = manifest["causal"].get<bool>();
  }
  read_described_parameters(field(manifest, "parameters", origin), c, origin + ": parameters");
  c.validate();

  const json& files = field(manifest, "files", origin);
  if (!files.is_array()) throw Error(origin + ": 'files' is not an array");
  const std::vector<ecoformer::ParameterSpec> arrays = folder_arrays(c);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string where = fmt::format("{}: files[{}]", origin, i);
    const std::string array = string_field(files[i], "name", where), file = string_field(files[i], "file", where);
    const auto spec =
        std::find_if(arrays.begin(), arrays.end(), [&](const ecoformer::ParameterSpec& s) { return s.name == array; });
    if (spec == arrays.end()) throw Error(fmt::format("{}: {} reads no array '{}'", where, name(c.variant), array));
    if (file.empty() || file == "." || file == ".." || file.find('/') != std::string::npos)
      throw Error(where + ": file '" + file + "' is not a plain file name inside " + dir);
    const json& shape = field(files[i], "shape", where);
    if (shape != json(spec->shape))
      throw Error(fmt::format("{}: '{}' has shape {}, {} with these parameters reads {}", where, array, shape.dump(),
                              name(c.variant), shape_text(spec->shape)));
    const ecoformer::NpyDtype dtype = dtype_named(string_field(files[i], "dtype", where), where);
    if (!saved.files.emplace(array, SavedInputs::File{file, dtype}).second)
      throw Error(where + ": '" + array + "' is named twice");
  }
  for (const ecoformer::ParameterSpec& s : arrays)
    if (!saved.files.count(s.name))
      throw Error(fmt::format("{}: names no file for '{}' ({} {}: {})", origin, s.name, name(c.variant),
                              shape_text(s.shape), s.meaning));
  return saved;
}

void read_saved_arrays(const std::string& dir, SavedInputs& saved) {
  const AttentionConfig& c = saved.config;
  for (const ecoformer::ParameterSpec& s : folder_arrays(c)) {
    const SavedInputs::File& entry = saved.files.at(s.name);
    const std::string path = in_folder(dir, entry.file);
    const std::string expected =
        fmt::format("{} {} {} ({})", s.name, ecoformer::dtype_name(entry.dtype), shape_text(s.shape), s.meaning);
    std::error_code ec;
    if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))
      throw Error(path + ": not a regular file; expected " + expected);
    ecoformer::NpyArray a;
    try {
      a = ecoformer::read_npy(path, entry.dtype == ecoformer::NpyDtype::bfloat16 ? ecoformer::Uint16Data::bfloat16_bits
                                                                                 : ecoformer::Uint16Data::refused);
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + "; expected " + expected);
    }
    if (a.shape != s.shape) throw Error(fmt::format("{}: shape {}, expected {}", path, shape_text(a.shape), expected));
    if (a.dtype != entry.dtype)
      throw Error(fmt::format("{}: dtype {}, but {} says {}", path, ecoformer::dtype_name(a.dtype), kManifestFile,
                              ecoformer::dtype_name(entry.dtype)));
    if (s.name == "q" || s.name == "k" || s.name == "v") {
      ecoformer::Tensor& t = s.name == "q" ? saved.inputs.q : s.name == "k" ? saved.inputs.k : saved.inputs.v;
      t = {c.batch, c.heads, c.seq, c.head_dim, std::move(a.data)};
    } else {
      saved.parameters.emplace(s.name, std::move(a.data));
    }
  }
  ecoformer::check_kernel_parameters(saved.parameters, c);
}

}  // namespace ecosim::cli
