// The table of activations Few-Bit Backward supports: CLI name, whether f′ is even or piecewise constant,
// and the operations one f(x) costs (erf, exp, tanh, log1p each counted as one exp).
#include <algorithm>

#include "ecosim/kernels/fewbit_solver.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "fewbit_functions.hpp"

namespace ecosim::kernels::fewbit {

namespace {
constexpr ActivationSpec kActivations[] = {
    {"gelu", Activation::gelu, false, false, {.mul = 3, .add = 1, .exp = 1}},
    {"silu", Activation::silu, false, false, {.mul = 1, .add = 1, .exp = 1, .div = 1}},
    {"sigmoid", Activation::sigmoid, true, false, {.add = 1, .exp = 1, .div = 1}},
    {"tanh", Activation::tanh, true, false, {.exp = 1}},
    {"selu", Activation::selu, false, false, {.mul = 1, .add = 1, .cmp = 1, .exp = 1}},
    {"softplus", Activation::softplus, false, false, {.add = 1, .cmp = 1, .exp = 2}},
    {"elu", Activation::elu, false, false, {.add = 1, .cmp = 1, .exp = 1}},
    {"mish", Activation::mish, false, false, {.mul = 1, .add = 1, .cmp = 1, .exp = 3}},
    {"relu", Activation::relu, false, true, {.cmp = 1}},
    {"leaky_relu", Activation::leaky_relu, false, true, {.mul = 1, .cmp = 1}},
};
}  // namespace

std::span<const ActivationSpec> activations() { return kActivations; }

const ActivationSpec& activation(std::string_view name) {
  const std::string_view canonical = name == "swish" ? "silu" : name;
  for (const ActivationSpec& s : kActivations)
    if (s.name == canonical) return s;
  std::string valid;
  for (const ActivationSpec& s : kActivations) valid += (valid.empty() ? "" : ", ") + std::string(s.name);
  throw Error("unknown activation '" + std::string(name) + "' (valid: " + valid + ", swish)");
}

const ActivationSpec& spec(Activation a) {
  return *std::find_if(std::begin(kActivations), std::end(kActivations),
                       [a](const ActivationSpec& s) { return s.activation == a; });
}

double evaluate(Activation a, double x) { return detail::value(a, x); }
double evaluate_derivative(Activation a, double x) { return detail::derivative(a, x); }

}  // namespace ecosim::kernels::fewbit
