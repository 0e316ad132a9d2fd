// Builds without CUDA: the library baseline's entry point exists (so callers need no #if) and throws.
#include "ecosim/ecoformer/library_attention.hpp"

#if !ECOSIM_HAS_CUDA
#include "ecosim/kernels/gpu.hpp"

namespace ecosim::ecoformer {

std::string library_attention_unfit(std::uint64_t, std::uint64_t, std::uint64_t) {
  return gpu::unavailable("library attention", gpu::probe()).what();
}

LibraryAttention library_attention_cuda(const AttentionInputs&, const timing::Plan&) {
  throw gpu::unavailable("library attention", gpu::probe());
}

}  // namespace ecosim::ecoformer
#endif
