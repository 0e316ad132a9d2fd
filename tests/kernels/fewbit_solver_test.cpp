// Few-Bit Backward solver: reproduces the published GELU errors, equals brute force on a coarse grid,
// levels are interval means, the error is the L2 distance on fine and coarse grids, error never rises with bits, exact
// 1-bit ReLU/LeakyReLU, even derivatives, formulas of f′ agree with finite differences of f, and bad input is refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ecosim/kernels/fewbit_solver.hpp"
#include "ecosim/ops_counter/error.hpp"

using namespace ecosim::kernels::fewbit;

namespace {

std::vector<Activation> smooth_activations() {
  std::vector<Activation> out;
  for (const ActivationSpec& s : activations())
    if (!s.piecewise_constant) out.push_back(s.activation);
  return out;
}

}  // namespace

TEST_CASE("fewbit GELU errors reproduce the published 0.1410 / 0.0406 / 0.0119 / 0.0031 within 2 %") {
  const double published[] = {0.1410, 0.0406, 0.0119, 0.0031};
  for (unsigned bits = 1; bits <= 4; ++bits) {
    const Quantizer q = solve(Activation::gelu, bits, {.range = 10.0, .grid = 2000});
    INFO("bits " << bits << ": computed " << q.error << ", published " << published[bits - 1]);
    CHECK(std::abs(q.error - published[bits - 1]) <= 0.02 * published[bits - 1]);
  }
}

TEST_CASE("fewbit DP equals brute force over all borders on a coarse grid") {
  for (Activation a : {Activation::gelu, Activation::silu, Activation::sigmoid, Activation::mish, Activation::selu}) {
    const SolverOptions options{.range = 6.0, .grid = 24};
    for (unsigned bits : {1u, 2u, 3u}) {
      INFO(spec(a).name << " bits " << bits);
      CHECK(solve(a, bits, options).error == Approx(solve_exhaustive(a, bits, options)).epsilon(1e-12).margin(1e-15));
    }
  }
  CHECK_THROWS_AS(solve_exhaustive(Activation::gelu, 4, {.range = 10.0, .grid = 1000}), ecosim::Error);
}

TEST_CASE("fewbit levels are the interval means (f(b) − f(a))/(b − a) and the error is their L2 distance") {
  for (Activation a : smooth_activations()) {
    const double range = 10.0;
    const Quantizer q = solve(a, 3, {.range = range, .grid = 1000});
    const bool even = spec(a).even_derivative;
    std::vector<double> edges{even ? 0.0 : -range};
    edges.insert(edges.end(), q.borders.begin(), q.borders.end());
    edges.push_back(range);
    REQUIRE(q.levels.size() == edges.size() - 1);
    // Independent recomputation with fine midpoint quadrature of f′ (not the solver's grid or formula).
    double error = 0;
    for (std::size_t k = 0; k + 1 < edges.size(); ++k) {
      const double lo = edges[k], hi = edges[k + 1];
      CHECK(q.levels[k] == Approx((evaluate(a, hi) - evaluate(a, lo)) / (hi - lo)).epsilon(1e-12));
      const int steps = 20000;
      double integral = 0;
      for (int s = 0; s < steps; ++s) {
        const double x = lo + (hi - lo) * (s + 0.5) / steps;
        integral += evaluate_derivative(a, x);
        const double d = evaluate_derivative(a, x) - q.levels[k];
        error += d * d * (hi - lo) / steps;
      }
      CHECK(q.levels[k] == Approx(integral / steps).epsilon(1e-6).margin(1e-9));
    }
    INFO(spec(a).name);
    CHECK(q.error == Approx(error * (even ? 2.0 : 1.0)).epsilon(1e-5));
  }
}

TEST_CASE("fewbit on a coarse grid: the reported error is still the L2 distance (wide cells integrated in pieces)") {
  for (Activation a : smooth_activations()) {
    const double range = 10.0;
    const Quantizer q = solve(a, 2, {.range = range, .grid = 8});  // cells of 2.5
    const bool even = spec(a).even_derivative;
    std::vector<double> edges{even ? 0.0 : -range};
    edges.insert(edges.end(), q.borders.begin(), q.borders.end());
    edges.push_back(range);
    double error = 0;  // fine midpoint quadrature, independent of the solver's
    for (std::size_t k = 0; k + 1 < edges.size(); ++k) {
      const int steps = 200000;
      for (int s = 0; s < steps; ++s) {
        const double lo = edges[k], hi = edges[k + 1], x = lo + (hi - lo) * (s + 0.5) / steps;
        const double d = evaluate_derivative(a, x) - q.levels[k];
        error += d * d * (hi - lo) / steps;
      }
    }
    INFO(spec(a).name);
    CHECK(q.error == Approx(error * (even ? 2.0 : 1.0)).epsilon(1e-6));
  }
}

