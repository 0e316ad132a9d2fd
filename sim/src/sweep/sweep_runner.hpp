// Internal: running a sweep's points. Before any point runs, every configuration the axes span is built (one
// the accelerator model rejects — buffers too small for one tile, say — is pruned, as is one outside the area
// constraints) and every workload × variant's exact-convention records are made once (one that cannot be
// built gives error rows). Points then run on a pool of threads, each a replay of its records on its
// configuration; a failing point gives an error row and the sweep goes on.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/ops_counter/op_record.hpp"
#include "sweep_report.hpp"
#include "sweep_spec.hpp"
#include "work_limits.hpp"

namespace ecosim::cli {

class SweepPlan {
 public:
  /// Builds the configurations and records; throws ecosim::Error when the constraints prune every point. A point
  /// whose replay is estimated above `limits.max_seconds` (> 0) is refused (its row's error names --max-minutes).
  explicit SweepPlan(const SweepSpec& spec, WorkLimits limits = {});

  const SweepSpec& spec() const { return spec_; }
  const accel::AccelConfig& base() const { return base_; }
  /// The indices of the points that run (not pruned), ascending.
  const std::vector<std::size_t>& runnable() const { return runnable_; }
  /// {"configurations", "points", "reasons": [{"axes": {...}, "reason"}, ...]} of the pruned configurations.
  const nlohmann::json& pruned() const { return pruned_; }
  /// {"configurations": n, "first": warning}: kept configurations whose bank sizes lie outside the CACTI table
  /// (their costs extrapolated; accel_model/README.md).
  const nlohmann::json& cost_warnings() const { return cost_warnings_; }
  /// Point `index`'s CSV identity: workload, variant, the parameters the spec set, one value per axis.
  std::vector<std::string> point(std::size_t index) const;
  /// Replays point `index` (one of runnable()); a failure is the row's error.
  SweepRow run(std::size_t index) const;

 private:
  struct Group {  // one workload × variant
    std::vector<OpRecord> records;
    std::string error;  // the records could not be built
  };
  const SweepSpec& spec_;
  WorkLimits limits_;
  accel::AccelConfig base_;
  std::vector<std::optional<accel::AccelConfig>> configs_;  // by configuration index; empty: pruned
  std::vector<Group> groups_;
  std::vector<std::size_t> runnable_;
  nlohmann::json pruned_;
  nlohmann::json cost_warnings_;
};

/// Runs `points` on `jobs` threads; `done` is called on the calling thread, in no set order, with each row
/// as it finishes (no two calls at once).
void run_points(const SweepPlan& plan, const std::vector<std::size_t>& points, unsigned jobs,
                const std::function<void(SweepRow)>& done);

}  // namespace ecosim::cli
