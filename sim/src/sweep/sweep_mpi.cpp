// The sweep over MPI ranks: a request/answer protocol — a rank sends the rows of its last points (CSV lines,
// which read back exactly) and gets the next few point indices, or none when all are handed out. Rank 0 replays
// points itself, one at a time, between answering requests.
#include "sweep_mpi.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cli {

namespace {

constexpr int kRowsTag = 1, kPointsTag = 2;
// Guided: an answer hands out a share of the points left (1/8 per replaying rank), so that ranks ask seldom
// while much is left (a request waits up to rank 0's current point or, once none is left, a poll interval) and
// stay balanced to the end (at least kMinPointsPerRequest, at most kMaxPointsPerRequest).
constexpr std::size_t kMinPointsPerRequest = 4, kMaxPointsPerRequest = 256;
constexpr auto kPollInterval = std::chrono::microseconds(200);

std::size_t points_per_request(std::size_t left, int replaying_ranks) {
  return std::clamp<std::size_t>(left / (8 * static_cast<std::size_t>(replaying_ranks)), kMinPointsPerRequest,
                                 kMaxPointsPerRequest);
}

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw Error(std::string("MPI: ") + what + " failed");
}

}  // namespace

MpiSession::MpiSession() {
  if (!std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMI_SIZE")) return;  // not started by mpirun
  check(MPI_Init(nullptr, nullptr), "MPI_Init");
  initialised_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  if (initialised_) MPI_Finalize();
}

void MpiSession::abort(int exit_code) const {
  if (initialised_) MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::exit(exit_code);
}

void gather_points(const MpiSession& mpi, const SweepPlan& plan, const std::vector<std::size_t>& points,
                   const std::function<void(SweepRow)>& done, const SweepSpec& spec) {
  std::size_t next = 0;
  for (int serving = mpi.size() - 1; serving > 0;) {
    MPI_Status status;
    int waiting = 0;
    check(MPI_Iprobe(MPI_ANY_SOURCE, kRowsTag, MPI_COMM_WORLD, &waiting, &status), "MPI_Iprobe");
    if (!waiting) {
      if (next < points.size())
        done(plan.run(points[next++]));  // rank 0's share: one point, then it looks for requests again
      else
        std::this_thread::sleep_for(kPollInterval);  // a blocking probe busy-waits on a core the other ranks need
      continue;
    }
    int bytes = 0;
    MPI_Get_count(&status, MPI_CHAR, &bytes);
    std::string rows(static_cast<std::size_t>(bytes), '\0');
    check(MPI_Recv(rows.data(), bytes, MPI_CHAR, status.MPI_SOURCE, kRowsTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
    if (!rows.empty())
      for (auto& [index, row] : read_sweep_csv(sweep_csv_header(spec) + "\n" + rows, spec, "a rank's rows"))
        done(std::move(row));
    std::vector<std::uint64_t> chunk;
    const std::size_t handed = points_per_request(points.size() - next, mpi.size());
    for (; next < points.size() && chunk.size() < handed; ++next) chunk.push_back(points[next]);
    check(MPI_Send(chunk.data(), static_cast<int>(chunk.size()), MPI_UINT64_T, status.MPI_SOURCE, kPointsTag,
                   MPI_COMM_WORLD),
          "MPI_Send");
    if (chunk.empty()) --serving;
  }
}

void serve_points(const SweepPlan& plan) {
  std::string rows;
  for (;;) {
    check(MPI_Send(rows.data(), static_cast<int>(rows.size()), MPI_CHAR, 0, kRowsTag, MPI_COMM_WORLD), "MPI_Send");
    std::vector<std::uint64_t> chunk(kMaxPointsPerRequest);
    MPI_Status status;
    check(MPI_Recv(chunk.data(), static_cast<int>(chunk.size()), MPI_UINT64_T, 0, kPointsTag, MPI_COMM_WORLD, &status),
          "MPI_Recv");
    int count = 0;
    MPI_Get_count(&status, MPI_UINT64_T, &count);
    if (count == 0) return;
    rows.clear();
    for (int i = 0; i < count; ++i) rows += sweep_csv_row(plan.run(chunk[static_cast<std::size_t>(i)])) + "\n";
  }
}

}  // namespace ecosim::cli
