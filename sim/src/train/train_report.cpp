// Printing of `ecosim train` reports.
#include "train_report.hpp"

#include <map>

#include <fmt/format.h>

#include "count_report.hpp"
#include "csv_number.hpp"
#include "provenance.hpp"

namespace ecosim::cli {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

OpCounts total_of(const std::vector<OpRecord>& records) {
  OpCounts c;
  for (const OpRecord& r : records) c += r.counts;
  return c;
}

struct PhaseTotals {
  OpCounts forward, backward, update, compression, all;
};

PhaseTotals totals(const TrainingStep& step, const SchemeStep& s) {
  PhaseTotals t{total_of(step.forward), total_of(s.backward), total_of(step.update), total_of(s.compress), {}};
  t.compression += total_of(s.decompress);
  t.all = t.forward;
  t.all += t.backward;
  t.all += t.update;
  t.all += t.compression;
  return t;
}

/// activation bytes of `none` over the scheme's (the step's own saved bytes are `none`'s).
double ratio_to_none(const TrainingStep& step, const SchemeStep& s) {
  return static_cast<double>(step.activation_bytes) / static_cast<double>(s.activation_bytes);
}

}  // namespace

nlohmann::ordered_json train_json(const nlohmann::ordered_json& workload, const TrainingStep& step,
                                  const std::vector<SchemeStep>& schemes, const StepPrices& prices,
                                  const TechTable& tech, const nlohmann::ordered_json& provenance) {
  nlohmann::ordered_json j{{"workload", workload},
                           {"parameters", step.parameters},
                           {"parameter_bytes", step.parameter_bytes},
                           {"gradient_bytes", step.gradient_bytes},
                           {"optimizer_state_bytes", step.optimizer_state_bytes},
                           {"buffer_bytes", step.buffer_bytes}};
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    const SchemeStep& s = schemes[i];
    const PhaseTotals t = totals(step, s);
    nlohmann::ordered_json saved = nlohmann::ordered_json::array();
    for (const auto& x : s.stored) {
      if (x.saved == kernels::schemes::StoredTensor::kWeightCopy) {  // the layer's name: its forward point's
        saved.push_back({{"layer", step.memory_curve[x.first_saver].layer},
                         {"what", "weights (autocast's copy)"},
                         {"dtype", "fp32"},
                         {"elements", step.matmul_weights[x.first_saver]},
                         {"form", x.form},
                         {"bytes", x.bytes},
                         {"saved_by_layers", 1}});
        continue;
      }
      const SavedTensor& tensor = step.saved[x.saved];
      saved.push_back({{"layer", tensor.layer},
                       {"what", tensor.what},
                       {"dtype", tensor.dtype},
                       {"elements", tensor.elements},
                       {"form", x.form},
                       {"bytes", x.bytes},
                       {"saved_by_layers", tensor.savers.size()}});
    }
    nlohmann::ordered_json curve = nlohmann::ordered_json::array();
    for (const MemoryPoint& p : s.memory_curve)
      curve.push_back({{"phase", p.phase}, {"layer", p.layer}, {"bytes", p.bytes}});
    nlohmann::ordered_json entry{{"scheme", s.scheme.name()},
                                 {"activation_bytes", s.activation_bytes},
                                 {"peak_bytes", s.peak_bytes},
                                 {"ratio_to_none", ratio_to_none(step, s)},
                                 {"ops",
                                  {{"forward", counts_json(t.forward, tech)},
                                   {"backward", counts_json(t.backward, tech)},
                                   {"update", counts_json(t.update, tech)},
                                   {"compression", counts_json(t.compression, tech)},
                                   {"total", counts_json(t.all, tech)}}}};
    if (const auto& p = prices[i]) {
      entry["accel_latency_ms"] = p->accel_latency_ms;
      entry["accel_energy_pj"] = p->accel_energy_pj;
      entry["accel_dram_pj"] = p->accel_dram_pj;
      entry["accel_dram_bits"] = p->accel_dram_bits;
      entry["gpu_ms"] = p->gpu_ms;
      entry["gpu_ms_kind"] = p->gpu_label;
      entry["gpu_fits"] = p->gpu_fits;
      if (p->gpu_ms_estimate) entry["gpu_ms_estimate"] = *p->gpu_ms_estimate;
      if (p->gpu_peak_bytes_measured) entry["gpu_peak_bytes_measured"] = *p->gpu_peak_bytes_measured;
    }
    entry["saved_tensors"] = saved;
    entry["memory_curve"] = curve;
    list.push_back(entry);
  }
  j["schemes"] = list;
  j["provenance"] = provenance;
  return j;
}

