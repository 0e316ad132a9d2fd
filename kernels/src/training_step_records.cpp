// The training step's records under a scheme as an accelerator or GPU replays them: forward, compression work,
// the stored copies written to DRAM and read back, decompression work, backward, update.
#include "ecosim/kernels/training_schemes.hpp"

namespace ecosim::kernels::schemes {

namespace {

/// `r` with its operations only: the tensor it reads is the producing layer's output still on chip, the tensor
/// it writes goes to DRAM as the save record (or to the consuming layer on chip).
OpRecord operations_only(const OpRecord& r) {
  OpRecord fused = r;
  fused.counts = OpCounts{};
  for (OpKind k : kAllOpKinds)
    for (DType t : kAllDTypes)
      if (const std::uint64_t n = r.counts.ops(k, t)) fused.counts.add(k, t, n);
  return fused;
}

/// A DMA record moving a stored copy's bytes to DRAM (`write`) or back.
OpRecord transfer(const std::string& name, const StoredTensor& s, bool write) {
  const DType t = s.form == "fp32" ? DType::fp32 : s.form == "fp16" ? DType::fp16 : DType::int8;
  OpRecord r;
  r.name = name;
  r.kind = OpClass::memcpy;
  r.func = write ? "save_for_backward" : "restore_for_backward";
  r.n = s.bytes / (bits(t) / 8);
  r.a_dtype = r.b_dtype = t;
  if (write)
    r.counts.add_written_bytes(t, s.bytes);
  else
    r.counts.add_read_bytes(t, s.bytes);
  return r;
}

}  // namespace

std::vector<OpRecord> step_records(const TrainingStep& step, const SchemeStep& scheme,
                                   const std::vector<Layer>& layers) {
  std::vector<OpRecord> records = step.forward;
  for (const OpRecord& r : scheme.compress) records.push_back(operations_only(r));
  for (const StoredTensor& s : scheme.stored)
    records.push_back(transfer(layers[s.first_saver].name + ".save_for_backward", s, true));
  for (auto s = scheme.stored.rbegin(); s != scheme.stored.rend(); ++s)
    records.push_back(transfer(layers[s->first_saver].name + ".restore", *s, false));
  for (const OpRecord& r : scheme.decompress) records.push_back(operations_only(r));
  records.insert(records.end(), step.backward.begin(), step.backward.end());
  records.insert(records.end(), step.update.begin(), step.update.end());
  return records;
}

}  // namespace ecosim::kernels::schemes
