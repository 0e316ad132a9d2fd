// `compress --scheme actnn`: groups of 256 on the chosen device, the whole tensor at one bit width or, with
// --per-sample, one width per sample (first dimension) chosen by the greedy allocator from the samples'
// range weights under an average-bit budget.
#include <map>

#include <fmt/core.h>

#include "compress_schemes.hpp"
#include "ecosim/kernels/actnn.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cli {

namespace {
kernels::actnn::Layout layout_of(const CompressRequest& r) {
  using namespace kernels::actnn;
  if (!r.per_sample_bits) return Layout::uniform(r.x.elements, r.bits);
  if (r.shape.size() < 2) throw Error("--per-sample needs a shape of two or more dimensions (samples first)");
  if (r.bits > 8) throw Error("--per-sample: the average --bits must be 1 to 8");
  const std::uint64_t samples = r.shape.front();
  kernels::check_input(r.x, "actnn");  // before the samples' share of the elements: none of an empty tensor
  return {samples, r.x.elements / samples, allocate_bits(range_weights(r.x, samples), checked_mul(samples, r.bits))};
}

std::string describe(const kernels::actnn::Layout& layout) {
  std::string text = fmt::format("{} groups of 256, bf16 (zero, range) per group", layout.groups());
  if (layout.samples == 1) return text;
  std::map<unsigned, std::uint64_t> histogram;
  for (unsigned b : layout.bits) ++histogram[b];
  text += "; samples per width:";
  for (const auto& [bits, count] : histogram) text += fmt::format(" {}×{} bit", count, bits);
  return text;
}
}  // namespace

CompressResult compress_actnn(const CompressRequest& r) {
  using namespace kernels::actnn;
  const Layout layout = layout_of(r);
  const bool gpu = r.device == DeviceChoice::cuda;
  CompressResult out;
  const Compressed c = timed(
      [&] {
        return gpu ? quantize_cuda(r.x, layout, r.seed, r.compress_sink)
                   : quantize_cpu(r.x, layout, r.seed, r.compress_sink);
      },
      out.latency_ms);
  out.kept_bytes = written_bytes(quantize_record(layout, r.x.dtype));  // the codes and the (zero, range) pairs
  out.reconstruction = gpu ? dequantize_cuda(c, r.decompress_sink) : dequantize_cpu(c, r.decompress_sink);
  out.detail = describe(layout);
  return out;
}

}  // namespace ecosim::cli
