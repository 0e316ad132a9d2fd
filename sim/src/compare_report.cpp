// Rendering of the compare table: ratios to MSA computed here, published ratios from the data file.
#include "compare_report.hpp"

#include <fmt/core.h>
#include <algorithm>

#include "csv_number.hpp"
#include "provenance.hpp"

namespace ecosim::cli {

namespace {

const CompareRow* msa_row(const CompareReport& r) {
  for (const auto& row : r.rows)
    if (row.variant == "msa") return &row;
  return nullptr;
}

std::optional<double> ratio(double value, const CompareRow* msa, double CompareRow::*field) {
  if (!msa || msa->*field <= 0) return std::nullopt;
  return value / (msa->*field);
}

std::optional<double> published_ratio(const CompareReport& r, const std::string& variant, const char* key) {
  if (r.published.is_null()) return std::nullopt;
  const auto& v = r.published["variants"];
  if (!v.contains(variant) || !v.contains("msa")) return std::nullopt;
  return v[variant][key].get<double>() / v["msa"][key].get<double>();
}

double energy_of(const CompareRow& row) { return row.accel.energy.total_pj(); }

std::string fmt_ratio(std::optional<double> x) { return x ? fmt::format("{:.3f}", *x) : "-"; }

/// The width of a left-aligned text column: its longest entry, at least its title and 10 characters.
std::size_t column_width(const CompareReport& r, std::string CompareRow::*field, std::string_view title) {
  std::size_t width = std::max<std::size_t>(title.size(), 10);
  for (const auto& row : r.rows) width = std::max(width, (row.*field).size());
  return width;
}

double sram_pj(const CompareRow& row) {
  return row.accel.energy.sram_pj[0] + row.accel.energy.sram_pj[1] + row.accel.energy.sram_pj[2];
}

nlohmann::json timing_json(const std::optional<KernelTiming>& t) {
  if (!t) return nullptr;
  const timing::Stats& s = t->stats;
  return {{"device", t->device},      {"method", s.method}, {"warmup", s.warmup}, {"repetitions", s.repetitions},
          {"median_ms", s.median_ms}, {"q1_ms", s.q1_ms},   {"q3_ms", s.q3_ms},   {"min_ms", s.min_ms},
          {"max_ms", s.max_ms}};
}

}  // namespace

std::string render_table(const CompareReport& r) {
  const CompareRow* msa = msa_row(r);
  const std::size_t variant_w = column_width(r, &CompareRow::variant, "variant");
  const std::size_t source_w = column_width(r, &CompareRow::source, "source");
  std::string out = fmt::format(
      "{:<{}} {:<{}} {:>14} {:>14} {:>11} {:>12} {:>10} {:>11} {:>9} {:>9} {:>9} {:>9} {:>10} {:<5} {:>8} {:>8} "
      "{:>8} {:>8}\n",
      "variant", variant_w, "source", source_w, "muls", "adds", "op_uJ", "accel_cyc", "accel_ms", "accel_uJ", "array",
      "vector", "sram", "dram", "gpu_ms", "", "lat/MSA", "pub", "E/MSA", "pub");
  for (const auto& row : r.rows) {
    const double e = energy_of(row);
    out += fmt::format(
        "{:<{}} {:<{}} {:>14} {:>14} {:>11.2f} {:>12} {:>10.4f} {:>11.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} "
        "{:>10.4f} {:<5} {:>8} {:>8} {:>8} {:>8}\n",
        row.variant, variant_w, row.source, source_w, row.muls, row.adds, row.op_energy_pj / 1e6, row.accel.cycles,
        row.accel_latency_ms, e / 1e6, row.accel.energy.array_pj / 1e6, row.accel.energy.vector_pj / 1e6,
        sram_pj(row) / 1e6, row.accel.energy.dram_pj / 1e6, row.gpu_latency_ms, row.gpu_measured ? "" : "est.",
        fmt_ratio(ratio(row.accel_latency_ms, msa, &CompareRow::accel_latency_ms)),
        fmt_ratio(published_ratio(r, row.variant, "latency_ms")),
        fmt_ratio(msa ? std::optional<double>(e / energy_of(*msa)) : std::nullopt),
        fmt_ratio(published_ratio(r, row.variant, "energy_pj")));
  }
  if (!r.rows.empty())
    out += fmt::format(
        "accelerator energies in µJ (array / vector unit / SRAM / DRAM; the total adds leakage); "
        "accelerator area {:.4g} mm² (array {:.4g}, SRAM weights {:.4g} / inputs {:.4g} / outputs "
        "{:.4g}); GPU: {}; pub = published ratio to MSA ({})\n",
        r.accel_area.total_mm2(), r.accel_area.array_mm2, r.accel_area.sram_mm2[0], r.accel_area.sram_mm2[1],
        r.accel_area.sram_mm2[2], r.rows.front().gpu_label,
        r.published.is_null() ? std::string("none: the published figures belong to another workload")
                              : r.published["source"].get<std::string>());
  return out + provenance_lines(r.provenance);
}

std::string render_csv(const CompareReport& r) {
  std::string out =
      provenance_lines(r.provenance) +
      "variant,source,muls,adds,op_energy_pj,accel_cycles,accel_latency_ms,accel_energy_pj,accel_array_pj,"
      "accel_vector_pj,accel_sram_weights_pj,accel_sram_inputs_pj,accel_sram_outputs_pj,accel_dram_pj,"
      "accel_leakage_pj,accel_area_mm2,accel_stall_cycles,gpu_latency_ms,gpu_latency_kind,latency_ratio_msa,energy_"
      "ratio_msa,"
      "published_latency_ratio_msa,published_energy_ratio_msa\n";
  const CompareRow* msa = msa_row(r);
  auto opt = [](std::optional<double> x) { return x ? csv_number(*x) : std::string(); };
  for (const auto& row : r.rows) {
    const auto& e = row.accel.energy;
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", row.variant, row.source, row.muls,
        row.adds, csv_number(row.op_energy_pj), row.accel.cycles, csv_number(row.accel_latency_ms),
        csv_number(e.total_pj()), csv_number(e.array_pj), csv_number(e.vector_pj), csv_number(e.sram_pj[0]),
        csv_number(e.sram_pj[1]), csv_number(e.sram_pj[2]), csv_number(e.dram_pj), csv_number(e.leakage_pj),
        csv_number(r.accel_area.total_mm2()), row.accel.stall_cycles(), csv_number(row.gpu_latency_ms),
        row.gpu_measured ? "measured" : "estimated",
        opt(ratio(row.accel_latency_ms, msa, &CompareRow::accel_latency_ms)),
        opt(msa ? std::optional<double>(e.total_pj() / energy_of(*msa)) : std::nullopt),
        opt(published_ratio(r, row.variant, "latency_ms")), opt(published_ratio(r, row.variant, "energy_pj")));
  }
  return out;
}

