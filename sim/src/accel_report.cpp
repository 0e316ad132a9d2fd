// Accelerator option parsing and printing of replay results, row by row (table, CSV, JSON).
#include "accel_report.hpp"

#include <fmt/core.h>

#include "ecosim/ops_counter/error.hpp"
#include "provenance.hpp"

namespace ecosim::cli {

namespace po = boost::program_options;

po::options_description accel_options() {
  po::options_description o("Accelerator");
  o.add_options()("accel", po::value<std::string>()->default_value("bitfusion-45nm"), "built-in accelerator")(
      "accel-config", po::value<std::string>(),
      "accelerator JSON file, merged over the built-in one (format: accel_model/README.md)")(
      "fuse-attention", "run softmax attention fused (scores kept on chip), as mapping.fuse_attention = true")(
      "engine", po::value<std::string>()->default_value("systemc"), "timing engine: systemc or closed-form");
  return o;
}

accel::AccelConfig parse_accel(const po::variables_map& vm) {
  if (vm.count("accel-config") && !vm["accel"].defaulted())
    throw Error("give either --accel or --accel-config, not both");
  accel::AccelConfig config = vm.count("accel-config") ? accel::load_config(vm["accel-config"].as<std::string>())
                                                       : accel::builtin_config(vm["accel"].as<std::string>());
  if (vm.count("fuse-attention"))
    config = accel::with_overrides(config, {{"mapping", {{"fuse_attention", true}}}},
                                   config.name + " with --fuse-attention");
  for (const std::string& warning : config.cost_warnings) fmt::print(stderr, "warning: {}\n", warning);
  return config;
}

accel::Engine parse_engine(const po::variables_map& vm) { return accel::parse_engine(vm["engine"].as<std::string>()); }

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string row_line(const accel::OpRow& r, double clock_mhz, bool csv) {
  const auto& e = r.energy;
  const double sram = e.sram_pj[0] + e.sram_pj[1] + e.sram_pj[2];
  const double ms = double(r.cycles) / (clock_mhz * 1e3);
  if (csv)
    return fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{}\n",
        csv_field(r.name), name(r.kind), r.tiles, r.macs, r.cycles, ms, r.array_cycles, r.vector_cycles,
        r.stall_cycles(), r.dram_bits, e.total_pj(), e.array_pj, e.vector_pj, e.sram_pj[0], e.sram_pj[1], e.sram_pj[2],
        e.dram_pj, sram, e.leakage_pj, csv_field(r.mapping));
  return fmt::format(
      "{:<34} {:>13} {:>12} {:>10.4f} {:>11} {:>11} {:>11} {:>11.4g} {:>10.3g} {:>10.3g} {:>10.3g} {:>10.3g} "
      "{:>10.3g}\n",
      r.name.size() > 34 ? r.name.substr(r.name.size() - 34) : r.name, r.macs, r.cycles, ms, r.array_cycles,
      r.vector_cycles, r.stall_cycles(), e.total_pj(), e.array_pj, e.vector_pj, sram, e.dram_pj, e.leakage_pj);
}

}  // namespace

ReplayPrinter::ReplayPrinter(std::ostream& out, Format format, const accel::AccelConfig& config, accel::Engine engine,
                             const nlohmann::ordered_json& provenance)
    : out_(out), format_(format), clock_mhz_(config.clock_mhz), provenance_(provenance) {
  if (format_ == Format::json) json_.emplace(out_, "ops");
  if (format_ == Format::csv)
    out_ << provenance_lines(provenance_)
         << "op,kind,tiles,macs,cycles,latency_ms,array_cycles,vector_cycles,stall_cycles,dram_bits,energy_pj,"
            "array_pj,vector_pj,sram_weights_pj,sram_inputs_pj,sram_outputs_pj,dram_pj,sram_pj,leakage_pj,mapping\n";
  if (format_ == Format::table)
    out_ << fmt::format("accelerator {} ({} model), {:.0f} MHz\n", config.name, name(engine), config.clock_mhz)
         << fmt::format("{:<34} {:>13} {:>12} {:>10} {:>11} {:>11} {:>11} {:>11} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
                        "op", "MACs", "cycles", "ms", "array_cyc", "vector_cyc", "stall_cyc", "energy_pJ", "array_pJ",
                        "vector_pJ", "sram_pJ", "dram_pJ", "leak_pJ");
}

void ReplayPrinter::row(const accel::OpRow& r) {
  if (json_)
    json_->item(to_json(r, clock_mhz_));
  else
    out_ << row_line(r, clock_mhz_, format_ == Format::csv);
}

void ReplayPrinter::finish(const accel::ReplayResult& result) {
  if (json_) {
    nlohmann::json fields = to_json(result);
    fields["provenance"] = provenance_;
    json_->finish(fields);
    return;
  }
  out_ << row_line(result.total, result.clock_mhz, format_ == Format::csv);
  if (format_ == Format::csv) return;
  const auto& e = result.total.energy;
  const auto& a = result.area;
  out_ << fmt::format(
              "latency {:.4f} ms; energy {:.6g} pJ (array {:.3g}, vector unit {:.3g}, SRAM weights {:.3g} / "
              "inputs {:.3g} / outputs {:.3g}, DRAM {:.3g}, leakage {:.3g}); array busy {:.1f} % of cycles, "
              "{} stall cycles\n",
              result.latency_ms(), e.total_pj(), e.array_pj, e.vector_pj, e.sram_pj[0], e.sram_pj[1], e.sram_pj[2],
              e.dram_pj, e.leakage_pj, 100 * result.array_utilisation(), result.total.stall_cycles())
       << fmt::format(
              "area {:.4g} mm² (array {:.4g}, SRAM weights {:.4g} / inputs {:.4g} / outputs {:.4g}); "
              "leakage power {:.4g} mW\n",
              a.total_mm2(), a.array_mm2, a.sram_mm2[0], a.sram_mm2[1], a.sram_mm2[2], result.leakage_mw)
       << provenance_lines(provenance_);
}

}  // namespace ecosim::cli
