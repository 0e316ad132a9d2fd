// The sweep built without MPI: always one process (rank 0 of 1), so the distributed steps are never reached.
#include <cstdlib>

#include "ecosim/ops_counter/error.hpp"
#include "sweep_mpi.hpp"

namespace ecosim::cli {

MpiSession::MpiSession() = default;
MpiSession::~MpiSession() = default;
void MpiSession::abort(int exit_code) const { std::exit(exit_code); }

void gather_points(const MpiSession&, const SweepPlan&, const std::vector<std::size_t>&,
                   const std::function<void(SweepRow)>&, const SweepSpec&) {
  throw Error("ecosim was built without MPI (ECOSIM_MPI)");
}
void serve_points(const SweepPlan&) { throw Error("ecosim was built without MPI (ECOSIM_MPI)"); }

}  // namespace ecosim::cli
