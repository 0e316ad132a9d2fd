// Internal: `ecosim train --measure-gpu PYTHON` — the step measured in PyTorch on this machine's GPU by the
// embedded python/ecosim/torch/step_time.py (with zoo_networks.py beside it, the model's resolved zoo entry in a
// temporary file), run by the given interpreter: per scheme it can measure (none, amp, gact:B, gact:avgB, mesa,
// fewbit:B — the last four through ecosim's hooks, when that interpreter imports the ecosim package) the median
// step time and the peak allocated memory, and the bytes autograd saves; or why nothing was measured.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ecosim/kernels/training_schemes.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/training_step.hpp"

namespace ecosim::cli {

struct MeasuredScheme {
  double step_ms = 0;
  std::uint64_t peak_bytes = 0;
};

struct StepMeasurement {
  std::map<std::string, MeasuredScheme> schemes;  // by the scheme's name, as `ecosim train` spells it
  std::uint64_t saved_activation_bytes = 0;       // what autograd saves in the fp32 forward
  std::string label;                              // "measured: PyTorch <version> on <GPU>, ..."
  std::string device_name;                        // the GPU as CUDA names it ("NVIDIA H200")
  std::string why_not;                            // set when nothing was measured
};

/// Whether step_time.py measures `scheme` (ActNN's levels it does not: the hooks take bits).
bool measurable(const kernels::schemes::Scheme& scheme);

/// The label of `scheme`'s measured step: m.label, and for a scheme measured through ecosim.torch's hooks (GACT,
/// Mesa, Few-Bit) that the hooks take each saved tensor through host memory, so the time is theirs, not the
/// scheme's own device kernels'.
std::string measured_label(const StepMeasurement& m, const kernels::schemes::Scheme& scheme);

/// The step of zoo `model` at options' batch, resolution and sequence length (0: the model's) under the
/// measurable ones of `schemes`, measured on the GPU by the interpreter at `python` (an absolute path).
StepMeasurement measure_step_on_gpu(const std::string& python, const ModelZoo& zoo, const std::string& model,
                                    const ModelOptions& options, const std::vector<kernels::schemes::Scheme>& schemes,
                                    Optimizer optimizer);

}  // namespace ecosim::cli
