// Printing of count reports, row by row.
#include "count_report.hpp"

#include "csv_number.hpp"

#include <fmt/format.h>

#include "ecosim/ops_counter/error.hpp"
#include "provenance.hpp"

namespace ecosim::cli {

Format parse_format(const std::string& text) {
  if (text == "table") return Format::table;
  if (text == "csv") return Format::csv;
  if (text == "json") return Format::json;
  throw Error("unknown format '" + text + "' (valid: table, csv, json)");
}

nlohmann::json counts_json(const OpCounts& c, const TechTable& tech) {
  nlohmann::json ops = nlohmann::json::object();
  for (OpKind k : kAllOpKinds)
    for (DType t : kAllDTypes)
      if (auto n = c.ops(k, t)) ops[std::string(name(k))][std::string(name(t))] = n;
  return {{"muls", c.ops(OpKind::mul)},     {"adds", c.ops(OpKind::add)},
          {"energy_pj", tech.energy_pj(c)}, {"ops", ops},
          {"bytes_read", c.read_bytes()},   {"bytes_written", c.written_bytes()}};
}

namespace {

constexpr const char* kCsvHeader = "name,muls,adds,cmp,exp,div,sqrt,popcount,bytes_read,bytes_written,energy_pj\n";

std::string csv_row(const std::string& name, const OpCounts& c, const TechTable& tech) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(name), c.ops(OpKind::mul), c.ops(OpKind::add),
                     c.ops(OpKind::cmp), c.ops(OpKind::exp), c.ops(OpKind::div), c.ops(OpKind::sqrt),
                     c.ops(OpKind::popcount), c.read_bytes(), c.written_bytes(), csv_number(tech.energy_pj(c)));
}

std::string table_row(const std::string& name, const OpCounts& c, const TechTable& tech) {
  return fmt::format("{:<40} {:>17L} {:>17L} {:>15L} {:>13L} {:>13L} {:>16.4g}\n", name, c.ops(OpKind::mul),
                     c.ops(OpKind::add), c.ops(OpKind::cmp), c.ops(OpKind::exp), c.ops(OpKind::div), tech.energy_pj(c));
}

}  // namespace

CountPrinter::CountPrinter(std::ostream& out, const nlohmann::json& workload, const TechTable& tech, Format format,
                           bool per_layer, const nlohmann::ordered_json& provenance)
    : out_(out), workload_(workload), provenance_(provenance), tech_(tech), format_(format), per_layer_(per_layer) {}

void CountPrinter::start() {
  started_ = true;
  if (format_ == Format::json && per_layer_) json_.emplace(out_, "layers");
  if (format_ == Format::csv) {
    out_ << provenance_lines(provenance_);
    if (decoder_facts_.is_object())
      for (const auto& [key, value] : decoder_facts_.items()) out_ << fmt::format("# {}: {}\n", key, value.dump());
    out_ << kCsvHeader;
  }
  if (format_ == Format::table)
    out_ << fmt::format("workload: {}\nenergy table: {}\n\n", workload_.dump(), tech_.name())
         << fmt::format("{:<40} {:>17} {:>17} {:>15} {:>13} {:>13} {:>16}\n", "layer", "muls", "adds", "cmp", "exp",
                        "div", "energy_pj");
}

void CountPrinter::row(const std::string& name, const OpCounts& counts) {
  total_ += counts;
  if (!per_layer_) return;
  if (!started_) start();
  if (format_ == Format::json) {
    nlohmann::json row = counts_json(counts, tech_);
    row["name"] = name;
    json_->item(row);
  }
  if (format_ == Format::csv) out_ << csv_row(name, counts, tech_);
  if (format_ == Format::table) out_ << table_row(name, counts, tech_);
}

void CountPrinter::finish() {
  if (!started_) start();
  if (format_ == Format::json) {
    nlohmann::json j = counts_json(total_, tech_);
    j["workload"] = workload_;
    j["tech_table"] = tech_.name();
    j["provenance"] = provenance_;
    if (decoder_facts_.is_object()) j.update(decoder_facts_);
    if (json_)
      json_->finish(j);
    else
      out_ << j.dump(2) << "\n";
  }
  if (format_ == Format::csv) out_ << csv_row("total", total_, tech_);
  if (format_ == Format::table)
    out_ << table_row("total", total_, tech_)
         << fmt::format("\ntotal: {:.3f} G muls, {:.3f} G adds, {:.4g} pJ ({:.3f} mJ)\n", total_.ops(OpKind::mul) / 1e9,
                        total_.ops(OpKind::add) / 1e9, tech_.energy_pj(total_), tech_.energy_pj(total_) / 1e9)
         << (decoder_facts_.is_object() ? fmt::format("decoder: {}\n", decoder_facts_.dump()) : std::string())
         << provenance_footer(provenance_, "--format json or csv");
}

}  // namespace ecosim::cli
