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

inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

inline std::vector<TileWork> gemm_tiles(const GemmShape& s, const GemmTiling& g, const AccelConfig& c) {
  const std::uint64_t dims[3] = {s.m, s.n, s.k}, sizes[3] = {g.tm, g.tn, g.tk};
  std::uint64_t trips[3];
  for (int d = 0; d < 3; ++d) trips[d] = ceil_div(dims[d], sizes[d]);
  auto size = [&](int d, std::uint64_t i) { return i + 1 == trips[d] ? dims[d] - i * sizes[d] : sizes[d]; };
  auto index = [](char loop) { return loop == 'm' ? 0 : loop == 'n' ? 1 : 2; };
  const Fusion f = fusion(s.a_bits, s.w_bits);
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
                                          const AccelConfig& config) {
  const std::uint64_t half_in = config.buffer(Buffer::inputs).half_bits();
  const std::uint64_t half_out = config.buffer(Buffer::outputs).half_bits();
  const std::uint64_t count = std::max({std::uint64_t{1}, read_bits / half_in + (read_bits % half_in != 0),
                                        write_bits / half_out + (write_bits % half_out != 0)});
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
/// V when the key tile does; keys outer with several query tiles stores each query tile's partial rows (d + 2
/// accumulators per row) after each key tile but the last and loads them back before the next.
inline std::vector<TileWork> fused_tiles(const AttentionShape& s, const FusedTiling& tiling, VectorWork vector,
                                         const AccelConfig& c) {
  const std::uint64_t tq_full = tiling.tq, tk_full = tiling.tk, a = s.operand_bits, acc = c.accumulator_bits;
  const std::uint64_t q_trips = ceil_div(s.queries, tq_full), k_trips = ceil_div(s.keys, tk_full);
  const bool keys_outer = tiling.order == FusedOrder::keys_outer;
  const Fusion f = fusion(s.operand_bits, s.operand_bits);
  const std::uint64_t kdiv = c.rows * f.spatial;
  const std::uint64_t vector_tiles = s.groups * q_trips * k_trips;
  std::vector<TileWork> tiles;
  std::vector<TileWork> previous;  // the softmax and context tiles waiting for the next triple's scores
  std::uint64_t vector_index = 0;
  for (std::uint64_t g = 0; g < s.groups; ++g) {
    std::uint64_t held_q = ~std::uint64_t{0}, held_k = ~std::uint64_t{0};  // the tiles on chip in this group
    for (std::uint64_t outer = 0; outer < (keys_outer ? k_trips : q_trips); ++outer)
      for (std::uint64_t inner = 0; inner < (keys_outer ? q_trips : k_trips); ++inner, ++vector_index) {
        const std::uint64_t qi = keys_outer ? inner : outer, ki = keys_outer ? outer : inner;
        const std::uint64_t tq = std::min(tq_full, s.queries - qi * tq_full);
        const std::uint64_t tk = std::min(tk_full, s.keys - ki * tk_full);
        const bool new_q = qi != held_q, new_k = ki != held_k, partial = keys_outer && q_trips > 1;
        held_q = qi, held_k = ki;
        TileWork scores;
        scores.compute_cycles = tile_cycles(tq, tk, s.dim, f, c);
        scores.macs = tq * tk * s.dim;
        if (new_q) scores.load_bits[std::size_t(Buffer::inputs)] = tq * s.dim * a;
        if (new_k) scores.load_bits[std::size_t(Buffer::weights)] = tk * s.dim * a;
        if (partial && ki > 0) scores.load_bits[std::size_t(Buffer::outputs)] = tq * (s.dim + 2) * acc;
        scores.unit_read_bits[std::size_t(Buffer::weights)] = tk * s.dim * a;
        scores.unit_read_bits[std::size_t(Buffer::inputs)] = tq * s.dim * a * ceil_div(tk, c.cols);
        scores.unit_write_bits[std::size_t(Buffer::outputs)] = tq * tk * acc * ceil_div(s.dim * f.passes, kdiv);
        scores.unit_read_bits[std::size_t(Buffer::outputs)] = scores.unit_write_bits[std::size_t(Buffer::outputs)];

        TileWork softmax;
        softmax.unit = Unit::vector;
        softmax.compute_cycles = vector.cycles / vector_tiles + (vector_index < vector.cycles % vector_tiles ? 1 : 0);
        softmax.vector_pj = vector.pj / double(vector_tiles);
        softmax.unit_read_bits[std::size_t(Buffer::outputs)] = tq * tk * acc;
        softmax.unit_write_bits[std::size_t(Buffer::inputs)] = tq * tk * a;

        TileWork context;
        context.compute_cycles = tile_cycles(tq, s.dim, tk, f, c);
        context.macs = tq * s.dim * tk;
        if (new_k) context.load_bits[std::size_t(Buffer::weights)] = tk * s.dim * a;
        context.unit_read_bits[std::size_t(Buffer::weights)] = tk * s.dim * a;
        context.unit_read_bits[std::size_t(Buffer::inputs)] = tq * tk * a * ceil_div(s.dim, c.cols);
        context.unit_write_bits[std::size_t(Buffer::outputs)] = tq * s.dim * acc * ceil_div(tk * f.passes, kdiv);
        context.unit_read_bits[std::size_t(Buffer::outputs)] = context.unit_write_bits[std::size_t(Buffer::outputs)];
        if (ki + 1 == k_trips)
          context.store_bits = tq * s.dim * a;
        else if (partial)
          context.store_bits = tq * (s.dim + 2) * acc;
        tiles.push_back(scores);
        if (!previous.empty()) previous[0].beside_previous = true;
        tiles.insert(tiles.end(), previous.begin(), previous.end());
        previous = {softmax, context};
      }
  }
  tiles.insert(tiles.end(), previous.begin(), previous.end());
  return tiles;
}

}  // namespace ecosim::test::eager
