// `compress --scheme actnn`: the whole tensor at one bit width, groups of 256, on the chosen device.
#include "compress_schemes.hpp"
#include "ecosim/kernels/actnn.hpp"

namespace ecosim::cli {

CompressResult compress_actnn(const CompressRequest& r) {
  using namespace kernels::actnn;
  const Layout layout = Layout::uniform(r.x.elements, r.bits);
  const bool gpu = r.device == DeviceChoice::cuda;
  CompressResult out;
  const Compressed c =
      timed([&] { return gpu ? quantize_cuda(r.x, layout, r.seed, r.sink) : quantize_cpu(r.x, layout, r.seed, r.sink); }, out.latency_ms);
  out.storage_bytes = c.storage_bytes();
  out.reconstruction = gpu ? dequantize_cuda(c, r.sink) : dequantize_cpu(c, r.sink);
  out.detail = std::to_string(layout.groups()) + " groups of 256, bf16 (zero, range) per group";
  return out;
}

}  // namespace ecosim::cli
