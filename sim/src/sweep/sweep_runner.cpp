// SweepPlan: configurations built and pruned, records made once per workload × variant; run_points: the
// thread pool.
#include "sweep_runner.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/layers.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/sinks.hpp"
#include "variant_parameters.hpp"
#include "workload.hpp"

namespace ecosim::cli {

namespace {

/// The exact-convention records of a workload with a variant: a zoo model's layers with every attention layer
/// of the variant, an ONNX model's with every attention block swapped for it, or one attention layer without its
/// projections (as `compare` replays it).
std::vector<OpRecord> build_records(const SweepWorkload& w, const SweepVariant& v) {
  AttentionConfig variant = v.parameters;
  Workload workload;
  workload.convention = Convention::exact;
  workload.model = w.model;
  if (w.zoo) workload.zoo = *w.zoo;
  if (!w.onnx.empty()) {
    workload.onnx = w.onnx;
    workload.onnx_model = w.onnx_model;
    workload.onnx_swap = variant;
  } else if (w.model.empty()) {
    workload.layer = variant;
    workload.layer.batch = w.batch;
    workload.layer.seq = w.seq;
    workload.layer.head_dim = w.dim;
    workload.layer.heads = w.heads;
    workload.layer.projections = false;
  } else {
    if (!v.sliding_window_given) take_model_window(workload.zoo, w.model, variant);
    workload.model_options.attention = variant;
    workload.model_options.batch = w.batch;
    // (a CNN's rows for every variant were its own, identical, each labelled with the variant; msa is the model)
    if (variant.variant != AttentionVariant::msa && !has_attention(workload.zoo.build(w.model, workload.model_options)))
      throw Error(fmt::format("model '{}' has no attention to swap for {}", w.model, name(variant.variant)));
  }
  RecordingSink sink;
  workload.emit_records(sink);
  return std::move(sink.records);
}

/// One line: a row's error goes in one CSV field.
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

/// SystemC has one simulation kernel per process: its points run one at a time.
std::mutex systemc_kernel;

}  // namespace

SweepPlan::SweepPlan(const SweepSpec& spec, WorkLimits limits)
    : spec_(spec),
      limits_(limits),
      base_(accel::builtin_config(spec.accelerator)),
      pruned_({{"configurations", 0}, {"points", 0}}),
      cost_warnings_({{"configurations", 0}}) {
  pruned_["reasons"] = nlohmann::json::array();
  const std::size_t configurations = spec.configurations();
  configs_.resize(configurations);
  for (std::size_t c = 0; c < configurations; ++c) {
    std::string reason;
    try {
      accel::AccelConfig config = accel::with_overrides(base_, spec.overrides(c), "sweep point");
      const double area = config.area_mm2();
      if (spec.max_area_mm2 && area > *spec.max_area_mm2)
        reason = fmt::format("area {:.6g} mm² above max_area_mm2 {}", area, *spec.max_area_mm2);
      else if (spec.min_area_mm2 && area < *spec.min_area_mm2)
        reason = fmt::format("area {:.6g} mm² below min_area_mm2 {}", area, *spec.min_area_mm2);
      else
        configs_[c] = std::move(config);
      if (configs_[c] && !configs_[c]->cost_warnings.empty()) {
        cost_warnings_["configurations"] = cost_warnings_["configurations"].get<std::size_t>() + 1;
        if (!cost_warnings_.contains("first")) cost_warnings_["first"] = configs_[c]->cost_warnings.front();
      }
      // Only reports read the merged document, but for its memory model (the SystemC engine makes one from it,
      // make_memory_model): the plan's memory stays small.
      if (configs_[c]) configs_[c]->effective = nlohmann::json{{"memory", configs_[c]->effective.at("memory")}};
    } catch (const Error& e) {
      reason = one_line(e.what());
    }
    if (configs_[c]) continue;
    nlohmann::json axes = nlohmann::json::object();
    const std::vector<nlohmann::json> values = spec.axis_points(c);  // as the spec gives them
    for (std::size_t a = 0; a < spec.axes.size(); ++a) axes[spec.axes[a].key] = values[a];
    pruned_["reasons"].push_back({{"axes", axes}, {"reason", reason}});
  }
  const std::size_t kept = std::count_if(configs_.begin(), configs_.end(), [](const auto& c) { return c.has_value(); });
  pruned_["configurations"] = configurations - kept;
  pruned_["points"] = (configurations - kept) * spec.workloads.size() * spec.variants.size();
  if (kept == 0)
    throw Error(fmt::format("the constraints prune every point (first: {})",
                            pruned_["reasons"][0]["reason"].get<std::string>()));
  for (const SweepWorkload& w : spec.workloads)
    for (const SweepVariant& v : spec.variants) {
      Group g;
      try {
        g.records = build_records(w, v);
      } catch (const Error& e) {
        g.error = one_line(e.what());
      }
      groups_.push_back(std::move(g));
    }
  for (std::size_t p = 0; p < spec.points(); ++p)
    if (configs_[p % configurations]) runnable_.push_back(p);
}

std::vector<std::string> SweepPlan::point(std::size_t index) const {
  const std::size_t group = index / configs_.size();
  const SweepVariant& v = spec_.variants[group % spec_.variants.size()];
  // (the engine and the base accelerator: a row of another timing or another base is not this spec's)
  std::vector<std::string> point = {spec_.workloads[group / spec_.variants.size()].label(),
                                    std::string(name(v.parameters.variant)), v.given,
                                    std::string(accel::name(spec_.engine)), spec_.accelerator};
  for (std::string& value : spec_.axis_values(index % configs_.size())) point.push_back(std::move(value));
  return point;
}

SweepRow SweepPlan::run(std::size_t index) const {
  const std::size_t configurations = configs_.size();
  const std::size_t group = index / configurations;
  const SweepWorkload& w = spec_.workloads[group / spec_.variants.size()];
  const accel::AccelConfig& config = *configs_[index % configurations];
  SweepRow row;
  row.index = index;
  row.point = point(index);
  row.area_mm2 = config.area_mm2();
  if (!groups_[group].error.empty()) {
    row.error = groups_[group].error;
    return row;
  }
  try {
    static const TechTable tech = TechTable::builtin_45nm();
    RecordList records(groups_[group].records);
    accel::PlanSource plans(records, Convention::exact, w.label(), config, tech,
                            limits_.max_seconds > 0 ? replay_budget(limits_, config) : accel::PlanSource::PlanCheck{});
    accel::ReplayResult result;
    std::unique_lock lock(systemc_kernel, std::defer_lock);
    if (spec_.engine == accel::Engine::systemc) lock.lock();  // one SystemC simulation per process at a time
    result = accel::replay(spec_.engine, plans, config);
    row.ran = true;
    row.latency_ms = result.latency_ms();
    row.cycles = result.total.cycles;
    row.energy = result.total.energy;
    row.array_utilisation = result.array_utilisation();
  } catch (const std::exception& e) {  // ecosim::Error, or out of memory: this point only
    row.error = one_line(e.what());
  }
  return row;
}

void run_points(const SweepPlan& plan, const std::vector<std::size_t>& points, unsigned jobs,
                const std::function<void(SweepRow)>& done) {
  // Waking the calling thread for every row would cost a fast point's worth of time (a futex call and a
  // context switch): workers wake it once kWakeRows rows wait, or with the last row, and it looks for rows
  // at least every kLookInterval anyway.
  constexpr std::size_t kWakeRows = 32;
  constexpr auto kLookInterval = std::chrono::milliseconds(50);
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::condition_variable finished;
  std::deque<SweepRow> ready;
  std::size_t ran = 0, delivered = 0;  // ran: guarded by `mutex`
  {
    std::vector<std::jthread> workers;
    for (unsigned j = 0; j < std::max(1u, jobs); ++j)
      workers.emplace_back([&] {
        for (std::size_t i = next++; i < points.size(); i = next++) {
          SweepRow row = plan.run(points[i]);
          const std::lock_guard lock(mutex);
          ready.push_back(std::move(row));
          ++ran;
          if (ready.size() >= kWakeRows || ran == points.size()) finished.notify_one();
        }
      });
    try {
      while (delivered < points.size()) {
        std::unique_lock lock(mutex);
        finished.wait_for(lock, kLookInterval, [&] { return !ready.empty(); });
        std::deque<SweepRow> batch;
        batch.swap(ready);
        lock.unlock();
        for (SweepRow& row : batch) {
          done(std::move(row));
          ++delivered;
        }
      }
    } catch (...) {  // `done` failed (an unwritable checkpoint): the workers take no more points
      next = points.size();
      throw;
    }
  }  // workers joined
}

}  // namespace ecosim::cli
