// `ecosim train --max-batch`: the largest batch per scheme that fits a memory (the step model's search,
// kernels/training_schemes.hpp), printed as a table, CSV or JSON.
#include <fmt/format.h>

#include "train_report.hpp"

namespace ecosim::cli {

std::string max_batch_report(const nlohmann::ordered_json& workload,
                             const std::vector<kernels::schemes::Scheme>& schemes,
                             const kernels::schemes::NetworkAt& network, Optimizer optimizer,
                             std::uint64_t memory_bytes, Format format) {
  std::vector<kernels::schemes::MaxBatch> found;
  std::optional<std::uint64_t> none_batch;
  for (const auto& s : schemes) {
    found.push_back(kernels::schemes::max_batch(s, network, optimizer, memory_bytes));
    if (s.kind == kernels::schemes::SchemeKind::none) none_batch = found.back().batch;
  }
  auto ratio = [&](std::size_t i) -> nlohmann::json {
    if (!none_batch || *none_batch == 0) return nullptr;
    return static_cast<double>(found[i].batch) / static_cast<double>(*none_batch);
  };
  nlohmann::ordered_json j{{"workload", workload}, {"memory_bytes", memory_bytes}};
  std::string csv = "scheme,max_batch,peak_bytes,batch_ratio_to_none\n";
  std::string table =
      fmt::format("largest batch of {} ({}) within {:.3f} GiB\n\n{:<10} {:>10} {:>10} {:>16}\n", workload.dump(),
                  name(optimizer), memory_bytes / 1073741824.0, "scheme", "max batch", "peak GiB", "ratio to none");
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    const std::string n = schemes[i].name();
    const nlohmann::json r = ratio(i);
    j["schemes"].push_back({{"scheme", n},
                            {"max_batch", found[i].batch},
                            {"peak_bytes", found[i].peak_bytes},
                            {"batch_ratio_to_none", r}});
    csv += fmt::format("{},{},{},{}\n", n, found[i].batch, found[i].peak_bytes, r.is_null() ? "" : r.dump());
    table += fmt::format("{:<10} {:>10} {:>10.3f} {:>16}\n", n, found[i].batch, found[i].peak_bytes / 1073741824.0,
                         r.is_null() ? "-" : fmt::format("{:.2f}", r.get<double>()));
  }
  return format == Format::json ? j.dump(2) + "\n" : format == Format::csv ? csv : table;
}

}  // namespace ecosim::cli
