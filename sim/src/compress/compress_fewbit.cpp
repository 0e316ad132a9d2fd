// `compress --scheme fewbit`: solves the --activation's Few-Bit quantiser at --bits, runs the forward
// kernel (f(x) + packed codes; timed) and the backward kernel with a unit gradient, so the reconstruction
// is the stored level q(x) per element and the reference is the exact derivative f′(x).
#include "compress_schemes.hpp"
#include "ecosim/kernels/fewbit.hpp"

#include <fmt/core.h>

namespace ecosim::cli {

CompressResult compress_fewbit(const CompressRequest& r) {
  namespace fb = kernels::fewbit;
  const fb::ActivationSpec& spec = fb::activation(r.activation);
  const fb::Quantizer q = fb::solve(spec.activation, r.bits);  // bits checked here (1..4)
  const fb::Codebook codebook = fb::Codebook::from(q);
  const bool gpu = r.device == DeviceChoice::cuda;
  CompressResult out;
  const fb::Forward f =
      timed([&] { return gpu ? fb::forward_cuda(codebook, r.x) : fb::forward_cpu(codebook, r.x); }, out.latency_ms);
  out.kept_bytes = {{code_dtype(r.bits), f.codes.size()}};
  const std::vector<std::uint8_t> ones = kernels::encode(std::vector<float>(r.x.elements, 1.0f), r.x.dtype);
  const kernels::TensorView unit{ones.data(), r.x.dtype, r.x.elements};
  out.reconstruction = kernels::decode(
      (gpu ? fb::backward_cuda(codebook, f.codes, unit) : fb::backward_cpu(codebook, f.codes, unit)).view());
  for (const float x : kernels::decode(r.x))
    out.reference.push_back(static_cast<float>(fb::evaluate_derivative(spec.activation, x)));
  out.detail =
      fmt::format("{} derivative, {} levels{}, squared-L2 error {:.4g} on [-{:g}, {:g}]; codes only", spec.name,
                  q.levels.size(), spec.even_derivative ? " of |x|" : "", q.error, q.range, q.range);
  return out;
}

}  // namespace ecosim::cli
