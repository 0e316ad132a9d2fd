// The temporary output files alive in this process, removed if SIGINT or SIGTERM ends it: a fixed table of
// paths that the signal handler reads without allocating or locking (it only calls unlink(2), then restores
// the default action and re-raises the signal).
#pragma once
#include <signal.h>

#include <string>

namespace ecosim::detail {

/// Blocks SIGINT and SIGTERM in this thread while alive, so that creating or renaming a temporary and
/// (un)registering it happen together: no signal lands between the two.
class TerminationSignalsBlocked {
 public:
  TerminationSignalsBlocked();
  TerminationSignalsBlocked(const TerminationSignalsBlocked&) = delete;
  TerminationSignalsBlocked& operator=(const TerminationSignalsBlocked&) = delete;
  ~TerminationSignalsBlocked();

 private:
  sigset_t previous_;
};

/// Records a temporary (an absolute path, so that no chdir can redirect the unlink) for removal on SIGINT or
/// SIGTERM; throws ecosim::Error when the table is full or the path too long. Installs the handler for each
/// of the two signals whose action is the default (an ignored signal stays ignored, another handler is left
/// alone).
void register_temp(const std::string& absolute_path);

/// Forgets a temporary (renamed into place or removed).
void unregister_temp(const std::string& absolute_path);

}  // namespace ecosim::detail
