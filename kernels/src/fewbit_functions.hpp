// Internal: the activations Few-Bit Backward supports, as host+device functions f(x) and f′(x) in double,
// shared by the solver (f, f′ on its grid) and the CPU and CUDA forward kernels (f), so both devices
// evaluate the same formula.
#pragma once
#include <cmath>

#include "ecosim/kernels/fewbit_solver.hpp"

#if defined(__CUDACC__)
#define ECOSIM_FEWBIT_HD __host__ __device__ inline
#else
#define ECOSIM_FEWBIT_HD inline
#endif

namespace ecosim::kernels::fewbit::detail {

inline constexpr double kSeluLambda = 1.0507009873554804934193349852946;
inline constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
inline constexpr double kLeakySlope = 0.01;
inline constexpr double kInvSqrt2 = 0.70710678118654752440;
inline constexpr double kInvSqrt2Pi = 0.39894228040143267794;

ECOSIM_FEWBIT_HD double sigmoid(double x) {
  // Stable for both signs: exp of a non-positive number never overflows.
  const double e = exp(-fabs(x));
  return x >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}
ECOSIM_FEWBIT_HD double softplus(double x) { return fmax(x, 0.0) + log1p(exp(-fabs(x))); }

/// f(x).
ECOSIM_FEWBIT_HD double value(Activation a, double x) {
  switch (a) {
    case Activation::gelu: return 0.5 * x * erfc(-x * kInvSqrt2);  // x·Φ(x), erfc keeps x ≪ 0 accurate
    case Activation::silu: return x * sigmoid(x);
    case Activation::sigmoid: return sigmoid(x);
    case Activation::tanh: return tanh(x);
    case Activation::selu: return x > 0 ? kSeluLambda * x : kSeluLambda * kSeluAlpha * expm1(x);
    case Activation::softplus: return softplus(x);
    case Activation::elu: return x > 0 ? x : expm1(x);
    case Activation::mish: return x * tanh(softplus(x));
    case Activation::relu: return x > 0 ? x : 0.0;
    case Activation::leaky_relu: return x > 0 ? x : kLeakySlope * x;
  }
  return 0.0;
}

/// f′(x) (at the kink x = 0 of ReLU, LeakyReLU, SELU the left derivative; the solver never evaluates
/// it there: x = 0 is a grid point and its quadrature uses only interior nodes of each grid cell).
ECOSIM_FEWBIT_HD double derivative(Activation a, double x) {
  switch (a) {
    case Activation::gelu: return 0.5 * erfc(-x * kInvSqrt2) + x * kInvSqrt2Pi * exp(-0.5 * x * x);
    case Activation::silu: {
      const double s = sigmoid(x);
      return s * (1.0 + x * (1.0 - s));
    }
    case Activation::sigmoid: {
      const double s = sigmoid(x);
      return s * (1.0 - s);
    }
    case Activation::tanh: {
      const double t = tanh(x);
      return 1.0 - t * t;
    }
    case Activation::selu: return x > 0 ? kSeluLambda : kSeluLambda * kSeluAlpha * exp(x);
    case Activation::softplus: return sigmoid(x);
    case Activation::elu: return x > 0 ? 1.0 : exp(x);
    case Activation::mish: {
      const double t = tanh(softplus(x));
      return t + x * sigmoid(x) * (1.0 - t * t);
    }
    case Activation::relu: return x > 0 ? 1.0 : 0.0;
    case Activation::leaky_relu: return x > 0 ? 1.0 : kLeakySlope;
  }
  return 0.0;
}

}  // namespace ecosim::kernels::fewbit::detail
