// Internal: the search both tilings (GEMM, direct convolution) choose with — candidates scored by the exact
// tile pipeline in the order of a lower bound on it, stopping once no unscored candidate can tie.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "ecosim/accel_model/tiling.hpp"

namespace ecosim::accel {

/// Between two candidates equally fast (within the tie window), whether a (enumerated a_index-th, its tile
/// `a_tile` elements) is better than b: less energy (relative ties below 1e-9 are rounding); then larger tiles
/// (fewer transfers and per-tile overheads; the public BitFusion simulator's order of enumeration has the same
/// effect); then enumerated first.
inline bool better_tie(double a_energy_pj, std::uint64_t a_tile, std::size_t a_index, double b_energy_pj,
                       std::uint64_t b_tile, std::size_t b_index) {
  const double scale = std::max(a_energy_pj, b_energy_pj);
  if (std::abs(a_energy_pj - b_energy_pj) > 1e-9 * scale) return a_energy_pj < b_energy_pj;
  if (a_tile != b_tile) return a_tile > b_tile;
  return a_index < b_index;
}

/// The index of the best of `count` (> 0) candidates: among those whose pipeline cycles `cycles(i)` (exact,
/// ≥ bound(i), costly) tie with the fastest (tie_window_cycles), the one `better(i, j)` prefers — the least
/// `energy(i)` first (better_tie). Only candidates whose bound lies within the window of a score can tie; they
/// are tried in the order of their energy, and the first that ties, with those within rounding of its energy,
/// decides. Whether a candidate ties is settled by scoring others in the order of their bounds only until the
/// fastest is pinned down well enough: the fastest is at most the least score and at least the least of the
/// scores and of the bounds of the candidates not scored. Typically a handful of candidates are scored.
template <class Bound, class Cycles, class Energy, class Better>
std::size_t fastest_candidate(std::size_t count, const Bound& bound, const Cycles& cycles, const Energy& energy,
                              const Better& better) {
  std::vector<std::optional<std::uint64_t>> scores(count);
  std::uint64_t fastest = ~std::uint64_t{0};  // the least score
  auto score = [&](std::size_t i) {
    if (!scores[i]) fastest = std::min(fastest, *(scores[i] = cycles(i)));
    return *scores[i];
  };
  std::size_t lowest = 0;
  for (std::size_t i = 1; i < count; ++i)
    if (bound(i) < bound(lowest)) lowest = i;
  score(lowest);
  std::vector<std::size_t> by_bound;  // the candidates that can tie, by bound
  for (std::size_t i = 0; i < count; ++i)
    if (bound(i) <= tie_window_cycles(fastest)) by_bound.push_back(i);
  std::stable_sort(by_bound.begin(), by_bound.end(), [&](std::size_t a, std::size_t b) { return bound(a) < bound(b); });
  std::vector<double> energies(count);
  for (std::size_t i : by_bound) energies[i] = energy(i);
  std::vector<std::size_t> by_energy = by_bound;
  std::stable_sort(by_energy.begin(), by_energy.end(),
                   [&](std::size_t a, std::size_t b) { return energies[a] < energies[b]; });
  std::size_t unscored = 0;  // by_bound[unscored] is the unscored candidate of the lowest bound
  auto fastest_at_least = [&] {
    while (unscored < by_bound.size() && scores[by_bound[unscored]]) ++unscored;
    return unscored < by_bound.size() ? std::min(fastest, bound(by_bound[unscored])) : fastest;
  };
  auto ties = [&](std::size_t i) {
    const std::uint64_t c = score(i);
    for (;;) {
      if (c > tie_window_cycles(fastest)) return false;
      if (c <= tie_window_cycles(fastest_at_least())) return true;
      score(by_bound[unscored]);
    }
  };
  std::optional<std::size_t> best;
  for (std::size_t i : by_energy) {
    if (best && energies[i] - energies[*best] > 1e-9 * energies[i]) break;  // better_tie: more energy
    if (ties(i) && (!best || better(i, *best))) best = i;
  }
  return *best;
}

/// Under a stateful memory model, whose transfers take longer than their bits' bound by what the addresses do
/// (bursts, channels, banks), the choice of fastest_candidate (`chosen`, ranked by that bound) refined by walking
/// candidates through the model (`walk(i)`, ≥ `bound(i)` and ≥ `pipeline(i)`; memory_walk.hpp): `chosen` first,
/// then, of those whose bounds can tie with the fastest walked, in the order of `estimate(i)` (a short walk's rate
/// over the whole op), each that can still tie, while the DRAM bits walked (`bits(i)` each) stay within
/// `bit_budget`. Among the walked candidates that tie with the fastest, `better(i, j)` (least `energy(i)` first,
/// better_tie) decides; `chosen` when it alone moves more bits than the budget. As in fastest_candidate,
/// `energy(i)` is asked before `better` compares i (which reads what it returned, kept by the caller).
template <class Bound, class Pipeline, class Bits, class Estimate, class Walk, class Energy, class Better>
std::size_t fastest_walked_candidate(std::size_t count, std::size_t chosen, const Bound& bound,
                                     const Pipeline& pipeline, const Bits& bits, const Estimate& estimate,
                                     const Walk& walk, const Energy& energy, const Better& better,
                                     std::uint64_t bit_budget) {
  if (bits(chosen) > bit_budget) return chosen;
  std::vector<std::optional<std::uint64_t>> walked(count);
  walked[chosen] = walk(chosen);
  std::uint64_t fastest = *walked[chosen], budget = bit_budget - bits(chosen);
  std::vector<std::size_t> order;  // those that can tie with `chosen`, by estimate
  std::vector<double> estimates(count);
  for (std::size_t i = 0; i < count; ++i)
    if (i != chosen && bound(i) <= tie_window_cycles(fastest)) order.push_back(i), estimates[i] = estimate(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return estimates[a] < estimates[b]; });
  for (std::size_t i : order) {
    if (bound(i) > tie_window_cycles(fastest) || bits(i) > budget || pipeline(i) > tie_window_cycles(fastest)) continue;
    budget -= bits(i);
    fastest = std::min(fastest, *(walked[i] = walk(i)));
  }
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < count; ++i) {
    if (!walked[i] || *walked[i] > tie_window_cycles(fastest)) continue;
    energy(i);
    if (!best || better(i, *best)) best = i;
  }
  return *best;
}

}  // namespace ecosim::accel
