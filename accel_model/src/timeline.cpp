// TimelineWriter: Chrome trace-event JSON streamed event by event, with per-op spans above the event bound.
#include "ecosim/accel_model/timeline.hpp"

#include <algorithm>

#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::accel {

namespace {
/// Track (Chrome "tid") of a unit's interval: 1 array, 2 vector unit, 3 DMA load, 4 DMA store.
std::size_t track(Unit unit, bool store) { return unit == Unit::dma ? (store ? 4 : 3) : std::size_t(unit) + 1; }
}  // namespace

TimelineWriter::TimelineWriter(std::ostream& out, const AccelConfig& config, std::uint64_t max_events)
    : out_(out), us_per_cycle_(1.0 / config.clock_mhz), max_events_(max_events) {
  out_ << "{\"traceEvents\":[";
  const char* labels[kTracks] = {"fusion-unit array", "vector unit", "DMA load", "DMA store"};
  for (std::size_t t = 0; t < kTracks; ++t)
    out_ << nlohmann::json{{"ph", "M"},
                           {"name", "thread_name"},
                           {"pid", 1},
                           {"tid", t + 1},
                           {"args", {{"name", labels[t]}}}}
                .dump()
         << ",\n";
  out_ << nlohmann::json{{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", config.name}}}}.dump();
}

void TimelineWriter::begin_op(const std::string& name, std::uint64_t tiles) {
  write_spans();
  op_ = name;
  const std::uint64_t room = max_events_ > events_ ? max_events_ - events_ : 0;
  merging_ = tiles > (room - std::min<std::uint64_t>(room, 1)) / 3;  // 3 per tile and a prefetch for the next op
  merged_ops_ += merging_;
}

void TimelineWriter::busy(Unit unit, bool store, std::uint64_t start_cycle, std::uint64_t cycles, std::uint64_t repeats,
                          std::uint64_t period_cycles) {
  if (cycles == 0 || repeats == 0) return;
  const std::size_t t = track(unit, store);
  if (!merging_) {
    for (std::uint64_t r = 0; r < repeats; ++r) {
      const std::uint64_t start = checked_add(start_cycle, checked_mul(r, period_cycles));
      write_event(t, start, cycles, {{"cycles", cycles}, {"start_cycle", start}});
    }
    return;
  }
  Span& s = spans_[t - 1];
  if (s.intervals == 0) s.start_cycle = start_cycle;
  s.end_cycle = checked_add(checked_add(start_cycle, checked_mul(repeats - 1, period_cycles)), cycles);
  s.intervals = checked_add(s.intervals, repeats);
  s.busy_cycles = checked_add(s.busy_cycles, checked_mul(repeats, cycles));
}

void TimelineWriter::finish() {
  write_spans();
  out_ << "\n],\"displayTimeUnit\":\"ns\",\"otherData\":"
       << nlohmann::json{{"max_events", max_events_},
                         {"merged_ops", merged_ops_},
                         {"events", events_},
                         {"spans",
                          "an op whose tiles could exceed max_events is one span per unit: args.intervals "
                          "busy intervals, args.busy_cycles busy cycles"}}
              .dump()
       << "}\n";
}

void TimelineWriter::write_spans() {
  for (std::size_t t = 0; t < kTracks; ++t) {
    Span& s = spans_[t];
    if (s.intervals)
      write_event(t + 1, s.start_cycle, s.end_cycle - s.start_cycle,
                  {{"intervals", s.intervals}, {"busy_cycles", s.busy_cycles}, {"start_cycle", s.start_cycle}});
    s = Span{};
  }
}

void TimelineWriter::write_event(std::size_t track, std::uint64_t start_cycle, std::uint64_t cycles,
                                 const nlohmann::json& args) {
  out_ << ",\n"
       << nlohmann::json{{"ph", "X"},
                         {"name", op_},
                         {"pid", 1},
                         {"tid", track},
                         {"ts", double(start_cycle) * us_per_cycle_},
                         {"dur", double(cycles) * us_per_cycle_},
                         {"args", args}}
              .dump();
  ++events_;
}

}  // namespace ecosim::accel
