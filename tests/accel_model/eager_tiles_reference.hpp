// Test oracle: the eager tile lists as ecosim built them before tiles became lazy (GEMM loop nest with
// residency, streamed vector/DMA tiles, fused attention), frozen here so the generators can be checked to
// yield exactly the same sequences.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/fused_attention.hpp"

namespace ecosim::test::eager {

inline std::vector<TileWork> gemm_tiles(const GemmShape& s, const GemmTiling& g, const AccelConfig& c) {
  const std::uint64_t dims[3] = {s.m, s.n, s.k}, sizes[3] = {g.tm, g.tn, g.tk};
  std::uint64_t trips[3];
  for (int d = 0; d < 3; ++d) trips[d] = ceil_div(dims[d], sizes[d]);
  auto size = [&](int d, std::uint64_t i) { return i + 1 == trips[d] ? dims[d] - i * sizes[d] : sizes[d]; };
  auto index = [](char loop) { return loop == 'm' ? 0 : loop == 'n' ? 1 : 2; };
  const Fusion f = fusion(s.a_bits, s.w_bits, c);
  const int p0 = index(g.order[0]), p1 = index(g.order[1]), p2 = index(g.order[2]);
  std::vector<TileWork> tiles;
  struct Resident {
    std::uint64_t batch = ~0ull, a = ~0ull, b = ~0ull;
  };
  Resident a_tile, w_tile, c_tile;
  std::uint64_t c_bits_final = 0, c_bits_partial = 0, c_last_k = 0;
  auto evict_output = [&] {
    if (!tiles.empty()) tiles.back().store_bits += c_last_k + 1 == trips[2] ? c_bits_final : c_bits_partial;
  };
  for (std::uint64_t b = 0; b < s.batch; ++b) {
    std::uint64_t idx[3];
    for (idx[p0] = 0; idx[p0] < trips[p0]; ++idx[p0])
      for (idx[p1] = 0; idx[p1] < trips[p1]; ++idx[p1])
        for (idx[p2] = 0; idx[p2] < trips[p2]; ++idx[p2]) {
          const std::uint64_t im = idx[0], in = idx[1], ik = idx[2];
          const std::uint64_t tm = size(0, im), tn = size(1, in), tk = size(2, ik);
          TileWork t;
          t.unit = Unit::array;
          t.compute_cycles = tile_cycles(tm, tn, tk, f, c);
          t.macs = tm * tn * tk;
          if (a_tile.batch != b || a_tile.a != im || a_tile.b != ik) {
            t.load_bits[std::size_t(Buffer::inputs)] = tm * tk * s.a_bits;
            a_tile = {b, im, ik};
          }
          if (w_tile.batch != b || w_tile.a != in || w_tile.b != ik) {
            t.load_bits[std::size_t(Buffer::weights)] = tk * tn * s.w_bits;
            w_tile = {b, in, ik};
          }
          if (c_tile.batch != b || c_tile.a != im || c_tile.b != in) {
            evict_output();
            if (ik != 0) t.load_bits[std::size_t(Buffer::outputs)] = tm * tn * c.accumulator_bits;
            c_tile = {b, im, in};
            c_bits_final = tm * tn * s.out_bits();
            c_bits_partial = tm * tn * c.accumulator_bits;
          }
          c_last_k = ik;
          const std::uint64_t k_steps = ceil_div(tk * f.passes, c.rows * f.spatial);
          t.unit_read_bits[std::size_t(Buffer::weights)] = tk * tn * s.w_bits;
          t.unit_read_bits[std::size_t(Buffer::inputs)] = tm * tk * s.a_bits * ceil_div(tn, c.cols);
          t.unit_read_bits[std::size_t(Buffer::outputs)] = tm * tn * c.accumulator_bits * k_steps;
          t.unit_write_bits[std::size_t(Buffer::outputs)] = tm * tn * c.accumulator_bits * k_steps;
          tiles.push_back(t);
        }
  }
  evict_output();
  return tiles;
}

inline std::uint64_t split(std::uint64_t total, std::uint64_t parts, std::uint64_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

inline std::vector<TileWork> stream_tiles(Unit unit, std::uint64_t read_bits, std::uint64_t write_bits, VectorWork work,
                                          std::uint64_t count) {
  std::vector<TileWork> tiles;
  for (std::uint64_t i = 0; i < count; ++i) {
    TileWork t;
    t.unit = unit;
    t.load_bits[std::size_t(Buffer::inputs)] = split(read_bits, count, i);
    t.store_bits = split(write_bits, count, i);
    t.compute_cycles = split(work.cycles, count, i);
    t.vector_pj = work.pj / double(count);
    if (unit == Unit::vector) {
      t.unit_read_bits[std::size_t(Buffer::inputs)] = t.load_bits[std::size_t(Buffer::inputs)];
      t.unit_write_bits[std::size_t(Buffer::outputs)] = t.store_bits;
    }
    tiles.push_back(t);
  }
  return tiles;
}

/// The fused group's tiles given its shape, tiling and the vector unit's softmax work: per triple (group, then
/// the order's outer tile, then its inner tile) its scores, then the previous triple's softmax (beside those
/// scores) and context; the last softmax and context at the end. Q is loaded when the query tile changes, K and
/// V when the key tile does; a query tile's output rows are stored after its last key tile, and as partial rows
/// (d + 2 accumulators per row) after another key tile when the next triple uses another query tile, then loaded
/// back before its next key tile. Causal: only the triples with an attended pair (counted pair by pair here), a
/// tile's MACs its attended pairs × d. Grouped-query: the rows stacked position-major, row q at position q / heads.
inline std::vector<TileWork> fused_tiles(const AttentionShape& s, const FusedTiling& tiling, VectorWork vector,
                                         const AccelConfig& c) {
  const std::uint64_t tq_full = tiling.tq, tk_full = tiling.tk, a = s.operand_bits, acc = c.accumulator_bits;
  const std::uint64_t rows = s.queries * s.heads, q_trips = ceil_div(rows, tq_full),
                      k_trips = ceil_div(s.keys, tk_full);
  const bool keys_outer = tiling.order == FusedOrder::keys_outer;
  const Fusion f = fusion(s.operand_bits, s.operand_bits, c);
  const std::uint64_t kdiv = c.rows * f.spatial;
  auto pairs = [&](std::uint64_t qi, std::uint64_t ki) {  // attended (query row, key) pairs of a tile, one by one
    std::uint64_t n = 0;
    for (std::uint64_t q = qi * tq_full; q < std::min(rows, (qi + 1) * tq_full); ++q)
      for (std::uint64_t k = ki * tk_full; k < std::min(s.keys, (ki + 1) * tk_full); ++k)
        n += !s.causal || k < s.keys - s.queries + q / s.heads + 1;  // row q: position q / heads
    return n;
  };
  struct Triple {
    std::uint64_t g, qi, ki, pairs;
  };
  std::vector<Triple> visited;
  std::vector<std::uint64_t> last_ki(q_trips);  // the last key tile each query tile visits
  for (std::uint64_t g = 0; g < s.groups; ++g)
    for (std::uint64_t outer = 0; outer < (keys_outer ? k_trips : q_trips); ++outer)
      for (std::uint64_t inner = 0; inner < (keys_outer ? q_trips : k_trips); ++inner) {
        const std::uint64_t qi = keys_outer ? inner : outer, ki = keys_outer ? outer : inner;
        if (const std::uint64_t n = pairs(qi, ki)) {
          visited.push_back({g, qi, ki, n});
          last_ki[qi] = std::max(last_ki[qi], ki);
        }
      }
  std::vector<TileWork> tiles;
  std::vector<TileWork> previous;  // the softmax and context tiles waiting for the next triple's scores
  for (std::size_t v = 0; v < visited.size(); ++v) {
    const auto [g, qi, ki, n] = visited[v];
    const bool group_start = v == 0 || visited[v - 1].g != g;
    const bool new_q = group_start || visited[v - 1].qi != qi, new_k = group_start || visited[v - 1].ki != ki;
    const bool rows_leave = v + 1 == visited.size() || visited[v + 1].g != g || visited[v + 1].qi != qi;
    const std::uint64_t tq = std::min(tq_full, rows - qi * tq_full);
    const std::uint64_t tk = std::min(tk_full, s.keys - ki * tk_full);
    TileWork scores;
    scores.compute_cycles = tile_cycles(tq, tk, s.dim, f, c);
    scores.macs = n * s.dim;
    if (new_q) scores.load_bits[std::size_t(Buffer::inputs)] = tq * s.dim * a;
    if (new_k) scores.load_bits[std::size_t(Buffer::weights)] = tk * s.dim * a;
    if (new_q && ki > 0) scores.load_bits[std::size_t(Buffer::outputs)] = tq * (s.dim + 2) * acc;
    scores.unit_read_bits[std::size_t(Buffer::weights)] = tk * s.dim * a;
    scores.unit_read_bits[std::size_t(Buffer::inputs)] = tq * s.dim * a * ceil_div(tk, c.cols);
    scores.unit_write_bits[std::size_t(Buffer::outputs)] = tq * tk * acc * ceil_div(s.dim * f.passes, kdiv);
    scores.unit_read_bits[std::size_t(Buffer::outputs)] = scores.unit_write_bits[std::size_t(Buffer::outputs)];

    TileWork softmax;
    softmax.unit = Unit::vector;
    softmax.compute_cycles = vector.cycles / visited.size() + (v < vector.cycles % visited.size() ? 1 : 0);
    softmax.vector_pj = vector.pj / double(visited.size());
    softmax.unit_read_bits[std::size_t(Buffer::outputs)] = tq * tk * acc;
    softmax.unit_write_bits[std::size_t(Buffer::inputs)] = tq * tk * a;

    TileWork context;
    context.compute_cycles = tile_cycles(tq, s.dim, tk, f, c);
    context.macs = n * s.dim;
    if (new_k) context.load_bits[std::size_t(Buffer::weights)] = tk * s.dim * a;
    context.unit_read_bits[std::size_t(Buffer::weights)] = tk * s.dim * a;
    context.unit_read_bits[std::size_t(Buffer::inputs)] = tq * tk * a * ceil_div(s.dim, c.cols);
    context.unit_write_bits[std::size_t(Buffer::outputs)] = tq * s.dim * acc * ceil_div(tk * f.passes, kdiv);
    context.unit_read_bits[std::size_t(Buffer::outputs)] = context.unit_write_bits[std::size_t(Buffer::outputs)];
    if (ki == last_ki[qi])
      context.store_bits = tq * s.dim * a;
    else if (rows_leave)
      context.store_bits = tq * (s.dim + 2) * acc;
    tiles.push_back(scores);
    if (!previous.empty()) previous[0].beside_previous = true;
    tiles.insert(tiles.end(), previous.begin(), previous.end());
    previous = {softmax, context};
  }
  tiles.insert(tiles.end(), previous.begin(), previous.end());
  return tiles;
}

}  // namespace ecosim::test::eager
