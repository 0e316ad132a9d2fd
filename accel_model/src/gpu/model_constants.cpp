// The GPU model's constants (accel_model/data/gpu_kernel_model.json), read strictly, and the names of its
// attention implementations, passes and bandwidth-bound operations.
#include <array>

#include <fmt/core.h>

#include "ecosim/accel_model/gpu/kernel_model.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"

namespace ecosim::embedded {
std::string_view gpu_kernel_model();
}

namespace ecosim::gpu {

namespace {

constexpr std::array<std::string_view, 6> kImplNames = {"flash2", "flash3", "cudnn", "naive", "ecosim", "sdpa-math"};
constexpr std::array<std::string_view, 3> kBandwidthOpNames = {"copy", "softmax", "rmsnorm"};
constexpr Range<double> kConstant{0, 1e6, ""};

template <class Enum, std::size_t N>
Enum parse_name(std::string_view name, const std::array<std::string_view, N>& names, std::string_view what) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  std::string valid;
  for (auto n : names) valid += (valid.empty() ? "" : ", ") + std::string(n);
  throw Error(fmt::format("unknown {} '{}' (valid: {})", what, name, valid));
}

}  // namespace

AttentionImpl parse_attention_impl(std::string_view name) {
  return parse_name<AttentionImpl>(name, kImplNames, "attention implementation");
}
std::string_view attention_impl_name(AttentionImpl impl) { return kImplNames[static_cast<std::size_t>(impl)]; }
void set_attention_pass(AttentionShape& shape, std::string_view pass) {
  if (pass != "fwd" && pass != "bwd" && pass != "fwd+bwd")
    throw Error(fmt::format("unknown attention pass '{}' (valid: fwd, bwd, fwd+bwd)", pass));
  shape.forward = pass != "bwd";
  shape.backward = pass != "fwd";
}

BandwidthOp parse_bandwidth_op(std::string_view name) {
  return parse_name<BandwidthOp>(name, kBandwidthOpNames, "bandwidth-bound op");
}

const KernelModel& KernelModel::builtin() {
  static const KernelModel model = parse(embedded::gpu_kernel_model(), "builtin gpu_kernel_model.json");
  return model;
}

KernelModel KernelModel::parse(std::string_view json_text, const std::string& origin) {
  const nlohmann::json doc = parse_json(json_text, origin);
  const JsonReader r(doc, origin);
  r.exact_keys({"description", "constants"});
  KernelModel model;
  for (const auto& [name, entry] : r.object("constants").items()) {
    const std::string path = "constants." + name;
    JsonReader(entry, fmt::format("{}: {}", origin, path)).exact_keys({"value", "basis", "tuned_on"});
    ModelConstant c{r.number(path + ".value", kConstant), r.text(path + ".basis"), {}};
    const nlohmann::json& tuned = r.list(path + ".tuned_on");
    for (std::size_t i = 0; i < tuned.size(); ++i) {
      if (!tuned[i].is_string()) r.fail(fmt::format("{}.tuned_on[{}]", path, i), "must be a point id (string)");
      c.tuned_on.push_back(tuned[i].get<std::string>());
    }
    model.constants_.emplace(name, std::move(c));
  }
  return model;
}

double KernelModel::value(const std::string& name) const {
  const auto it = constants_.find(name);
  if (it == constants_.end()) throw Error("GPU model constant '" + name + "' is missing from gpu_kernel_model.json");
  return it->second.value;
}

}  // namespace ecosim::gpu
