// Input checks shared by every compression scheme (supported dtype, non-empty, finite) and encoding of
// fp32 values in the input dtypes.
#include "ecosim/kernels/tensor_view.hpp"

#include <string>

#include "ecosim/ops_counter/error.hpp"
#include "input_errors.hpp"
#include "input_type.hpp"

namespace ecosim::kernels {

quant::Input input_type(DType t) {
  switch (t) {
    case DType::fp32: return quant::Input::fp32;
    case DType::fp16: return quant::Input::fp16;
    case DType::bf16: return quant::Input::bf16;
    default: throw Error("activation compression takes fp32, fp16 or bf16 inputs, not " + std::string(name(t)));
  }
}

void check_input(const TensorView& x, const char* scheme) {
  input_type(x.dtype);
  if (x.elements == 0) throw Error(std::string(scheme) + ": empty tensor");
  if (x.data == nullptr) throw Error(std::string(scheme) + ": null input data");
}

void check_finite(const TensorView& x, const char* scheme) {
  const quant::Input type = input_type(x.dtype);
  for (std::uint64_t i = 0; i < x.elements; ++i)
    if (!quant::is_finite(quant::load(x.data, type, i))) throw non_finite_input(scheme, i);
}

std::vector<float> decode(const TensorView& x) {
  const quant::Input type = input_type(x.dtype);
  std::vector<float> values(x.elements);
  for (std::uint64_t i = 0; i < x.elements; ++i) values[i] = quant::load(x.data, type, i);
  return values;
}

std::vector<std::uint8_t> encode(const std::vector<float>& values, DType t) {
  const quant::Input type = input_type(t);
  std::vector<std::uint8_t> bytes(values.size() * (bits(t) / 8));
  for (std::size_t i = 0; i < values.size(); ++i) quant::store(bytes.data(), type, i, values[i]);
  return bytes;
}

}  // namespace ecosim::kernels
