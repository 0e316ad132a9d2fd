// ActNN CPU reference: per group min/max, bf16 metadata rounded outward, stochastic rounding with Philox,
// LSB-first packing; and unpack + dequantize. Bit-identical to actnn_cuda.cu (shared quant_math.hpp).
#include <algorithm>
#include <string>

#include "ecosim/kernels/actnn.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "input_errors.hpp"
#include "input_type.hpp"

namespace ecosim::kernels::actnn {

Compressed quantize_cpu(const TensorView& x, const Layout& layout, std::uint64_t seed, OpSink* sink) {
  layout.check(x);
  check_finite(x, "actnn");
  const quant::Input type = input_type(x.dtype);
  Compressed c{layout, layout.sample_byte_offsets(), {}, {}, {}};
  c.zero_bf16.resize(layout.groups());
  c.range_bf16.resize(layout.groups());
  c.codes.assign(c.sample_byte_offset.back(), 0);
  const std::uint64_t groups_per_sample = layout.groups_per_sample();
  for (std::uint64_t s = 0; s < layout.samples; ++s) {
    const unsigned b = layout.bits[s];
    const std::uint32_t levels = (1u << b) - 1u;
    for (std::uint64_t j = 0; j < groups_per_sample; ++j) {
      const std::uint64_t first = j * kGroupSize;
      const std::uint64_t count = std::min(kGroupSize, layout.sample_elements - first);
      const std::uint64_t base = s * layout.sample_elements + first, g = s * groups_per_sample + j;
      const MinMax range = min_max(x.data, type, base, count);
      const quant::Metadata m = quant::group_metadata(range.lo, range.hi);
      if (!quant::metadata_finite(m)) throw actnn_range_overflow(g);
      c.zero_bf16[g] = m.zero_bf16;
      c.range_bf16[g] = m.range_bf16;
      const float zero = quant::bf16_to_float(m.zero_bf16), scale = quant::quant_scale(m.range_bf16, levels);
      for (std::uint64_t i = 0; i < count; i += 8) {  // one Philox call per 8 elements
        const quant::Uniform8 u =
            quant::uniforms8(seed, quant::kActnnStream, static_cast<std::uint32_t>(s), (first + i) / 8);
        for (unsigned j = 0; j < 8 && i + j < count; ++j) {
          const std::uint64_t bit = (first + i + j) * b;
          const std::uint32_t code =
              quant::quantize(quant::load(x.data, type, base + i + j), zero, scale, u[j], levels);
          c.codes[c.sample_byte_offset[s] + bit / 8] |= static_cast<std::uint8_t>(code << (bit % 8));
        }
      }
    }
  }
  if (sink) sink->record(quantize_record(layout, x.dtype));
  return c;
}

std::vector<float> dequantize_cpu(const Compressed& c, OpSink* sink) {
  c.check();
  const Layout& layout = c.layout;
  std::vector<float> out(layout.elements());
  const std::uint64_t groups_per_sample = layout.groups_per_sample();
  for (std::uint64_t s = 0; s < layout.samples; ++s) {
    const unsigned b = layout.bits[s];
    const std::uint32_t levels = (1u << b) - 1u;
    const std::uint8_t* codes = c.codes.data() + c.sample_byte_offset[s];
    for (std::uint64_t j = 0; j < groups_per_sample; ++j) {
      const std::uint64_t g = s * groups_per_sample + j, first = j * kGroupSize;
      const std::uint64_t end = std::min(first + kGroupSize, layout.sample_elements);
      const float zero = quant::bf16_to_float(c.zero_bf16[g]), step = quant::quant_step(c.range_bf16[g], levels);
      for (std::uint64_t i = first; i < end; ++i) {
        const std::uint64_t bit = i * b;
        out[s * layout.sample_elements + i] = quant::dequantize((codes[bit / 8] >> (bit % 8)) & levels, zero, step);
      }
    }
  }
  if (sink) sink->record(dequantize_record(layout));
  return out;
}

}  // namespace ecosim::kernels::actnn
