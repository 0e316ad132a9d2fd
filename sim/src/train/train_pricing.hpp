// Internal: the price of a training step under a scheme on the accelerator model (latency, energy, DRAM bits of
// the step's records replayed, kernels/training_schemes.hpp step_records) and on a GPU (the GPU model's
// estimate, labelled as one; with --measure-gpu the step measured in PyTorch replaces it, the estimate kept beside).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/gpu/gpu_spec.hpp"
#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/energy.hpp"
#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::cli {

struct StepPrice {
  double accel_latency_ms = 0, accel_energy_pj = 0, accel_dram_pj = 0;
  std::uint64_t accel_dram_bits = 0;
  double gpu_ms = 0;
  std::string gpu_label;                  // "estimate: modelled, <GPU>, <software>", or "measured: ..."
  std::optional<double> gpu_ms_estimate;  // when gpu_ms is measured: the GPU model's estimate beside it
  std::optional<std::uint64_t> gpu_peak_bytes_measured;
  bool gpu_fits = true;  // the step's peak memory within the GPU's (else gpu_ms assumes memory it does not have)
};

struct PricingSetup {
  accel::AccelConfig accel;
  accel::Engine engine;
  gpu::GpuSpec gpu;
};

/// `accel_records` (exact convention: schemes::step_records) replayed on setup.accel with setup.engine, and
/// `gpu_records` (schemes::gpu_step_records) modelled on setup.gpu as PyTorch eager runs them (in fp16 where
/// `autocast`), the step's `peak_bytes` checked against the GPU's memory (a warning on stderr where beyond it).
StepPrice price_step(const std::vector<OpRecord>& accel_records, const std::vector<OpRecord>& gpu_records,
                     const PricingSetup& setup, const TechTable& tech, bool autocast, std::uint64_t peak_bytes);
/// price's GPU estimate (gpu_ms, gpu_label, gpu_fits) of `gpu_records` on `gpu`, as price_step sets it.
void price_on_gpu(StepPrice& price, const std::vector<OpRecord>& gpu_records, const gpu::GpuSpec& gpu, bool autocast,
                  std::uint64_t peak_bytes);

}  // namespace ecosim::cli
