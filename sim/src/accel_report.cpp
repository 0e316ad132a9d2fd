// Accelerator option parsing and printing of replay results, row by row (table, CSV, JSON).
#include "accel_report.hpp"

#include "csv_number.hpp"

#include <fmt/core.h>

#include "ecosim/ops_counter/error.hpp"
#include "provenance.hpp"

namespace ecosim::cli {

namespace po = boost::program_options;

po::options_description accel_options(const std::string& default_engine, const std::string& engines) {
  po::options_description o("Accelerator");
  o.add_options()("accel", po::value<std::string>()->default_value("bitfusion-45nm"), "built-in accelerator")(
      "accel-config", po::value<std::string>(),
      "accelerator JSON file, merged over the built-in one (format: accel_model/README.md)")(
      "fuse-attention",
      "run softmax attention fused (scores kept on chip), as mapping.fuse_attention = true; a sliding window's "
      "stays unfused (the fused mapping has no band), so it compares unfused against fused MSA")(
      "engine", po::value<std::string>()->default_value(default_engine), ("timing engine: " + engines).c_str());
  return o;
}

accel::AccelConfig parse_accel(const po::variables_map& vm) {
  if (vm.count("accel-config") && !vm["accel"].defaulted())
    throw Error("give either --accel or --accel-config, not both");
  const auto builtin = [](const std::string& name) {
    try {
      return accel::builtin_config(name);
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + "; or give --accel-config FILE");
    }
  };
  accel::AccelConfig config = vm.count("accel-config") ? accel::load_config(vm["accel-config"].as<std::string>())
                                                       : builtin(vm["accel"].as<std::string>());
  if (vm.count("fuse-attention"))
    config = accel::with_overrides(config, {{"mapping", {{"fuse_attention", true}}}},
                                   config.name + " with --fuse-attention");
  for (const std::string& warning : config.cost_warnings) fmt::print(stderr, "warning: {}\n", warning);
  return config;
}

accel::Engine parse_engine(const po::variables_map& vm) { return accel::parse_engine(vm["engine"].as<std::string>()); }

namespace {

/// One op's row, or a total's (`total`: its kind column left empty — a total is of no one kind).
std::string row_line(const accel::OpRow& r, double clock_mhz, bool csv, bool total = false) {
  const auto& e = r.energy;
  const double sram = e.sram_pj[0] + e.sram_pj[1] + e.sram_pj[2];
  const double ms = double(r.cycles) / (clock_mhz * 1e3);
  if (csv) {
    std::string energies;
    for (double pj : {e.total_pj(), e.array_pj, e.vector_pj, e.sram_pj[0], e.sram_pj[1], e.sram_pj[2], e.dram_pj, sram,
                      e.leakage_pj})
      energies += csv_number(pj) + ",";
    return fmt::format("{},{},{},{},{},{},{},{},{},{},{}{}\n", csv_field(r.name), total ? "" : name(r.kind), r.tiles,
                       r.macs, r.cycles, csv_number(ms), r.array_cycles, r.vector_cycles, r.stall_cycles(), r.dram_bits,
                       energies, csv_field(r.mapping));
  }
  return fmt::format(
      "{:<34} {:>13} {:>12} {:>10.4f} {:>11} {:>11} {:>11} {:>11.4g} {:>10.3g} {:>10.3g} {:>10.3g} {:>10.3g} "
      "{:>10.3g}\n",
      r.name.size() > 34 ? r.name.substr(r.name.size() - 34) : r.name, r.macs, r.cycles, ms, r.array_cycles,
      r.vector_cycles, r.stall_cycles(), e.total_pj(), e.array_pj, e.vector_pj, sram, e.dram_pj, e.leakage_pj);
}

std::string summary_line(const accel::ReplayResult& result) {
  const auto& e = result.total.energy;
  return fmt::format(
      "latency {:.4f} ms; energy {:.6g} pJ (array {:.3g}, vector unit {:.3g}, SRAM weights {:.3g} / inputs {:.3g} / "
      "outputs {:.3g}, DRAM {:.3g}, leakage {:.3g}); array busy {:.1f} % of cycles, {} stall cycles\n",
      result.latency_ms(), e.total_pj(), e.array_pj, e.vector_pj, e.sram_pj[0], e.sram_pj[1], e.sram_pj[2], e.dram_pj,
      e.leakage_pj, 100 * result.array_utilisation(), result.total.stall_cycles());
}

std::string area_line(const accel::ReplayResult& result) {
  const auto& a = result.area;
  return fmt::format(
      "area {:.4g} mm² (array {:.4g}, SRAM weights {:.4g} / inputs {:.4g} / outputs {:.4g}); leakage power {:.4g} mW\n",
      a.total_mm2(), a.array_mm2, a.sram_mm2[0], a.sram_mm2[1], a.sram_mm2[2], result.leakage_mw);
}

/// One alternative's totals over another's (a quotient over nothing is absent: nullopt).
struct Ratios {
  std::string of, to;
  std::optional<double> dram_bits, energy, latency;
};

std::optional<double> quotient(double a, double b) { return b > 0 ? std::optional<double>(a / b) : std::nullopt; }

Ratios ratios_of(const AlternativeResult& of, const AlternativeResult& to) {
  const accel::OpRow &a = of.result.total, &b = to.result.total;
  return {of.name, to.name, quotient(double(a.dram_bits), double(b.dram_bits)),
          quotient(a.energy.total_pj(), b.energy.total_pj()), quotient(double(a.cycles), double(b.cycles))};
}

nlohmann::json to_json(const Ratios& r) {
  auto value = [](const std::optional<double>& q) { return q ? nlohmann::json(*q) : nlohmann::json(nullptr); };
  return {{"of", r.of},
          {"to", r.to},
          {"dram_bits", value(r.dram_bits)},
          {"energy_pj", value(r.energy)},
          {"latency_ms", value(r.latency)}};
}

std::string ratio_line(const Ratios& r) {
  auto text = [](const std::optional<double>& q) { return q ? fmt::format("{:.4g}×", *q) : std::string("n/a"); };
  return fmt::format("{} / {}: DRAM bits {}, energy {}, latency {}\n", r.of, r.to, text(r.dram_bits), text(r.energy),
                     text(r.latency));
}

}  // namespace

