// `compress --scheme gact`: --bits is the average bit budget; the allocator picks the tensor's width from
// {1, 2, 4, 8, raw} (for one tensor: the largest that fits; raw costs the input's own width, 16 bits for fp16 and
// bf16), then the ActNN group quantizer runs.
#include "compress_schemes.hpp"
#include "ecosim/kernels/actnn.hpp"
#include "ecosim/kernels/gact.hpp"

namespace ecosim::cli {

CompressResult compress_gact(const CompressRequest& r) {
  const unsigned bits = kernels::gact::allocate_bits({1.0}, {r.x.elements}, r.bits, {ecosim::bits(r.x.dtype)}).front();
  CompressResult out;
  if (bits == 32) {
    kernels::check_input(r.x, "gact");
    kernels::check_finite(r.x, "gact");
    out.reconstruction = timed([&] { return kernels::decode(r.x); }, out.latency_ms);
    out.kept_bytes = {{r.x.dtype, storage_bytes(r.x.dtype, r.x.elements)}};
    out.detail = "allocated raw: kept as " + std::string(name(r.x.dtype));
    return out;
  }
  CompressRequest at_width = r;
  at_width.bits = bits;
  out = compress_actnn(at_width);
  out.detail = "allocated " + std::to_string(bits) + " bits; " + out.detail;
  return out;
}

}  // namespace ecosim::cli
