// Pricing a training step: the accelerator replay of its records and the GPU model's estimate.
#include "train_pricing.hpp"

#include "ecosim/accel_model/gpu/op_records.hpp"
#include "ecosim/accel_model/plan_source.hpp"
#include "ecosim/ops_counter/record_source.hpp"

namespace ecosim::cli {

StepPrice price_step(const std::vector<OpRecord>& accel_records, const std::vector<OpRecord>& gpu_records,
                     const PricingSetup& setup, const TechTable& tech, bool autocast, std::uint64_t peak_bytes) {
  RecordList list(accel_records);
  accel::PlanSource plans(list, Convention::exact, "ecosim train", setup.accel, tech);
  const accel::ReplayResult replay = accel::replay(setup.engine, plans, setup.accel);
  StepPrice price;
  price.accel_latency_ms = replay.latency_ms();
  price.accel_energy_pj = replay.total.energy.total_pj();
  price.accel_dram_pj = replay.total.energy.dram_pj;
  price.accel_dram_bits = replay.total.dram_bits;
  price_on_gpu(price, gpu_records, setup.gpu, autocast, peak_bytes);
  return price;
}

void price_on_gpu(StepPrice& price, const std::vector<OpRecord>& gpu_records, const gpu::GpuSpec& gpu, bool autocast,
                  std::uint64_t peak_bytes) {
  const gpu::Software software = autocast ? gpu::Software::pytorch_amp : gpu::Software::pytorch_fp32;
  price.gpu_ms = gpu::modelled_latency_s(gpu_records, gpu, software) * 1e3;
  price.gpu_label = "estimate: modelled, " + gpu.name + ", " + std::string(gpu::software_description(software));
  price.gpu_fits = peak_bytes <= gpu.memory_bytes;
}

}  // namespace ecosim::cli
