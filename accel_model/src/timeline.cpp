// Chrome trace-event JSON of a replay's unit activity (opens in Perfetto / chrome://tracing).
#include <nlohmann/json.hpp>

#include "ecosim/accel_model/replay.hpp"

namespace ecosim::accel {

std::string timeline_json(const std::vector<TimelineEvent>& events, const AccelConfig& config) {
  const double us_per_cycle = 1.0 / config.clock_mhz;
  auto track = [](const TimelineEvent& e) { return e.unit == Unit::dma ? (e.store ? 4 : 3) : int(e.unit) + 1; };
  nlohmann::json out = nlohmann::json::array();
  const std::pair<int, const char*> tracks[] = {
      {1, "fusion-unit array"}, {2, "vector unit"}, {3, "DMA load"}, {4, "DMA store"}};
  for (const auto& [tid, label] : tracks)
    out.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", tid}, {"args", {{"name", label}}}});
  out.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", config.name}}}});
  for (const TimelineEvent& e : events)
    out.push_back({{"ph", "X"}, {"name", e.op}, {"pid", 1}, {"tid", track(e)},
                   {"ts", double(e.start_cycle) * us_per_cycle}, {"dur", double(e.cycles) * us_per_cycle},
                   {"args", {{"cycles", e.cycles}, {"start_cycle", e.start_cycle}}}});
  return nlohmann::json{{"traceEvents", out}, {"displayTimeUnit", "ns"}}.dump();
}

}  // namespace ecosim::accel
