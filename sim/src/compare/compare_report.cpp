// The compare report's files: ratios to MSA computed here, published ratios from the data file, the workload
// described in words for the terminal and the chart.
#include "compare_report.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <array>

#include "csv_number.hpp"
#include "provenance.hpp"

namespace ecosim::cli {

namespace {

const CompareRow* msa_row(const CompareReport& r) {
  for (const auto& row : r.rows)
    if (row.variant == "msa") return &row;
  return nullptr;
}

double energy_of(const CompareRow& row) { return row.accel.energy.total_pj(); }

std::optional<double> ratio_to_msa(const CompareReport& r, const CompareRow& row, double (*value)(const CompareRow&)) {
  const CompareRow* msa = msa_row(r);
  if (!msa || value(*msa) <= 0) return std::nullopt;
  return value(row) / value(*msa);
}

/// A layer's workload numbers in words, in the order they are read.
struct LayerField {
  const char* key;
  const char* one;    // the phrase for the value 1
  const char* other;  // the phrase for any other value
};
constexpr std::array kLayerFields{
    LayerField{"batch", "batch {}", "batch {}"}, LayerField{"seq", "{} token", "{} tokens"},
    LayerField{"heads", "{} head", "{} heads"}, LayerField{"dim", "head width {}", "head width {}"}};

nlohmann::json timing_json(const std::optional<KernelTiming>& t) {
  if (!t) return nullptr;
  const timing::Stats& s = t->stats;
  return {{"device", t->device},      {"method", s.method}, {"warmup", s.warmup}, {"repetitions", s.repetitions},
          {"median_ms", s.median_ms}, {"q1_ms", s.q1_ms},   {"q3_ms", s.q3_ms},   {"min_ms", s.min_ms},
          {"max_ms", s.max_ms}};
}

}  // namespace

std::optional<double> latency_ratio(const CompareReport& r, const CompareRow& row) {
  return ratio_to_msa(r, row, [](const CompareRow& x) { return x.accel_latency_ms; });
}

std::optional<double> energy_ratio(const CompareReport& r, const CompareRow& row) {
  return ratio_to_msa(r, row, energy_of);
}

std::optional<double> published_ratio(const CompareReport& r, const std::string& variant, const char* key) {
  if (!r.published_applies || std::ranges::find(r.other_parameters, variant) != r.other_parameters.end())
    return std::nullopt;
  const auto& v = r.published["variants"];
  if (!v.contains(variant) || !v.contains("msa")) return std::nullopt;
  return v[variant][key].get<double>() / v["msa"][key].get<double>();
}

std::string describe_workload(const nlohmann::json& w) {
  std::string text;
  if (w.contains("onnx")) {
    text = "ONNX model " + w["onnx"].get<std::string>();
  } else if (w.contains("model")) {
    text = "whole model " + w["model"].get<std::string>() + ", batch " + w["batch"].dump();
    if (w.value("phase", "") == "decode")
      text += fmt::format(", decode: {} token(s) over a cache of {}", w["tokens"].dump(), w["context"].dump());
    else if (w.value("phase", "") == "prefill")
      text += ", prefill of " + w["seq"].dump() + " tokens";
  } else {
    text = "one attention layer";
    for (const LayerField& f : kLayerFields)
      if (w.contains(f.key)) text += ", " + fmt::format(fmt::runtime(w[f.key] == 1 ? f.one : f.other), w[f.key].dump());
  }
  if (w.contains("accelerator")) text += ", on " + w["accelerator"].get<std::string>();
  return text;
}

std::string render_csv(const CompareReport& r) {
  std::string out =
      provenance_lines(r.provenance) +
      "variant,source,muls,adds,op_energy_pj,accel_cycles,accel_latency_ms,accel_energy_pj,accel_array_pj,"
      "accel_vector_pj,accel_sram_weights_pj,accel_sram_inputs_pj,accel_sram_outputs_pj,accel_dram_pj,"
      "accel_leakage_pj,accel_area_mm2,accel_stall_cycles,gpu_latency_ms,gpu_latency_kind,latency_ratio_msa,energy_"
      "ratio_msa,"
      "published_latency_ratio_msa,published_energy_ratio_msa,gpu_library_latency_ms\n";
  auto opt = [](std::optional<double> x) { return x ? csv_number(*x) : std::string(); };
  for (const auto& row : r.rows) {
    const auto& e = row.accel.energy;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", row.variant,
                       row.source, row.muls, row.adds, csv_number(row.op_energy_pj), row.accel.cycles,
                       csv_number(row.accel_latency_ms), csv_number(e.total_pj()), csv_number(e.array_pj),
                       csv_number(e.vector_pj), csv_number(e.sram_pj[0]), csv_number(e.sram_pj[1]),
                       csv_number(e.sram_pj[2]), csv_number(e.dram_pj), csv_number(e.leakage_pj),
                       csv_number(r.accel_area.total_mm2()), row.accel.stall_cycles(), csv_number(row.gpu_latency_ms),
                       row.gpu_latency_kind, opt(latency_ratio(r, row)), opt(energy_ratio(r, row)),
                       opt(published_ratio(r, row.variant, "latency_ms")),
                       opt(published_ratio(r, row.variant, "energy_pj")), csv_number(row.gpu_library_latency_ms));
  }
  return out;
}