ReplayPrinter::ReplayPrinter(std::ostream& out, Format format, const accel::AccelConfig& config, accel::Engine engine,
                             const nlohmann::ordered_json& provenance, bool alternatives)
    : out_(out), format_(format), clock_mhz_(config.clock_mhz), provenance_(provenance), alternatives_(alternatives) {
  if (format_ == Format::json) json_.emplace(out_, "ops");
  if (format_ == Format::csv)
    out_ << provenance_lines(provenance_) << (alternatives_ ? "alternative," : "")
         << "op,kind,tiles,macs,cycles,latency_ms,array_cycles,vector_cycles,stall_cycles,dram_bits,energy_pj,"
            "array_pj,vector_pj,sram_weights_pj,sram_inputs_pj,sram_outputs_pj,dram_pj,sram_pj,leakage_pj,mapping\n";
  if (format_ == Format::table)
    out_ << fmt::format("accelerator {} ({} model), {:.0f} MHz\n", config.name, name(engine), config.clock_mhz)
         << fmt::format("{:<34} {:>13} {:>12} {:>10} {:>11} {:>11} {:>11} {:>11} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
                        "op", "MACs", "cycles", "ms", "array_cyc", "vector_cyc", "stall_cyc", "energy_pJ", "array_pJ",
                        "vector_pJ", "sram_pJ", "dram_pJ", "leak_pJ");
}

void ReplayPrinter::begin_alternative(const std::string& name) {
  alternative_ = name;
  if (format_ == Format::table) out_ << "alternative " << name << ":\n";
}

void ReplayPrinter::row(const accel::OpRow& r) {
  if (json_) {
    nlohmann::json j = to_json(r, clock_mhz_);
    if (alternatives_) j["alternative"] = alternative_;
    json_->item(j);
    return;
  }
  if (alternatives_ && format_ == Format::csv) out_ << csv_field(alternative_) << ",";
  out_ << row_line(r, clock_mhz_, format_ == Format::csv);
}

void ReplayPrinter::finish(const accel::ReplayResult& result) {
  if (json_) {
    nlohmann::json fields = to_json(result);
    fields["provenance"] = provenance_;
    json_->finish(fields);
    return;
  }
  out_ << row_line(result.total, result.clock_mhz, format_ == Format::csv, true);
  if (format_ == Format::csv) return;
  out_ << summary_line(result) << area_line(result) << provenance_lines(provenance_);
}

void ReplayPrinter::finish(const std::vector<AlternativeResult>& alternatives) {
  std::vector<Ratios> ratios;
  for (std::size_t i = 1; i < alternatives.size(); ++i) ratios.push_back(ratios_of(alternatives[0], alternatives[i]));
  if (json_) {
    nlohmann::json fields = {{"alternatives", nlohmann::json::array()}, {"ratios", nlohmann::json::array()}};
    for (const AlternativeResult& a : alternatives) {
      nlohmann::json j = to_json(a.result);
      j["name"] = a.name;
      fields["alternatives"].push_back(j);
    }
    for (const Ratios& r : ratios) fields["ratios"].push_back(to_json(r));
    fields["provenance"] = provenance_;
    json_->finish(fields);
    return;
  }
  const bool csv = format_ == Format::csv;
  for (const AlternativeResult& a : alternatives) {
    accel::OpRow total = a.result.total;
    total.name = csv ? "total" : "total " + a.name;
    out_ << (csv ? csv_field(a.name) + "," : "") << row_line(total, a.result.clock_mhz, csv, true);
  }
  for (const Ratios& r : ratios) out_ << (csv ? "# ratio " : "") << ratio_line(r);
  if (csv) return;
  for (const AlternativeResult& a : alternatives) out_ << a.name << ": " << summary_line(a.result);
  out_ << area_line(alternatives.front().result) << provenance_lines(provenance_);
}

}  // namespace ecosim::cli
