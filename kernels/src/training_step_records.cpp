// The training step's records under a scheme as the accelerator replays them (forward, compression work, the stored
// copies written to DRAM and read back, decompression work, backward, update) and as PyTorch runs them on a GPU.
#include "ecosim/kernels/training_schemes.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::kernels::schemes {

std::vector<OpRecord> step_records(const TrainingStep& step, const SchemeStep& scheme,
                                   const std::vector<Layer>& layers) {
  std::vector<OpRecord> records = step.forward;
  for (const OpRecord& r : scheme.compress) records.push_back(ops::on_chip(r));
  for (const StoredTensor& s : scheme.stored)
    for (const auto& [t, bytes] : s.kept)
      records.push_back(ops::dram_transfer(layers[s.first_saver].name + ".save_for_backward." + std::string(name(t)), t,
                                           bytes, true));
  for (auto s = scheme.stored.rbegin(); s != scheme.stored.rend(); ++s)
    for (const auto& [t, bytes] : s->kept)
      records.push_back(
          ops::dram_transfer(layers[s->first_saver].name + ".restore." + std::string(name(t)), t, bytes, false));
  for (const OpRecord& r : scheme.decompress) records.push_back(ops::on_chip(r));
  records.insert(records.end(), scheme.backward.begin(), scheme.backward.end());
  records.insert(records.end(), step.update.begin(), step.update.end());
  return records;
}

std::vector<OpRecord> gpu_step_records(const TrainingStep& step, const SchemeStep& scheme) {
  std::vector<OpRecord> records = step.forward;
  records.insert(records.end(), scheme.compress.begin(), scheme.compress.end());
  records.insert(records.end(), scheme.decompress.begin(), scheme.decompress.end());
  records.insert(records.end(), scheme.backward.begin(), scheme.backward.end());
  records.insert(records.end(), step.update.begin(), step.update.end());
  return records;
}

}  // namespace ecosim::kernels::schemes