nlohmann::json to_json(const CompareReport& r) {
  nlohmann::json variants = nlohmann::json::array();
  auto opt = [](std::optional<double> x) { return x ? nlohmann::json(*x) : nlohmann::json(nullptr); };
  for (const auto& row : r.rows) {
    const auto& e = row.accel.energy;
    variants.push_back({{"name", row.variant},
                        {"source", row.source},
                        {"muls", row.muls},
                        {"adds", row.adds},
                        {"op_energy_pj", row.op_energy_pj},
                        {"accel_cycles", row.accel.cycles},
                        {"accel_latency_ms", row.accel_latency_ms},
                        {"accel_energy_pj", e.total_pj()},
                        {"accel_energy_breakdown_pj",
                         {{"array", e.array_pj},
                          {"vector_unit", e.vector_pj},
                          {"sram_weights", e.sram_pj[0]},
                          {"sram_inputs", e.sram_pj[1]},
                          {"sram_outputs", e.sram_pj[2]},
                          {"dram", e.dram_pj},
                          {"leakage", e.leakage_pj}}},
                        {"accel_stall_cycles", row.accel.stall_cycles()},
                        {"gpu_latency_ms", row.gpu_latency_ms},
                        {"gpu_latency_kind", row.gpu_latency_kind},
                        {"gpu", row.gpu_label},
                        {"gpu_library_latency_ms", row.gpu_library_latency_ms},
                        {"gpu_library", row.gpu_library_label},
                        {"gpu_library_latency_kind", row.gpu_library_measured ? "measured" : "modelled"},
                        {"gpu_op_by_op", row.gpu_op_by_op},
                        {"gpu_library_op_by_op", row.gpu_library_op_by_op},
                        {"gpu_model_error", opt(row.gpu_model_error)},
                        {"gpu_fits", row.gpu_fits ? nlohmann::json(*row.gpu_fits) : nlohmann::json(nullptr)},
                        {"kernel_timing", timing_json(row.kernel_timing)},
                        {"latency_ratio_msa", opt(latency_ratio(r, row))},
                        {"energy_ratio_msa", opt(energy_ratio(r, row))},
                        {"published_latency_ratio_msa", opt(published_ratio(r, row.variant, "latency_ms"))},
                        {"published_energy_ratio_msa", opt(published_ratio(r, row.variant, "energy_pj"))}});
  }
  return {{"workload", r.workload},
          {"workload_description", describe_workload(r.workload)},
          {"provenance", r.provenance},
          {"published_source", r.published_applies ? r.published["source"] : nlohmann::json(nullptr)},
          {"accel_area_mm2", accel::to_json(r.accel_area)},
          {"variants", variants}};
}

bool published_for(const nlohmann::json& workload, const accel::AccelConfig& accel, const nlohmann::json& published) {
  for (const auto& [key, value] : published["workload"].items())
    if (!workload.contains(key) || workload[key] != value) return false;
  nlohmann::json used = accel.effective,
                 built_in = accel::builtin_config(published["workload"]["accelerator"].get<std::string>()).effective;
  for (nlohmann::json* j : {&used, &built_in}) {  // its name and whether ecosim fuses attention on it aside
    j->erase("name");
    (*j)["mapping"].erase("fuse_attention");
  }
  return used == built_in;
}

}  // namespace ecosim::cli
