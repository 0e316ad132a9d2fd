// TimelineWriter: Chrome trace-event JSON of a replay's unit activity (opens in Perfetto), written to a stream
// as the simulation reports it. One track per unit; an op whose tiles could take the file past a bound is
// written as spans (one per unit and op) instead of one event per busy interval, so the file stays bounded.
#pragma once
#include <array>
#include <cstdint>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/op_plan.hpp"

namespace ecosim::accel {

class TimelineWriter {
 public:
  /// Events written one per busy interval before ops switch to spans (see begin_op).
  static constexpr std::uint64_t kDefaultMaxEvents = 200'000;

  /// Writes the head of the JSON (track names) to `out`, which must outlive the writer.
  TimelineWriter(std::ostream& out, const AccelConfig& config, std::uint64_t max_events = kDefaultMaxEvents);
  /// An op begins (the previous one has ended): its busy intervals are written one event each when its
  /// `tiles` (at most 3 intervals each: load, compute, store; and one DMA load prefetching the next op's
  /// weights) fit within max_events together with the events already written; otherwise each unit's intervals in the op
  /// merge into one span event whose args give the intervals merged and their busy cycles.
  void begin_op(const std::string& name, std::uint64_t tiles);
  /// A unit was busy for `cycles` from `start_cycle` (DMA: a store, else a load), and `repeats` − 1 times
  /// more, each `period_cycles` after the one before; nothing for 0 cycles.
  void busy(Unit unit, bool store, std::uint64_t start_cycle, std::uint64_t cycles, std::uint64_t repeats = 1,
            std::uint64_t period_cycles = 0);
  /// Ends the last op and closes the JSON; "otherData" records max_events and how many ops were merged.
  void finish();
  std::uint64_t events() const { return events_; }

 private:
  struct Span {
    std::uint64_t start_cycle = 0, end_cycle = 0, intervals = 0, busy_cycles = 0;
  };
  static constexpr std::size_t kTracks = 4;  // array, vector unit, DMA load, DMA store
  void write_spans();
  void write_event(std::size_t track, std::uint64_t start_cycle, std::uint64_t cycles, const nlohmann::json& args);

  std::ostream& out_;
  double us_per_cycle_;
  std::uint64_t max_events_, events_ = 0, merged_ops_ = 0;
  std::string op_;
  bool merging_ = false;
  std::array<Span, kTracks> spans_{};  // the current op's, when merging
};

}  // namespace ecosim::accel
