// Mesa CPU reference: per-head min/max, running (α, β) update, 8-bit stochastic rounding saturating at
// 0 and 255; and dequantization. Bit-identical to mesa_cuda.cu (shared quant_math.hpp).
#include <algorithm>
#include <limits>
#include <string>

#include "ecosim/kernels/mesa.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/primitives.hpp"
#include "input_errors.hpp"
#include "input_type.hpp"
#include "mesa_step.hpp"
#include "pass_record.hpp"

namespace ecosim::kernels::mesa {

std::uint64_t Layout::elements() const { return checked_product({outer, heads, inner}); }

std::uint64_t Layout::storage_bytes() const {
  return checked_add(checked_mul(elements(), kCodeBytes), checked_mul(heads, kMetadataBytesPerHead));
}

void Layout::check() const {
  if (outer == 0 || heads == 0 || inner == 0) throw Error("mesa: empty tensor");
  if (checked_mul(outer, heads) > 0xffffffffu) throw Error("mesa: more than 2^32 head segments");
  elements();
}

void Layout::check(const TensorView& x, const State& state) const {
  check_input(x, "mesa");
  check();
  if (x.elements != elements()) throw Error("mesa: tensor size does not match outer × heads × inner");
  if (state.initialized() && (state.alpha.size() != heads || state.beta.size() != heads))
    throw Error("mesa: running state has a different number of heads");
}

void Compressed::check() const {
  layout.check();
  if (alpha.size() != layout.heads || beta.size() != layout.heads || codes.size() != layout.elements())
    throw Error("mesa: the compressed tensor's scales or codes do not match its layout");
}

OpRecord quantize_record(const Layout& layout, DType input) {
  const std::uint64_t n = layout.elements();
  // two passes over memory, as the CUDA kernels run (mesa_cuda.cu): the per-head min/max, then the quantization
  // with this step's running scale; each reads the input
  OpRecord r = pass_record("mesa.quantize", "mesa_quantize", n, input,
                           {{std::string(ops::kHeadsParam), layout.heads}, {std::string(ops::kPassesParam), 2}});
  // Min/max (2 compares), subtract, multiply, fraction (1 add), compare with U and clamp (3 compares);
  // per head the moving averages (4 muls, 3 adds) and 255/α.
  r.counts.add(OpKind::cmp, DType::fp32, checked_mul(n, 5))
      .add(OpKind::add, DType::fp32, checked_add(checked_mul(n, 2), checked_mul(layout.heads, 3)))
      .add(OpKind::mul, DType::fp32, checked_add(n, checked_mul(layout.heads, 4)))
      .add(OpKind::div, DType::fp32, layout.heads);
  r.counts.add_read_bytes(input, checked_mul(storage_bytes(input, n), 2));
  r.counts.add_written_bytes(DType::int8, checked_mul(n, kCodeBytes));
  r.counts.add_written_bytes(DType::fp32, checked_mul(layout.heads, kMetadataBytesPerHead));
  return r;
}

OpRecord dequantize_record(const Layout& layout) {
  const std::uint64_t n = layout.elements();
  OpRecord r = pass_record("mesa.dequantize", "mesa_dequantize", n, DType::fp32,
                           {{std::string(ops::kHeadsParam), layout.heads}});
  r.counts = affine_dequantize_counts(n, layout.heads);
  r.counts.add_read_bytes(DType::int8, checked_mul(n, kCodeBytes));
  r.counts.add_read_bytes(DType::fp32, checked_mul(layout.heads, kMetadataBytesPerHead));
  r.counts.add_written_bytes(DType::fp32, storage_bytes(DType::fp32, n));
  return r;
}

Compressed quantize_cpu(const TensorView& x, const Layout& layout, State& state, std::uint64_t seed, OpSink* sink) {
  layout.check(x, state);
  check_finite(x, "mesa");
  const quant::Input type = input_type(x.dtype);
  std::vector<float> lo(layout.heads, std::numeric_limits<float>::infinity()), hi(layout.heads, -lo[0]);
  for (std::uint64_t e = 0; e < x.elements; ++e) {
    const std::uint64_t h = (e / layout.inner) % layout.heads;
    const float v = quant::load(x.data, type, e);
    lo[h] = std::min(lo[h], v);
    hi[h] = std::max(hi[h], v);
  }
  Compressed c{layout, std::vector<float>(layout.heads), std::vector<float>(layout.heads),
               std::vector<std::uint8_t>(x.elements)};
  for (std::uint64_t h = 0; h < layout.heads; ++h) {
    const quant::MesaScale old =
        state.initialized() ? quant::MesaScale{state.alpha[h], state.beta[h]} : quant::MesaScale{0.0f, 0.0f};
    const quant::MesaScale s = quant::mesa_update(!state.initialized(), old, lo[h], hi[h], kMomentum);
    if (!quant::mesa_finite(s)) throw mesa_range_overflow(h);
    c.alpha[h] = s.alpha;
    c.beta[h] = s.beta;
  }
  for (std::uint64_t segment = 0; segment < layout.outer * layout.heads; ++segment) {
    const std::uint64_t h = segment % layout.heads, base = segment * layout.inner;
    const float scale = quant::mesa_scale(c.alpha[h]);
    for (std::uint64_t i = 0; i < layout.inner; i += 8) {  // one Philox call per 8 elements
      const quant::Uniform8 u = quant::uniforms8(seed, quant::kMesaStream, static_cast<std::uint32_t>(segment), i / 8);
      for (unsigned j = 0; j < 8 && i + j < layout.inner; ++j)
        c.codes[base + i + j] = static_cast<std::uint8_t>(
            quant::quantize(quant::load(x.data, type, base + i + j), c.beta[h], scale, u[j], 255));
    }
  }
  return finish_step(std::move(c), state, x.dtype, sink);
}

std::vector<float> dequantize_cpu(const Compressed& c, OpSink* sink) {
  c.check();
  const Layout& layout = c.layout;
  std::vector<float> out(c.codes.size());  // one code per element
  for (std::uint64_t segment = 0; segment < layout.outer * layout.heads; ++segment) {
    const std::uint64_t h = segment % layout.heads, base = segment * layout.inner;
    const float step = quant::mesa_step(c.alpha[h]);
    for (std::uint64_t i = base; i < base + layout.inner; ++i) out[i] = quant::dequantize(c.codes[i], c.beta[h], step);
  }
  if (sink) sink->record(dequantize_record(layout));
  return out;
}

}  // namespace ecosim::kernels::mesa
