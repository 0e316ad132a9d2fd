// Printing of `ecosim train` reports.
#include "train_report.hpp"

#include <fmt/format.h>

#include "count_report.hpp"
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
  OpCounts forward, backward, update, all;
};

PhaseTotals totals(const TrainingStep& s) {
  PhaseTotals t{total_of(s.forward), total_of(s.backward), total_of(s.update), {}};
  t.all = t.forward;
  t.all += t.backward;
  t.all += t.update;
  return t;
}

}  // namespace

nlohmann::ordered_json train_json(const nlohmann::ordered_json& workload, const std::vector<SchemeStep>& steps,
                                  const TechTable& tech, const nlohmann::ordered_json& provenance) {
  const TrainingStep& first = steps.front().step;
  nlohmann::ordered_json j{{"workload", workload},
                           {"parameters", first.parameters},
                           {"parameter_bytes", first.parameter_bytes},
                           {"gradient_bytes", first.gradient_bytes},
                           {"optimizer_state_bytes", first.optimizer_state_bytes},
                           {"buffer_bytes", first.buffer_bytes}};
  nlohmann::ordered_json schemes = nlohmann::ordered_json::array();
  for (const SchemeStep& s : steps) {
    const PhaseTotals t = totals(s.step);
    nlohmann::ordered_json saved = nlohmann::ordered_json::array();
    for (const SavedTensor& x : s.step.saved)
      saved.push_back({{"layer", x.layer},
                       {"what", x.what},
                       {"dtype", x.dtype},
                       {"elements", x.elements},
                       {"bytes", x.bytes},
                       {"saved_by_layers", x.last_saver - x.first_saver + 1}});
    nlohmann::ordered_json curve = nlohmann::ordered_json::array();
    for (const MemoryPoint& p : s.step.memory_curve)
      curve.push_back({{"phase", p.phase}, {"layer", p.layer}, {"bytes", p.bytes}});
    schemes.push_back({{"scheme", s.scheme},
                       {"activation_bytes", s.step.activation_bytes},
                       {"peak_bytes", s.step.peak_bytes},
                       {"ops",
                        {{"forward", counts_json(t.forward, tech)},
                         {"backward", counts_json(t.backward, tech)},
                         {"update", counts_json(t.update, tech)},
                         {"total", counts_json(t.all, tech)}}},
                       {"saved_tensors", saved},
                       {"memory_curve", curve}});
  }
  j["schemes"] = schemes;
  j["provenance"] = provenance;
  return j;
}

std::string train_csv(const std::vector<SchemeStep>& steps, const nlohmann::ordered_json& provenance) {
  std::string out = provenance_lines(provenance);
  out +=
      "scheme,activation_bytes,peak_bytes,parameter_bytes,gradient_bytes,optimizer_state_bytes,buffer_bytes,"
      "forward_muls,forward_adds,backward_muls,backward_adds,update_muls,update_adds\n";
  for (const SchemeStep& s : steps) {
    const PhaseTotals t = totals(s.step);
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", s.scheme, s.step.activation_bytes, s.step.peak_bytes,
                       s.step.parameter_bytes, s.step.gradient_bytes, s.step.optimizer_state_bytes, s.step.buffer_bytes,
                       t.forward.ops(OpKind::mul), t.forward.ops(OpKind::add), t.backward.ops(OpKind::mul),
                       t.backward.ops(OpKind::add), t.update.ops(OpKind::mul), t.update.ops(OpKind::add));
  }
  return out;
}

std::string memory_curve_csv(const std::vector<SchemeStep>& steps) {
  std::string out = "scheme,point,phase,layer,bytes\n";
  for (const SchemeStep& s : steps)
    for (std::size_t i = 0; i < s.step.memory_curve.size(); ++i) {
      const MemoryPoint& p = s.step.memory_curve[i];
      out += fmt::format("{},{},{},{},{}\n", s.scheme, i, p.phase, p.layer, p.bytes);
    }
  return out;
}

std::string train_table(const nlohmann::ordered_json& workload, const std::vector<SchemeStep>& steps,
                        const nlohmann::ordered_json& provenance) {
  const TrainingStep& first = steps.front().step;
  std::string out = fmt::format(
      "training step: {}\nparameters: {} ({:.3f} GiB; gradients {:.3f} GiB, optimizer state "
      "{:.3f} GiB, buffers {:.3f} GiB)\n\n",
      workload.dump(), first.parameters, first.parameter_bytes / kGiB, first.gradient_bytes / kGiB,
      first.optimizer_state_bytes / kGiB, first.buffer_bytes / kGiB);
  out += fmt::format("{:<10} {:>16} {:>12} {:>14} {:>14} {:>14}\n", "scheme", "activations GiB", "peak GiB",
                     "forward G mul", "backward G mul", "update G mul");
  for (const SchemeStep& s : steps) {
    const PhaseTotals t = totals(s.step);
    out += fmt::format("{:<10} {:>16.4f} {:>12.4f} {:>14.4f} {:>14.4f} {:>14.4f}\n", s.scheme,
                       s.step.activation_bytes / kGiB, s.step.peak_bytes / kGiB, t.forward.ops(OpKind::mul) / 1e9,
                       t.backward.ops(OpKind::mul) / 1e9, t.update.ops(OpKind::mul) / 1e9);
  }
  return out + provenance_footer(provenance, "--format json or csv");
}

}  // namespace ecosim::cli
