// The closed-form hint before a long SystemC replay and the replay's progress line on a terminal.
#include "replay_progress.hpp"

#include <unistd.h>

#include <fmt/core.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "work_limits.hpp"

namespace ecosim::cli {

namespace {

/// "12.3 M", "290 M", "4.1 k", "950".
std::string count_text(double n) {
  if (n >= 1e9) return fmt::format("{:.3g} G", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.3g} M", n / 1e6);
  if (n >= 1e3) return fmt::format("{:.3g} k", n / 1e3);
  return fmt::format("{:.0f}", n);
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string format_duration(double seconds) {
  const auto s = static_cast<long long>(std::llround(std::clamp(seconds, 0.0, 1e15)));  // llround stays defined
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, s % 3600 / 60);
}

std::string closed_form_hint(const accel::ReplayWork& work) {
  const double seconds = typical_systemc_seconds(double(work.walked_tiles));
  if (seconds <= kHintSeconds) return "";
  const std::string walked =
      work.walked_tiles == work.tiles
          ? ""
          : fmt::format(" ({} walked one by one, the rest fast-forwarded)", count_text(double(work.walked_tiles)));
  return fmt::format(
      "this SystemC replay simulates {} tiles{} in {} ops: about {} at {:.2g} µs a tile walked; --engine closed-form "
      "times the same plans with the same pipeline in a fraction of that (accel_model/README.md says what SystemC "
      "adds)",
      count_text(double(work.tiles)), walked, work.ops, format_duration(seconds), typical_systemc_seconds(1) * 1e6);
}

ProgressLine::ProgressLine(std::FILE* out, bool terminal, std::string label, std::optional<accel::ReplayWork> total,
                           Clock now)
    : out_(out), terminal_(terminal), label_(std::move(label)), total_(total), now_(std::move(now)), start_s_(now_()) {}

ProgressLine::ProgressLine(std::string label, std::optional<accel::ReplayWork> total)
    : ProgressLine(stderr, ::isatty(::fileno(stderr)) == 1, std::move(label), total, steady_seconds) {}

ProgressLine::~ProgressLine() {
  if (!drawn_) return;
  fmt::print(out_, "\r\x1b[K");  // back to the line's start, erased to its end
  std::fflush(out_);
}

void ProgressLine::update(const accel::ReplayWork& done) {
  if (!terminal_) return;
  const double now = now_(), elapsed = now - start_s_;
  if (elapsed < kFirstDrawSeconds || (drawn_ && now - last_draw_s_ < 1 / kDrawsPerSecond)) return;
  fmt::print(out_, "\r{}\x1b[K", text(done, elapsed));
  std::fflush(out_);
  last_draw_s_ = now;
  drawn_ = true;
}

std::string ProgressLine::text(const accel::ReplayWork& done, double elapsed_s) const {
  const std::uint64_t running = done.ops + 1;  // the op being replayed (or, at the end, one past the last)
  if (!total_)
    return fmt::format("{} op {}, {} tiles, {} elapsed", label_, running, count_text(double(done.tiles)),
                       format_duration(elapsed_s));
  const double fraction = total_->tiles ? double(done.tiles) / double(total_->tiles) : 1;
  std::string line = fmt::format("{} op {}/{}, {}/{} tiles ({:.0f} %), {} elapsed", label_,
                                 std::min(running, total_->ops), total_->ops, count_text(double(done.tiles)),
                                 count_text(double(total_->tiles)), 100 * fraction, format_duration(elapsed_s));
  if (done.walked_tiles > 0) {  // the rate so far, over the tiles left to walk
    const double left = double(total_->walked_tiles - std::min(done.walked_tiles, total_->walked_tiles));
    line += fmt::format(", ~{} left", format_duration(elapsed_s * left / double(done.walked_tiles)));
  }
  return line;
}

std::unique_ptr<ProgressLine> announce_replay(accel::Engine engine, const std::string& label,
                                              const std::function<accel::ReplayWork()>& count_work) {
  std::optional<accel::ReplayWork> total;
  if (engine == accel::Engine::systemc && count_work) {
    total = count_work();
    if (const std::string hint = closed_form_hint(*total); !hint.empty()) fmt::print(stderr, "{} {}\n", label, hint);
  }
  return std::make_unique<ProgressLine>(label, total);
}

}  // namespace ecosim::cli
