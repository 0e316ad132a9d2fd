// Internal: what a person sees of a long replay. Before a SystemC replay, its work (every op planned, none
// timed) gives its expected time, and above kHintSeconds a one-line hint to use --engine closed-form; during a
// replay, a progress line on standard error, drawn only when that is a terminal (files and pipes stay clean),
// from kFirstDrawSeconds on and at most kDrawsPerSecond times a second, with the ops and tiles done, the time
// elapsed and the time left; the line is erased when the replay ends.
#pragma once
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ecosim/accel_model/replay.hpp"

namespace ecosim::cli {

/// SystemC replays expected to take longer than this get the closed-form hint.
inline constexpr double kHintSeconds = 10;

/// The hint for a SystemC replay of `work`, or "" when it is expected to take at most kHintSeconds.
std::string closed_form_hint(const accel::ReplayWork& work);

/// "45 s", "2 min 05 s", "1 h 03 min".
std::string format_duration(double seconds);

/// A replay's progress line, redrawn in place on a terminal.
class ProgressLine {
 public:
  static constexpr double kFirstDrawSeconds = 0.5;  // shorter replays show no line
  static constexpr double kDrawsPerSecond = 4;
  using Clock = std::function<double()>;  // seconds since a fixed point

  /// Draws on `out` only when `terminal`; `label` starts the line ("[msa]"); `total` is the replay's work when
  /// known (the time left needs it).
  ProgressLine(std::FILE* out, bool terminal, std::string label, std::optional<accel::ReplayWork> total, Clock now);
  /// On standard error, drawn when it is a terminal, timed by the steady clock.
  ProgressLine(std::string label, std::optional<accel::ReplayWork> total);
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  /// Erases the line when one was drawn.
  ~ProgressLine();

  /// Redraws the line for `done`, unless drawn less than 1 / kDrawsPerSecond ago or before kFirstDrawSeconds.
  void update(const accel::ReplayWork& done);
  /// The callback to give the replay (this line must outlive the replay).
  accel::ReplayProgress callback() {
    return [this](const accel::ReplayWork& done) { update(done); };
  }
  /// The line's text for `done` after `elapsed_s` seconds (no control characters): the op being replayed
  /// ("op 3/170"), tiles done of the total, the time elapsed and the time left at the rate so far.
  std::string text(const accel::ReplayWork& done, double elapsed_s) const;

 private:
  std::FILE* out_;
  bool terminal_;
  std::string label_;
  std::optional<accel::ReplayWork> total_;
  Clock now_;
  double start_s_, last_draw_s_ = -1;
  bool drawn_ = false;
};

/// Before a replay on `engine` labelled `label`: for SystemC with `count_work` given (a pass planning every op
/// of the replay's records; not given when they can be read only once), counts the work and prints the
/// closed-form hint to standard error when the replay is expected to be long. Returns the replay's progress
/// line (with the total when counted).
std::unique_ptr<ProgressLine> announce_replay(accel::Engine engine, const std::string& label,
                                              const std::function<accel::ReplayWork()>& count_work);

}  // namespace ecosim::cli
