// The launch geometry of ecosim's CUDA online-softmax attention kernel (ecoformer/src/msa_cuda.cu), defined here
// once: accel_model's GPU model prices that kernel by the same numbers (data/gpu_kernel_model.json's
// ecosim_attention_block_rows and ecosim_attention_key_tile), and a test keeps the two equal.
#pragma once

namespace ecosim::ecoformer {

inline constexpr int kMsaBlockRows = 64;  // query rows (one thread each) a block
inline constexpr int kMsaKeyTile = 32;    // keys (and values) a shared-memory tile

}  // namespace ecosim::ecoformer
