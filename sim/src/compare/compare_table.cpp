// The terminal report of `ecosim compare`: columns sized to their entries, numbers to a few significant digits,
// every line (legend and pointer included) wrapped at kTerminalColumns.
#include "compare_table.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <vector>

namespace ecosim::cli {

namespace {

/// `x` with `digits` significant digits, in fixed notation unless tiny or huge.
std::string significant(double x, int digits) {
  if (x == 0) return "0";
  const int exponent = static_cast<int>(std::floor(std::log10(std::abs(x))));
  if (exponent < -4 || exponent >= 7) return fmt::format("{:.{}e}", x, digits - 1);
  return fmt::format("{:.{}f}", x, std::max(0, digits - 1 - exponent));
}

/// A count with four significant digits and an SI prefix: 10385227776 → "10.39G".
std::string si_count(double n) {
  constexpr std::array prefixes{"", "k", "M", "G", "T", "P", "E"};
  if (n < 10000) return fmt::format("{}", n);
  std::size_t p = 0;
  while (n >= 999.95 && p + 1 < prefixes.size()) {  // what would round to "1000" takes the next prefix
    n /= 1000;
    ++p;
  }
  return significant(n, 4) + prefixes[p];
}

std::string ratio_text(std::optional<double> x) { return x ? significant(*x, 3) : "-"; }

/// Joins words that wrapped() keeps on one line; printed as a space.
constexpr char kNoBreak = '\x01';

/// `text` broken at spaces (not at kNoBreak) into lines of at most kTerminalColumns, continuation lines indented
/// by two.
std::string wrapped(const std::string& text) {
  std::istringstream words(text);
  std::string out, line;
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > kTerminalColumns) {
      out += line + "\n";
      line = "  ";
    }
    line += (line.empty() || line == "  " ? "" : " ") + word;
  }
  out += line + "\n";
  std::replace(out.begin(), out.end(), kNoBreak, ' ');
  return out;
}

struct Column {
  std::string title;
  bool left_aligned = false;
  std::vector<std::string> cells;  // one per row
};

std::string render_columns(const std::vector<Column>& columns, std::size_t rows) {
  std::vector<std::size_t> widths;
  for (const Column& c : columns) {
    std::size_t w = c.title.size();
    for (const std::string& cell : c.cells) w = std::max(w, cell.size());
    widths.push_back(w);
  }
  auto line = [&](auto cell_of) {
    std::string out;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i) out += "  ";
      const std::string text = cell_of(columns[i]);
      out += columns[i].left_aligned ? fmt::format("{:<{}}", text, widths[i]) : fmt::format("{:>{}}", text, widths[i]);
    }
    return out + "\n";
  };
  std::string out = line([](const Column& c) { return c.title; });
  for (std::size_t r = 0; r < rows; ++r) out += line([r](const Column& c) { return c.cells[r]; });
  return out;
}

std::string table(const CompareReport& r, bool with_ratios) {
  std::vector<Column> columns{{"variant", true, {}}, {"source", true, {}},    {"muls", false, {}},
                              {"adds", false, {}},   {"accel ms", false, {}}, {"accel uJ", false, {}},
                              {"GPU ms", false, {}}, {"lib ms", false, {}}};
  auto add = [&columns, &r](const char* title, auto cell_of) {
    columns.push_back({title, false, {}});
    for (const CompareRow& row : r.rows) columns.back().cells.push_back(ratio_text(cell_of(row)));
  };
  for (const CompareRow& row : r.rows) {
    const std::array cells{row.variant,
                           row.source,
                           si_count(static_cast<double>(row.muls)),
                           si_count(static_cast<double>(row.adds)),
                           significant(row.accel_latency_ms, 4),
                           significant(row.accel.energy.total_pj() / 1e6, 4),
                           (row.gpu_measured ? "" : "~") + significant(row.gpu_latency_ms, 4),
                           (row.gpu_library_measured ? "" : "~") + significant(row.gpu_library_latency_ms, 4)};
    for (std::size_t i = 0; i < cells.size(); ++i) columns[i].cells.push_back(cells[i]);
  }
  // each ratio to MSA beside its published twin
  if (with_ratios) add("lat/MSA", [&r](const CompareRow& row) { return latency_ratio(r, row); });
  if (r.published_applies)
    add("paper lat", [&r](const CompareRow& row) { return published_ratio(r, row.variant, "latency_ms"); });
  if (with_ratios) add("E/MSA", [&r](const CompareRow& row) { return energy_ratio(r, row); });
  if (r.published_applies)
    add("paper E", [&r](const CompareRow& row) { return published_ratio(r, row.variant, "energy_pj"); });
  return render_columns(columns, r.rows.size());
}

const CompareRow* row_named(const CompareReport& r, std::string_view name) {
  for (const CompareRow& row : r.rows)
    if (row.variant == name) return &row;
  return nullptr;
}

/// "parameters: performer features=256; ...; native: the model's own attention (zoo)" for the variants that have
/// any (as the reports record them), each variant's kept on one line.
std::string parameters_line(const CompareReport& r) {
  std::string list;
  for (const auto& [variant, parameters] : r.provenance["variant_parameters"].items()) {
    std::string item = parameters.is_string() ? variant + ": " + parameters.get<std::string>() : variant;
    if (parameters.is_object())
      for (const auto& [name, value] : parameters.items()) item += " " + name + "=" + value.dump();
    if (item == variant) continue;  // no parameters
    std::replace(item.begin(), item.end(), ' ', kNoBreak);
    list += (list.empty() ? "" : "; ") + item;
  }
  return list.empty() ? "" : wrapped("parameters: " + list);
}