nlohmann::json to_json(const CompareReport& r) {
  const CompareRow* msa = msa_row(r);
  nlohmann::json variants = nlohmann::json::array();
  auto opt = [](std::optional<double> x) { return x ? nlohmann::json(*x) : nlohmann::json(nullptr); };
  for (const auto& row : r.rows) {
    const auto& e = row.accel.energy;
    variants.push_back(
        {{"name", row.variant},
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
         {"gpu_latency_kind", row.gpu_measured ? "measured" : "estimated"},
         {"gpu", row.gpu_label},
         {"kernel_timing", timing_json(row.kernel_timing)},
         {"latency_ratio_msa", opt(ratio(row.accel_latency_ms, msa, &CompareRow::accel_latency_ms))},
         {"energy_ratio_msa", opt(msa ? std::optional<double>(e.total_pj() / energy_of(*msa)) : std::nullopt)},
         {"published_latency_ratio_msa", opt(published_ratio(r, row.variant, "latency_ms"))},
         {"published_energy_ratio_msa", opt(published_ratio(r, row.variant, "energy_pj"))}});
  }
  return {{"workload", r.workload},
          {"provenance", r.provenance},
          {"published_source", r.published.is_null() ? nlohmann::json(nullptr) : r.published["source"]},
          {"accel_area_mm2", accel::to_json(r.accel_area)},
          {"variants", variants}};
}

nlohmann::json published_for(const nlohmann::json& workload, const nlohmann::json& published) {
  for (const auto& [key, value] : published["workload"].items())
    if (!workload.contains(key) || workload[key] != value) return nullptr;
  return published;
}

}  // namespace ecosim::cli
