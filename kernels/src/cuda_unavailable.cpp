// Builds without CUDA: the CUDA entry points exist (so callers need no #if) and throw ecosim::Error.
#include "ecosim/kernels/actnn.hpp"
#include "ecosim/kernels/fewbit.hpp"
#include "ecosim/kernels/mesa.hpp"

#if !ECOSIM_HAS_CUDA
#include "ecosim/kernels/gpu.hpp"

namespace ecosim::kernels {
namespace {
[[noreturn]] void unavailable(const char* scheme) { throw gpu::unavailable(scheme, gpu::probe()); }
}  // namespace

actnn::Compressed actnn::quantize_cuda(const TensorView&, const Layout&, std::uint64_t, OpSink*) {
  unavailable("actnn");
}
std::vector<float> actnn::dequantize_cuda(const Compressed&, OpSink*) { unavailable("actnn"); }
CudaTiming actnn::time_cuda(const TensorView&, const Layout&, const timing::Plan&) { unavailable("actnn"); }
mesa::Compressed mesa::quantize_cuda(const TensorView&, const Layout&, State&, std::uint64_t, OpSink*) {
  unavailable("mesa");
}
std::vector<float> mesa::dequantize_cuda(const Compressed&, OpSink*) { unavailable("mesa"); }
CudaTiming mesa::time_cuda(const TensorView&, const Layout&, const timing::Plan&) { unavailable("mesa"); }

fewbit::Forward fewbit::forward_cuda(const Codebook&, const TensorView&, OpSink*) { unavailable("fewbit"); }
fewbit::HostTensor fewbit::backward_cuda(const Codebook&, std::span<const std::uint8_t>, const TensorView&, OpSink*) {
  unavailable("fewbit");
}
CudaTiming fewbit::time_cuda(const Codebook&, const TensorView&, const timing::Plan&) { unavailable("fewbit"); }

}  // namespace ecosim::kernels
#endif
