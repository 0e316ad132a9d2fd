// Internal (CUDA sources only): the running sums the causal forms of Performer (performer_cuda.cu) and the
// EcoFormer family (hashed_attention_cuda.cu) share — the exclusive scan over chunks of tokens (each chunk's
// partial sums replaced by the sums of the chunks before it, in chunk order: deterministic), and a decode
// state's sums grown by a step's partial sums.
#pragma once

namespace ecosim::ecoformer::detail {

/// x holds `groups` runs of `chunks` entries of `size` values; each entry becomes the sum of the entries before it
/// in its group (the first zero), in chunk order. One thread per (group, value).
template <class T>
__global__ void exclusive_chunk_scan_kernel(T* x, long long groups, long long chunks, long long size) {
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= groups * size) return;
  T* base = x + (e / size) * chunks * size + e % size;
  T running = 0;
  for (long long c = 0; c < chunks; ++c) {
    const T entry = base[c * size];
    base[c * size] = running;
    running += entry;
  }
}

/// sum[i] += x[i] for i < count. One thread per value.
template <class T>
__global__ void add_onto_kernel(T* sum, const T* x, long long count) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) sum[i] += x[i];
}

}  // namespace ecosim::ecoformer::detail
