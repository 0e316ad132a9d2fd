// Temporary-file table and the SIGINT/SIGTERM handler that empties it.
#include "temp_registry.hpp"

#include <limits.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::detail {

namespace {

enum SlotState : int { kFree, kFilling, kLive };

struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads slot states");

constexpr std::size_t kSlots = 64;  // temporaries open at once; ecosim writes its outputs one or two at a time
std::array<Slot, kSlots> g_slots;

extern "C" void remove_temps_and_reraise(int signal_number) {
  for (Slot& slot : g_slots)
    if (slot.state.load() == kLive) ::unlink(slot.path);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  ::sigaction(signal_number, &default_action, nullptr);
  ::raise(signal_number);  // blocked until the handler returns, then ends the process as it would have
}

sigset_t termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

/// Installs the handler for each termination signal whose action is the default.
void install_handlers() {
  for (int signal_number : {SIGINT, SIGTERM}) {
    struct sigaction current {};
    if (::sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = remove_temps_and_reraise;
    action.sa_mask = termination_signals();  // one handler at a time
    ::sigaction(signal_number, &action, nullptr);
  }
}

}  // namespace

TerminationSignalsBlocked::TerminationSignalsBlocked() {
  const sigset_t set = termination_signals();
  ::pthread_sigmask(SIG_BLOCK, &set, &previous_);
}

TerminationSignalsBlocked::~TerminationSignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

void register_temp(const std::string& absolute_path) {
  install_handlers();  // again each time: another library (a test framework) may have restored the default
  if (absolute_path.size() >= PATH_MAX) throw Error("path too long: '" + absolute_path + "'");
  for (Slot& slot : g_slots) {
    int expected = kFree;
    if (!slot.state.compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(slot.path, absolute_path.c_str(), absolute_path.size() + 1);
    slot.state.store(kLive);
    return;
  }
  throw Error("more than " + std::to_string(kSlots) + " output files open at once");
}

void unregister_temp(const std::string& absolute_path) {
  for (Slot& slot : g_slots)
    if (slot.state.load() == kLive && absolute_path == slot.path) {
      slot.state.store(kFree);
      return;
    }
}

}  // namespace ecosim::detail
