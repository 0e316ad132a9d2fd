// Attention tensors in .npy files: the 4-dimensional shape check on reading, and the atomic write of an output.
#include "attention_npy.hpp"

#include <vector>

#include "ecosim/ecoformer/npy.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/traces/atomic_file.hpp"
#include "workload.hpp"

namespace ecosim::cli {

ecoformer::Tensor read_attention_tensor(const std::string& path) {
  ecoformer::NpyArray a = ecoformer::read_npy(path);
  if (a.shape.size() != 4)
    throw Error(path + ": expected a 4-dimensional array [batch, heads, seq, dim], got " +
                std::to_string(a.shape.size()) + " dimensions");
  return {a.shape[0], a.shape[1], a.shape[2], a.shape[3], std::move(a.data)};
}

ecoformer::AttentionInputs read_attention_inputs(const std::string& list) {
  const std::vector<std::string> paths = comma_items(list, "input");
  if (paths.size() != 3) throw Error("--input takes three files q.npy,k.npy,v.npy, got '" + list + "'");
  return {read_attention_tensor(paths[0]), read_attention_tensor(paths[1]), read_attention_tensor(paths[2])};
}

void write_attention_output(AtomicFile& file, const ecoformer::Tensor& out) {
  file.stream() << ecoformer::npy_bytes({out.batch, out.heads, out.seq, out.dim}, out.data);
  file.commit();
}

}  // namespace ecosim::cli
