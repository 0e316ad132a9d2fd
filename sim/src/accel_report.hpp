// Internal: the accelerator options shared by `replay` and `compare` (--accel NAME | --accel-config FILE), and
// the rendering of a replay result as an aligned table, CSV or JSON.
#pragma once
#include <boost/program_options.hpp>
#include <string>

#include "count_report.hpp"
#include "ecosim/accel_model/replay.hpp"

namespace ecosim::cli {

boost::program_options::options_description accel_options();
/// The built-in accelerator named by --accel, or --accel-config merged over it; throws ecosim::Error.
accel::AccelConfig parse_accel(const boost::program_options::variables_map& vm);

/// Total and per-operation rows: cycles, latency, energy by component, utilisation and stalls.
std::string render(const accel::ReplayResult& result, Format format);

}  // namespace ecosim::cli