/// Why EcoFormer's ratio to MSA here is far below the published one, from this run's figures: MSA here computes
/// every one of the B·H·N² attention scores, in a time the published MSA latency is a tiny fraction of.
std::string published_gap_line(const CompareReport& r) {
  const CompareRow* msa = row_named(r, "msa");
  const CompareRow* eco = row_named(r, "ecoformer");
  const std::optional<double> published = published_ratio(r, "ecoformer", "latency_ms");
  if (!msa || !eco || !published) return "";
  const auto& w = r.workload;
  const double scores =
      w["batch"].get<double>() * w["heads"].get<double>() * w["seq"].get<double>() * w["seq"].get<double>();
  return wrapped(
      fmt::format("ecoformer lat/MSA {} vs paper {}: our MSA computes B*H*N^2 = {} scores {} ({} ms, paper {} ms)",
                  ratio_text(latency_ratio(r, *eco)), ratio_text(published), si_count(scores),
                  r.provenance["fuse_attention"].get<bool>() ? "fused" : "unfused",
                  significant(msa->accel_latency_ms, 4), r.published["variants"]["msa"]["latency_ms"].dump()));
}

/// Which variants' modelled GPU columns price their attention op by op instead of as a fused kernel, and why.
std::string op_by_op_lines(const CompareReport& r) {
  std::string out;
  for (const CompareRow& row : r.rows)
    for (const auto& [column, reasons] :
         {std::pair{"GPU ms", &row.gpu_op_by_op}, std::pair{"lib ms", &row.gpu_library_op_by_op}})
      if (!reasons->empty())
        out += wrapped(fmt::format("{} of {}: attention priced op by op, not fused ({})", column, row.variant,
                                   fmt::join(*reasons, "; ")));
  return out;
}

/// A GPU column's labels, each distinct one once ("~ " before a modelled one's): its rows may mix a measured and
/// a modelled figure.
std::string distinct_labels(const CompareReport& r, bool CompareRow::*measured, std::string CompareRow::*label) {
  std::vector<std::string> labels;
  for (const CompareRow& row : r.rows) {
    const std::string text = (row.*measured ? "" : "~ ") + row.*label;
    if (std::find(labels.begin(), labels.end(), text) == labels.end()) labels.push_back(text);
  }
  return fmt::format("{}", fmt::join(labels, "; "));
}

/// Where the figures come from: the accelerator model, the GPU latency, the ratios and the published ones.
std::string legend(const CompareReport& r, bool with_ratios) {
  const auto& p = r.provenance;
  std::string out = wrapped(
      fmt::format("accel ms, accel uJ: {} model, {} engine, attention {}, incl. leakage",
                  p["accelerator"]["name"].get<std::string>(), p["engine"].get<std::string>(),
                  p["fuse_attention"].get<bool>() ? "fused (scores on chip)" : "unfused (op results via DRAM)"));
  out += wrapped("GPU ms: " + distinct_labels(r, &CompareRow::gpu_measured, &CompareRow::gpu_label));
  if (!r.rows.empty())
    out += wrapped("lib ms: " + distinct_labels(r, &CompareRow::gpu_library_measured, &CompareRow::gpu_library_label));
  out += op_by_op_lines(r);
  std::string errors;
  for (const CompareRow& row : r.rows)
    if (row.gpu_model_error)
      errors += fmt::format("{}{} {:+.1f} %", errors.empty() ? "" : ", ", row.variant, *row.gpu_model_error * 100);
  if (!errors.empty())  // the model of the GPU that ran where it is a built-in one and --gpu is not given, else --gpu's
    out += wrapped(fmt::format("GPU model's error ({} modelled) against this run's measurement: {}",
                               r.provenance["gpu_model_error_of"].get<std::string>(), errors));
  out += wrapped(with_ratios ? "lat/MSA, E/MSA: accelerator latency and energy relative to msa's in this run"
                             : "no ratios to MSA: msa is not among the variants");
  if (r.published_applies)
    out +=
        wrapped("paper lat, paper E: the same ratios published in " + r.published["source"].get<std::string>() +
                (r.other_parameters.empty() ? ""
                                            : fmt::format(" (none for {}: parameters other than the published runs')",
                                                          fmt::join(r.other_parameters, ", ")))) +
        published_gap_line(r);
  else
    out += wrapped("published ratios not shown: they are for " + describe_workload(r.published["workload"]));
  return out;
}

/// Where the report files are and what they add to the terminal's summary.
std::string pointer_line(const std::string& out_dir, bool plotted) {
  return wrapped(
      fmt::format("reports in {}/: compare.csv, compare.json (all figures and the provenance), {}"
                  "<variant>.jsonl",
                  out_dir, plotted ? "compare.png, " : ""));
}

}  // namespace

std::string render_terminal(const CompareReport& r, const std::string& out_dir, bool plotted) {
  const bool with_ratios = row_named(r, "msa") != nullptr;
  return wrapped("workload: " + describe_workload(r.workload)) + parameters_line(r) + "\n" + table(r, with_ratios) +
         "\n" + legend(r, with_ratios) + pointer_line(out_dir, plotted);
}

}  // namespace ecosim::cli