std::string train_csv(const TrainingStep& step, const std::vector<SchemeStep>& schemes, const StepPrices& prices,
                      const nlohmann::ordered_json& provenance) {
  std::string out = provenance_lines(provenance);
  out +=
      "scheme,activation_bytes,peak_bytes,ratio_to_none,parameter_bytes,gradient_bytes,optimizer_state_bytes,"
      "buffer_bytes,forward_muls,forward_adds,backward_muls,backward_adds,update_muls,update_adds,compression_muls,"
      "compression_adds,accel_latency_ms,accel_energy_pj,accel_dram_bits,gpu_ms\n";
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    const SchemeStep& s = schemes[i];
    const PhaseTotals t = totals(step, s);
    const std::string priced = prices[i] ? fmt::format(",{},{},{},{}", csv_number(prices[i]->accel_latency_ms),
                                                       csv_number(prices[i]->accel_energy_pj),
                                                       prices[i]->accel_dram_bits, csv_number(prices[i]->gpu_ms))
                                         : std::string(",,,,");
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}{}\n", s.scheme.name(), s.activation_bytes,
                       s.peak_bytes, csv_number(ratio_to_none(step, s)), step.parameter_bytes, step.gradient_bytes,
                       step.optimizer_state_bytes, step.buffer_bytes, t.forward.ops(OpKind::mul),
                       t.forward.ops(OpKind::add), t.backward.ops(OpKind::mul), t.backward.ops(OpKind::add),
                       t.update.ops(OpKind::mul), t.update.ops(OpKind::add), t.compression.ops(OpKind::mul),
                       t.compression.ops(OpKind::add), priced);
  }
  return out;
}

std::string memory_curve_csv(const std::vector<SchemeStep>& schemes) {
  std::string out = "scheme,point,phase,layer,bytes\n";
  for (const SchemeStep& s : schemes)
    for (std::size_t i = 0; i < s.memory_curve.size(); ++i) {
      const MemoryPoint& p = s.memory_curve[i];
      out += fmt::format("{},{},{},{},{}\n", s.scheme.name(), i, p.phase, csv_field(p.layer), p.bytes);
    }
  return out;
}

std::string train_table(const nlohmann::ordered_json& workload, const TrainingStep& step,
                        const std::vector<SchemeStep>& schemes, const StepPrices& prices,
                        const nlohmann::ordered_json& provenance) {
  std::string out = fmt::format(
      "training step: {}\nparameters: {} ({:.3f} GiB; gradients {:.3f} GiB, optimizer state "
      "{:.3f} GiB, buffers {:.3f} GiB)\n\n",
      workload.dump(), step.parameters, step.parameter_bytes / kGiB, step.gradient_bytes / kGiB,
      step.optimizer_state_bytes / kGiB, step.buffer_bytes / kGiB);
  out += fmt::format("{:<10} {:>16} {:>8} {:>10} {:>14} {:>14} {:>12} {:>12} {:>12} {:>10} {:>14}\n", "scheme",
                     "activations GiB", "ratio", "peak GiB", "forward G mul", "backward G mul", "update G mul",
                     "compr. G mul", "accel ms", "accel mJ", "GPU ms");
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    const SchemeStep& s = schemes[i];
    const PhaseTotals t = totals(step, s);
    const auto& p = prices[i];
    out += fmt::format(
        "{:<10} {:>16.4f} {:>8.2f} {:>10.4f} {:>14.4f} {:>14.4f} {:>12.4f} {:>12.4f} {:>12} {:>10} {:>14}\n",
        s.scheme.name(), s.activation_bytes / kGiB, ratio_to_none(step, s), s.peak_bytes / kGiB,
        t.forward.ops(OpKind::mul) / 1e9, t.backward.ops(OpKind::mul) / 1e9, t.update.ops(OpKind::mul) / 1e9,
        t.compression.ops(OpKind::mul) / 1e9, p ? fmt::format("{:.3f}", p->accel_latency_ms) : "-",
        p ? fmt::format("{:.3f}", p->accel_energy_pj / 1e9) : "-", p ? fmt::format("{:.3f}", p->gpu_ms) : "-");
  }
  std::map<std::string, std::string> labels;  // what each GPU figure is, and the schemes it is for
  for (std::size_t i = 0; i < schemes.size(); ++i)
    if (prices[i])
      labels[prices[i]->gpu_label] += (labels[prices[i]->gpu_label].empty() ? "" : ", ") + schemes[i].scheme.name();
  for (const auto& [label, names] : labels) out += fmt::format("GPU ms ({}): {}\n", names, label);
  return out + provenance_footer(provenance, "--format json or csv");
}

}  // namespace ecosim::cli
