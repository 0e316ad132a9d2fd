// The launch geometry of ecosim's CUDA online-softmax attention kernel and of its split-KV decode step
// (ecoformer/src/msa_cuda.cu), defined here once: accel_model's GPU model prices those kernels by the same numbers
// (data/gpu_kernel_model.json's ecosim_attention_block_rows, ecosim_attention_key_tile, ecosim_decode_block_warps,
// ecosim_decode_keys_per_split and ecosim_decode_keys_at_once), and a test keeps the two equal.
#pragma once

namespace ecosim::ecoformer {

inline constexpr int kMsaBlockRows = 64;            // query rows (one thread each) a block
inline constexpr int kMsaKeyTile = 32;              // keys (and values) a shared-memory tile
inline constexpr int kMsaDecodeWarps = 4;           // warps a block of a decode step's partial sums
inline constexpr int kMsaDecodeKeysPerSplit = 256;  // keys of the cache a block of a decode step takes
inline constexpr int kMsaDecodeKeysAtOnce = 4;      // keys a warp of a decode step loads together, a step

}  // namespace ecosim::ecoformer
