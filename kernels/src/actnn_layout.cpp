// ActNN layout arithmetic (groups, per-sample byte offsets), unpacking one code, the op records of the
// quantize and dequantize passes, and the closed-form per-element variance.
#include <string>

#include "ecosim/kernels/actnn.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/primitives.hpp"
#include "input_type.hpp"
#include "pass_record.hpp"

namespace ecosim::kernels::actnn {

namespace {
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }
}  // namespace

std::uint64_t Layout::elements() const { return checked_mul(samples, sample_elements); }
std::uint64_t Layout::groups_per_sample() const { return ceil_div(sample_elements, kGroupSize); }
std::uint64_t Layout::groups() const { return checked_mul(samples, groups_per_sample()); }

void Layout::check() const {
  if (samples == 0 || sample_elements == 0) throw Error("actnn: empty tensor");
  if (bits.size() != samples)
    throw Error("actnn: " + std::to_string(bits.size()) + " bit widths for " + std::to_string(samples) + " samples");
  if (samples > 0xffffffffu) throw Error("actnn: more than 2^32 samples");
  for (unsigned b : bits)
    if (b != 1 && b != 2 && b != 4 && b != 8)
      throw Error("actnn: unsupported bit width " + std::to_string(b) + " (valid: 1, 2, 4, 8)");
  elements();  // overflow check
}

void Layout::check(const TensorView& x) const {
  check_input(x, "actnn");
  check();
  if (x.elements != elements()) throw Error("actnn: tensor size does not match samples × sample elements");
}

std::vector<std::uint64_t> Layout::sample_byte_offsets() const {
  std::vector<std::uint64_t> offsets(samples + 1, 0);
  for (std::uint64_t s = 0; s < samples; ++s)
    offsets[s + 1] = checked_add(offsets[s], ceil_div(checked_mul(sample_elements, bits[s]), 8));
  return offsets;
}

std::uint64_t Layout::storage_bytes() const {
  return checked_add(sample_byte_offsets().back(), checked_mul(groups(), kMetadataBytesPerGroup));
}

std::uint64_t Compressed::storage_bytes() const { return codes.size() + kMetadataBytesPerGroup * zero_bf16.size(); }

void Compressed::check() const {
  layout.check();
  if (sample_byte_offset != layout.sample_byte_offsets() || zero_bf16.size() != layout.groups() ||
      range_bf16.size() != layout.groups() || codes.size() != sample_byte_offset.back())
    throw Error("actnn: the compressed tensor's offsets, metadata or codes do not match its layout");
}

std::uint32_t Compressed::code(std::uint64_t sample, std::uint64_t index) const {
  const unsigned b = layout.bits[sample];
  const std::uint64_t bit = index * b;
  return (codes[sample_byte_offset[sample] + bit / 8] >> (bit % 8)) & ((1u << b) - 1u);
}

OpRecord quantize_record(const Layout& layout, DType input) {
  const std::uint64_t n = layout.elements(), groups = layout.groups();
  OpRecord r = pass_record("actnn.quantize_pack", "actnn_quantize", n, input,
                           {{std::string(ops::kGroupsParam), groups}, {std::string(ops::kGroupSizeParam), kGroupSize}});
  // Per group: min and max (2 compares per element), bf16 metadata and B/range (1 div); per element:
  // subtract, multiply, floor/fraction (1 add), compare with U and clamp (3 compares).
  r.counts.add(OpKind::cmp, DType::fp32, checked_mul(n, 5))
      .add(OpKind::add, DType::fp32, checked_mul(n, 2))
      .add(OpKind::mul, DType::fp32, n)
      .add(OpKind::div, DType::fp32, groups);
  r.counts.add_read_bytes(input, storage_bytes(input, n));
  const auto offsets = layout.sample_byte_offsets();
  for (std::uint64_t s = 0; s < layout.samples; ++s)
    r.counts.add_written_bytes(code_dtype(layout.bits[s]), offsets[s + 1] - offsets[s]);
  r.counts.add_written_bytes(DType::bf16, checked_mul(groups, kMetadataBytesPerGroup));
  return r;
}

OpRecord dequantize_record(const Layout& layout) {
  const std::uint64_t n = layout.elements(), groups = layout.groups();
  OpRecord r = pass_record("actnn.unpack_dequantize", "actnn_dequantize", n, DType::fp32,
                           {{std::string(ops::kGroupsParam), groups}, {std::string(ops::kGroupSizeParam), kGroupSize}});
  r.counts = affine_dequantize_counts(n, groups);
  const auto offsets = layout.sample_byte_offsets();
  for (std::uint64_t s = 0; s < layout.samples; ++s)
    r.counts.add_read_bytes(code_dtype(layout.bits[s]), offsets[s + 1] - offsets[s]);
  r.counts.add_read_bytes(DType::bf16, checked_mul(groups, kMetadataBytesPerGroup));
  r.counts.add_written_bytes(DType::fp32, storage_bytes(DType::fp32, n));
  return r;
}

std::vector<double> element_variance(const TensorView& x, const Compressed& c) {
  const quant::Input type = input_type(x.dtype);
  const Layout& l = c.layout;
  if (x.elements != l.elements()) throw Error("actnn: tensor and compressed layout differ in size");
  std::vector<double> variance(x.elements);
  for (std::uint64_t s = 0; s < l.samples; ++s) {
    const std::uint32_t levels = (1u << l.bits[s]) - 1u;
    for (std::uint64_t i = 0; i < l.sample_elements; ++i) {
      const std::uint64_t g = s * l.groups_per_sample() + i / kGroupSize, e = s * l.sample_elements + i;
      const float zero = quant::bf16_to_float(c.zero_bf16[g]);
      const float u =
          quant::mul_rn(quant::sub_rn(quant::load(x.data, type, e), zero), quant::quant_scale(c.range_bf16[g], levels));
      const double f = u >= static_cast<float>(levels) || !(u > 0.0f) ? 0.0 : u - std::floor(u);
      const double step = quant::quant_step(c.range_bf16[g], levels);
      variance[e] = step * step * f * (1.0 - f);
    }
  }
  return variance;
}

}  // namespace ecosim::kernels::actnn
