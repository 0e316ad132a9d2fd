// Strict reading of the published GPU measurements and the model's prediction of each point.
#include "ecosim/accel_model/gpu/measurements.hpp"

#include <array>
#include <cmath>
#include <set>

#include <fmt/core.h>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"

namespace ecosim::embedded {
std::string_view gpu_measurements();
}

namespace ecosim::gpu {

namespace {

constexpr std::array<std::string_view, 5> kClassNames = {"gemm", "fused attention", "unfused attention", "bandwidth",
                                                         "ecosim kernel"};
constexpr Range<std::uint64_t> kDimension{1, std::uint64_t{1} << 40, ""};
constexpr Range<double> kMetric{1e-3, 1e7, ""};

/// `parse(text at key)`, its error naming the file, the point and the key.
template <class Parse>
auto parse_key(const JsonReader& r, const std::string& key, Parse parse) {
  const std::string text = r.text(key);
  try {
    return parse(text);
  } catch (const Error& e) {
    r.fail(key, e.what());
  }
}

/// One point, read by `r` rooted at it.
MeasuredPoint parse_point(const JsonReader& r, const std::set<std::string>& sources) {
  MeasuredPoint m;
  m.id = r.text("id");
  m.source = r.text("source");
  if (!sources.contains(m.source)) r.fail("source", "'" + m.source + "' is not one of the file's sources");
  m.gpu = r.text("gpu");
  parse_key(r, "gpu", [](const std::string& name) { return builtin_gpu(name); });  // unknown: an error here
  m.op = r.text("op");
  m.conditions = r.text("conditions");
  const DType dtype = parse_key(r, "dtype", [](const std::string& name) { return parse_dtype(name); });
  if (r.has("timed")) m.timed = parse_key(r, "timed", [](const std::string& name) { return parse_timed(name); });
  if (m.op == "gemm") {
    m.kernel_class = KernelClass::gemm;
    m.gemm = {r.count("m", kDimension), r.count("n", kDimension), r.count("k", kDimension), 1, dtype};
  } else if (m.op == "attention") {
    m.impl = r.text("impl");
    const AttentionImpl impl = parse_key(r, "impl", [](const std::string& name) { return parse_attention_impl(name); });
    m.kernel_class = impl == AttentionImpl::ecosim                                      ? KernelClass::ecosim_kernel
                     : impl == AttentionImpl::naive || impl == AttentionImpl::sdpa_math ? KernelClass::unfused_attention
                                                                                        : KernelClass::fused_attention;
    m.attention = {r.count("batch", kDimension),
                   r.count("heads", kDimension),
                   r.count("seq", kDimension),
                   r.has("kv_seq") ? r.count("kv_seq", kDimension) : 0,
                   r.count("dim", kDimension),
                   r.flag("causal"),
                   false,
                   dtype};
    parse_key(r, "pass", [&m](const std::string& pass) {
      set_attention_pass(m.attention, pass);
      return 0;
    });
  } else {
    parse_key(r, "op", [](const std::string& name) { return parse_bandwidth_op(name); });
    m.kernel_class = KernelClass::bandwidth;
    m.rows = {r.count("rows", kDimension), r.count("cols", kDimension), dtype};
  }
  return m;
}

}  // namespace

std::string_view kernel_class_name(KernelClass c) { return kClassNames[static_cast<std::size_t>(c)]; }

std::vector<MeasuredPoint> builtin_measurements() {
  return parse_measurements(embedded::gpu_measurements(), "builtin gpu_measurements.json");
}

std::vector<MeasuredPoint> parse_measurements(std::string_view json_text, const std::string& origin) {
  const nlohmann::json doc = parse_json(json_text, origin);
  const JsonReader r(doc, origin);
  r.exact_keys({"description", "sources", "points"});
  std::set<std::string> sources;
  for (const auto& [key, value] : r.object("sources").items()) {
    r.text("sources." + key);
    sources.insert(key);
  }
  const nlohmann::json& points = r.list("points");
  std::vector<MeasuredPoint> out;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string where = fmt::format("{}: points[{}]", origin, i);
    const JsonReader pr(points[i], where);
    const std::string op = pr.has("op") ? pr.text("op") : "";
    const std::initializer_list<std::string_view> metric = {"tflops", "gbs", "gbs_range"};
    if (op == "gemm")
      pr.exact_keys({"id", "source", "gpu", "op", "dtype", "conditions", "m", "n", "k"}, metric);
    else if (op == "attention")
      pr.exact_keys({"id", "source", "gpu", "op", "dtype", "conditions", "impl", "pass", "batch", "heads", "seq", "dim",
                     "causal"},
                    {"tflops", "gbs", "gbs_range", "timed", "kv_seq"});
    else
      pr.exact_keys({"id", "source", "gpu", "op", "dtype", "conditions", "rows", "cols"},
                    {"tflops", "gbs", "gbs_range", "timed"});
    MeasuredPoint m = parse_point(pr, sources);
    if (!ids.insert(m.id).second) pr.fail("id", "duplicate point id '" + m.id + "'");
    const int metrics = pr.has("tflops") + pr.has("gbs") + pr.has("gbs_range");
    if (metrics != 1) pr.fail("tflops", "give exactly one of tflops, gbs, gbs_range");
    if (pr.has("gbs_range")) {
      const nlohmann::json& range = pr.list("gbs_range");
      if (range.size() != 2 || !range[0].is_number() || !range[1].is_number() || !(range[0] < range[1]))
        pr.fail("gbs_range", "must be [low, high] with low < high");
      m.metric = "gbs";
      m.low = range[0].get<double>();
      m.high = range[1].get<double>();
      if (!(m.low > 0)) pr.fail("gbs_range", "must be positive");
    } else {
      m.metric = pr.has("tflops") ? "tflops" : "gbs";
      m.low = m.high = pr.number(m.metric, kMetric);
    }
    out.push_back(std::move(m));
  }
  return out;
}

double modelled_value(const MeasuredPoint& point, const KernelModel& model) {
  const GpuSpec gpu = builtin_gpu(point.gpu);
  KernelTime t;
  switch (point.kernel_class) {
    case KernelClass::gemm: t = model.gemm(gpu, point.gemm); break;
    case KernelClass::fused_attention:
    case KernelClass::unfused_attention:
    case KernelClass::ecosim_kernel:
      t = model.timed(model.attention(gpu, parse_attention_impl(point.impl), point.attention), point.timed);
      break;
    case KernelClass::bandwidth:
      t = model.timed(model.bandwidth(gpu, parse_bandwidth_op(point.op), point.rows), point.timed);
      break;
  }
  return point.metric == "tflops" ? t.tflops() : t.gb_per_s();
}

double relative_error(const MeasuredPoint& point, double modelled) {
  if (modelled < point.low) return (modelled - point.low) / point.low;
  if (modelled > point.high) return (modelled - point.high) / point.high;
  return 0;
}

}  // namespace ecosim::gpu
