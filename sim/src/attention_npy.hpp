// Internal: attention tensors in .npy files for `run` and `validate` — Q, K, V read from `--input
// q.npy,k.npy,v.npy` (float32 [batch, heads, seq, dim]), and an output written in the same layout.
#pragma once
#include <string>

#include "ecosim/ecoformer/run.hpp"
#include "ecosim/traces/atomic_file.hpp"

namespace ecosim::cli {

/// One float32 [batch, heads, seq, dim] array; anything else is an ecosim::Error naming the file.
ecoformer::Tensor read_attention_tensor(const std::string& path);
/// "q.npy,k.npy,v.npy" → the three tensors.
ecoformer::AttentionInputs read_attention_inputs(const std::string& list);
/// Writes `out` as float32 [batch, heads, seq, dim] into `file` (opened before the work, so a bad path fails
/// first) and commits it: whole or not at all.
void write_attention_output(AtomicFile& file, const ecoformer::Tensor& out);

}  // namespace ecosim::cli
