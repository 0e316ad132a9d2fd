// Few-Bit Backward CPU reference: forward (f(x) + packed interval codes) and backward (gradient × level of
// the stored code), group by group with the same per-group code as the CUDA kernels (fewbit_element.hpp).
#include <string>

#include "ecosim/ops_counter/error.hpp"
#include "fewbit_element.hpp"
#include "input_errors.hpp"
#include "input_type.hpp"

namespace ecosim::kernels::fewbit {

Forward forward_cpu(const Codebook& c, const TensorView& x, OpSink* sink) {
  check_input(x, "fewbit");
  const detail::Table table = detail::make_table(c);
  const quant::Input type = input_type(x.dtype);
  Forward out{HostTensor(x.dtype, x.elements), std::vector<std::uint8_t>(code_bytes(x.elements, c.bits))};
  for (std::uint64_t g = 0; g < detail::group_count(x.elements); ++g) {
    const std::uint64_t bad =
        detail::forward_group(table, x.data, type, x.elements, g, out.output.bytes.data(), out.codes.data());
    if (bad != x.elements) throw non_finite_input("fewbit", bad);
  }
  if (sink) sink->record(forward_record(c, x.elements, x.dtype));
  return out;
}

HostTensor backward_cpu(const Codebook& c, std::span<const std::uint8_t> codes, const TensorView& grad, OpSink* sink) {
  check_input(grad, "fewbit");
  const detail::Table table = detail::make_table(c);
  if (codes.size() != code_bytes(grad.elements, c.bits))
    throw Error("fewbit: " + std::to_string(codes.size()) + " code bytes do not match " +
                std::to_string(grad.elements) + " gradient elements at " + std::to_string(c.bits) + " bits");
  const quant::Input type = input_type(grad.dtype);
  HostTensor out(grad.dtype, grad.elements);
  for (std::uint64_t g = 0; g < detail::group_count(grad.elements); ++g)
    detail::backward_group(table, codes.data(), grad.data, type, grad.elements, g, out.bytes.data());
  if (sink) sink->record(backward_record(c, grad.elements, grad.dtype));
  return out;
}

}  // namespace ecosim::kernels::fewbit
