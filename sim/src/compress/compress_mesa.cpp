// `compress --scheme mesa`: 8 bits, the last dimension split into --groups channel groups with one (α, β)
// each; a single step, so the running estimates are the tensor's own min and range (exact first step).
#include "compress_schemes.hpp"
#include "ecosim/kernels/mesa.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cli {

CompressResult compress_mesa(const CompressRequest& r) {
  using namespace kernels::mesa;
  if (r.bits != 8) throw Error("mesa stores 8-bit codes: give --bits 8");
  const std::uint64_t channels = r.shape.back();
  if (r.x.elements == 0 || channels == 0) throw Error("mesa: empty tensor");
  if (r.groups == 0 || channels % r.groups != 0)
    throw Error("mesa: --groups " + std::to_string(r.groups) + " must divide the last dimension " +
                std::to_string(channels));
  const Layout layout{r.x.elements / channels, r.groups, channels / r.groups};
  const bool gpu = r.device == DeviceChoice::cuda;
  State state;
  CompressResult out;
  const Compressed c = timed(
      [&] {
        return gpu ? quantize_cuda(r.x, layout, state, r.seed, r.compress_sink)
                   : quantize_cpu(r.x, layout, state, r.seed, r.compress_sink);
      },
      out.latency_ms);
  out.kept_bytes = written_bytes(quantize_record(layout, r.x.dtype));  // the codes and the (α, β) pairs
  out.reconstruction = gpu ? dequantize_cuda(c, r.decompress_sink) : dequantize_cpu(c, r.decompress_sink);
  out.detail = std::to_string(r.groups) + " channel group(s), fp32 (alpha, beta) each";
  return out;
}

}  // namespace ecosim::cli
