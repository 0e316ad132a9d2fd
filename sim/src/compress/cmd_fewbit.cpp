// `ecosim fewbit --activation NAME --bits B [--range R] [--grid N] [--format table|json]`: solves the
// Few-Bit Backward quantiser of f′ and prints its borders, levels and squared-L2 error.
#include <fmt/core.h>
#include <fmt/ostream.h>

#include <cmath>
#include <iostream>

#include <nlohmann/json.hpp>

#include "ecosim/kernels/fewbit_solver.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/sim/commands.hpp"
#include "workload.hpp"

namespace ecosim::cli {

namespace fb = kernels::fewbit;

namespace {

/// `grid`: the cells asked for (the solver's, fb::solved_grid_cells, said when they differ).
void print_table(const fb::ActivationSpec& s, const fb::Quantizer& q, std::uint64_t grid) {
  const double lo = s.even_derivative ? 0.0 : -q.range;
  fmt::print(std::cout, "fewbit {}: {} bits, {} intervals of {} on [{:g}, {:g}], grid {} cells{}\n", s.name, q.bits,
             q.levels.size(), s.even_derivative ? "|x| (f' is even)" : "x", lo, q.range, fb::solved_grid_cells(grid),
             grid % 2 ? fmt::format(" ({} asked, rounded up so that 0 is a grid point)", grid) : "");
  fmt::print(std::cout, "{:>8}  {:>12}  {:>12}  {:>14}\n", "interval", "from", "to", "level");
  for (std::size_t k = 0; k < q.levels.size(); ++k) {
    const double from = k == 0 ? lo : q.borders[k - 1], to = k + 1 == q.levels.size() ? q.range : q.borders[k];
    fmt::print(std::cout, "{:>8}  {:>12.6g}  {:>12.6g}  {:>14.8g}\n", k, from, to, q.levels[k]);
  }
  fmt::print(std::cout, "squared L2 error on [{:g}, {:g}]: {:.6g}\n", -q.range, q.range, q.error);
}

}  // namespace

int fewbit(const Args& args) {
  po::options_description options("ecosim fewbit");
  options.add_options()("help,h", "this help")("activation", po::value<std::string>(),
                                               "gelu, silu (swish), sigmoid, tanh, selu, softplus, elu, mish, "
                                               "relu, leaky_relu")(
      "bits", po::value<std::int64_t>(), "code bits, 1..4 (relu and leaky_relu: 1, which is exact)")(
      "range", po::value<double>()->default_value(10.0), "solve on [-range, range]")(
      "grid", po::value<std::int64_t>()->default_value(10000), "grid cells on [-range, range]")(
      "format", po::value<std::string>()->default_value("table"), "table or json");
  po::variables_map vm;
  if (!parse_args(args, options, vm, "ecosim fewbit --activation NAME --bits B [--range R] [--grid N] [--format F]"))
    return 0;
  if (!vm.count("activation")) throw Error("give --activation NAME");
  if (!vm.count("bits")) throw Error("give --bits B (1..4)");
  const fb::ActivationSpec& s = fb::activation(vm["activation"].as<std::string>());
  const std::int64_t bits = vm["bits"].as<std::int64_t>();
  if (bits < 1 || bits > 4) throw Error("--bits must be 1..4, got " + std::to_string(bits));
  const double range = vm["range"].as<double>();
  if (!(range > 0) || range > 1e6) throw Error("--range must be in (0, 1e6]");
  const std::string format = vm["format"].as<std::string>();
  if (format != "table" && format != "json") throw Error("unknown format '" + format + "' (valid: table, json)");
  const std::uint64_t grid = positive(vm, "grid");
  // The derivatives change over x ~ 1: on coarser cells the borders, held to grid points, land far from the optimum
  // (--range 1e4 at 3 bits gave an 11x larger error, --range 1e6 a 1-bit quantiser), as printed as optimal.
  constexpr double kMaxCellWidth = 0.02;
  if (const double cell = 2 * range / double(fb::solved_grid_cells(grid)); cell > kMaxCellWidth) {
    const double needed = std::ceil(2 * range / kMaxCellWidth), widest = kMaxCellWidth * double(fb::kMaxGrid) / 2;
    throw Error(
        fmt::format("--range {} over {} grid cells makes cells {:.4g} wide, coarser than the {} the "
                    "derivatives' scale needs (its borders, held to grid points, would be far from optimal): {}",
                    range, fb::solved_grid_cells(grid), cell, kMaxCellWidth,
                    needed <= double(fb::kMaxGrid)
                        ? fmt::format("give --grid {:.0f} or more, or a smaller --range", needed)
                        : fmt::format("give --range {:g} or less (at --grid {})", widest, fb::kMaxGrid)));
  }

  const fb::Quantizer q = fb::solve(s.activation, static_cast<unsigned>(bits), {.range = range, .grid = grid});
  if (format == "json") {
    const nlohmann::json out = {{"activation", s.name}, {"bits", q.bits},
                                {"range", q.range},     {"grid", fb::solved_grid_cells(grid)},  // the cells solved on
                                {"grid_asked", grid},   {"codes_of_abs_x", s.even_derivative},
                                {"borders", q.borders}, {"levels", q.levels},
                                {"error", q.error}};
    fmt::print(std::cout, "{}\n", out.dump(2));
  } else {
    print_table(s, q, grid);
  }
  return 0;
}

}  // namespace ecosim::cli
