// Internal: `mpirun -np N ecosim sweep`: rank 0 builds the plan, hands points out dynamically (a few at a time
// to whichever rank asks) and gathers their rows, which it writes exactly as a local run would; ranks 1..N-1
// build the same plan from the same spec and replay the points they are given. Built with MPI when CMake finds
// it (ECOSIM_MPI=AUTO); otherwise, or when not started by mpirun, the sweep is one process.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

#include "sweep_runner.hpp"

namespace ecosim::cli {

/// MPI for the command's lifetime: initialised when ecosim was built with MPI and started by mpirun, finalised
/// by the destructor. Otherwise rank 0 of 1.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Ends every rank (mpirun would otherwise wait for ranks blocked on rank 0): after an error on any rank.
  [[noreturn]] void abort(int exit_code) const;

  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  bool initialised_ = false;
  int rank_ = 0, size_ = 1;
};

/// Rank 0 of several: hands `points` to ranks 1..size-1, replays points of `plan` itself between their requests,
/// and calls `done` with each row (its own and those the ranks return).
void gather_points(const MpiSession& mpi, const SweepPlan& plan, const std::vector<std::size_t>& points,
                   const std::function<void(SweepRow)>& done, const SweepSpec& spec);
/// Ranks 1..size-1: replays the points rank 0 hands out until it sends none.
void serve_points(const SweepPlan& plan);

}  // namespace ecosim::cli