TEST_CASE("fewbit error never rises with more bits and borders are ascending inside the range") {
  for (Activation a : smooth_activations()) {
    double previous = std::numeric_limits<double>::infinity();
    for (unsigned bits = 1; bits <= 4; ++bits) {
      const Quantizer q = solve(a, bits, {.range = 10.0, .grid = 600});
      INFO(spec(a).name << " bits " << bits);
      CHECK(q.error <= previous);
      CHECK(q.error >= 0);
      CHECK(q.borders.size() == (std::size_t{1} << bits) - 1);
      for (std::size_t k = 0; k < q.borders.size(); ++k) {
        CHECK(std::abs(q.borders[k]) < 10.0);
        if (k > 0) CHECK(q.borders[k] > q.borders[k - 1]);
      }
      previous = q.error;
    }
  }
}

TEST_CASE("fewbit 1-bit ReLU and LeakyReLU are exact: border 0, levels = the two slopes") {
  for (auto [a, low] : {std::pair{Activation::relu, 0.0}, std::pair{Activation::leaky_relu, 0.01}}) {
    const Quantizer q = solve(a, 1, {.range = 10.0, .grid = 101});  // odd grid: rounded up so 0 is a point
    REQUIRE(q.borders.size() == 1);
    CHECK(q.borders[0] == 0.0);
    CHECK(q.levels[0] == Approx(low).margin(1e-15));
    CHECK(q.levels[1] == Approx(1.0));
    CHECK(q.error < 1e-12);
    CHECK_THROWS_AS(solve(a, 2), ecosim::Error);
  }
}

TEST_CASE("fewbit even derivatives are flagged exactly for the functions whose f′ is even") {
  for (const ActivationSpec& s : activations()) {
    double asymmetry = 0;
    for (double x = 0.05; x < 8; x += 0.1)
      asymmetry =
          std::max(asymmetry, std::abs(evaluate_derivative(s.activation, x) - evaluate_derivative(s.activation, -x)));
    INFO(s.name << " max |f'(x) - f'(-x)| = " << asymmetry);
    CHECK(s.even_derivative == (asymmetry < 1e-12));
  }
  // The |x| quantiser's reported error is the full-range ∫_{−R}^{R} (f′(x) − q(|x|))², by quadrature.
  for (Activation a : {Activation::sigmoid, Activation::tanh}) {
    const Quantizer q = solve(a, 2, {.range = 10.0, .grid = 1000});
    const auto level = [&](double x) {
      std::size_t c = 0;
      while (c < q.borders.size() && q.borders[c] <= std::abs(x)) ++c;
      return q.levels[c];
    };
    const int steps = 400000;
    double error = 0;
    for (int s = 0; s < steps; ++s) {
      const double x = -10.0 + 20.0 * (s + 0.5) / steps;
      const double d = evaluate_derivative(a, x) - level(x);
      error += d * d * 20.0 / steps;
    }
    INFO(spec(a).name);
    CHECK(q.error == Approx(error).epsilon(1e-4));
  }
}

TEST_CASE("fewbit f′ formulas agree with central differences of f") {
  for (const ActivationSpec& s : activations())
    for (double x = -7.95; x < 8; x += 0.5) {
      const double h = 1e-5;
      const double numeric = (evaluate(s.activation, x + h) - evaluate(s.activation, x - h)) / (2 * h);
      INFO(s.name << " at x = " << x);
      CHECK(evaluate_derivative(s.activation, x) == Approx(numeric).epsilon(1e-6).margin(1e-8));
    }
}

TEST_CASE("fewbit solver and activation lookup refuse bad input") {
  CHECK_THROWS_AS(solve(Activation::gelu, 0), ecosim::Error);
  CHECK_THROWS_AS(solve(Activation::gelu, 5), ecosim::Error);
  CHECK_THROWS_AS(solve(Activation::gelu, 1, {.range = 0.0, .grid = 100}), ecosim::Error);
  CHECK_THROWS_AS(solve(Activation::gelu, 1, {.range = -1.0, .grid = 100}), ecosim::Error);
  CHECK_THROWS_AS(solve(Activation::gelu, 1, {.range = NAN, .grid = 100}), ecosim::Error);
  CHECK_THROWS_AS(solve(Activation::gelu, 1, {.range = 10.0, .grid = 0}), ecosim::Error);
  CHECK_THROWS_AS(solve(Activation::gelu, 4, {.range = 10.0, .grid = 8}), ecosim::Error);  // < 16 cells
  CHECK(activation("swish").activation == Activation::silu);
  CHECK_THROWS_WITH(activation("relu6"), Catch::Contains("gelu") && Catch::Contains("leaky_relu"));
}
