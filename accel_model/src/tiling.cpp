// GEMM tiling search (loop orders × power-of-two tiles) in closed form, and the tile sequence of a tiling.
#include "ecosim/accel_model/tiling.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <cmath>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::accel {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

constexpr std::array<std::array<char, 3>, 6> kOrders = {
    {{'m', 'n', 'k'}, {'m', 'k', 'n'}, {'n', 'm', 'k'}, {'n', 'k', 'm'}, {'k', 'm', 'n'}, {'k', 'n', 'm'}}};

struct Loops {
  std::uint64_t trips[3];  // m, n, k
  std::uint64_t tile[3];
  std::uint64_t last[3];  // size of the last (edge) tile
  static std::size_t index(char loop) { return loop == 'm' ? 0 : loop == 'n' ? 1 : 2; }
  std::uint64_t size(std::size_t dim, std::uint64_t i) const { return i + 1 == trips[dim] ? last[dim] : tile[dim]; }
};

Loops make_loops(const GemmShape& s, std::uint64_t tm, std::uint64_t tn, std::uint64_t tk) {
  Loops l{};
  const std::uint64_t dims[3] = {s.m, s.n, s.k}, tiles[3] = {tm, tn, tk};
  for (std::size_t d = 0; d < 3; ++d) {
    l.tile[d] = tiles[d];
    l.trips[d] = ceil_div(dims[d], tiles[d]);
    l.last[d] = dims[d] - (l.trips[d] - 1) * tiles[d];
  }
  return l;
}

/// How many times a tensor depending on loops `deps` is swept: the product of the trips of the loops it does
/// not depend on that sit outside its innermost changing dependency (they force it to be re-fetched).
std::uint64_t sweeps(const Loops& l, std::array<char, 3> order, const char* deps) {
  auto depends = [&](char loop) { return std::string_view(deps).find(loop) != std::string_view::npos; };
  int innermost = -1;
  for (int p = 0; p < 3; ++p)
    if (depends(order[p]) && l.trips[Loops::index(order[p])] > 1) innermost = p;
  std::uint64_t factor = 1;
  for (int p = 0; p < innermost; ++p)
    if (!depends(order[p])) factor *= l.trips[Loops::index(order[p])];
  return factor;
}

std::vector<std::uint64_t> candidate_sizes(std::uint64_t dim) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t t = 1;; t *= 2) {
    sizes.push_back(std::min(t, dim));
    if (t >= dim) break;
  }
  return sizes;
}

/// Fewer cycles; then less energy (relative ties below 1e-9 are rounding); then larger tiles (fewer
/// transfers and per-tile overheads; the public simulator's order of enumeration has the same effect).
bool better(const GemmTiling& a, const GemmTiling& b) {
  if (a.estimated_cycles != b.estimated_cycles) return a.estimated_cycles < b.estimated_cycles;
  const double scale = std::max(a.estimated_energy_pj, b.estimated_energy_pj);
  if (std::abs(a.estimated_energy_pj - b.estimated_energy_pj) > 1e-9 * scale)
    return a.estimated_energy_pj < b.estimated_energy_pj;
  return a.tm * a.tn * a.tk > b.tm * b.tn * b.tk;
}

}  // namespace

Fusion fusion(unsigned a_bits, unsigned w_bits) {
  auto spatial = [](unsigned bits) -> std::uint64_t { return bits >= 8 ? 1 : 8 / std::max(bits, 2u); };
  auto passes = [](unsigned bits) -> std::uint64_t { return bits <= 8 ? 1 : ceil_div(bits, 8); };
  return {spatial(a_bits) * spatial(w_bits), passes(a_bits) * passes(w_bits)};
}

std::uint64_t tile_cycles(std::uint64_t tm, std::uint64_t tn, std::uint64_t tk, Fusion f, const AccelConfig& c) {
  return checked_mul(checked_mul(tm, ceil_div(tn, c.cols)), ceil_div(tk * f.passes, c.rows * f.spatial));
}

std::string GemmTiling::describe() const {
  return fmt::format("tile {}x{}x{} (m×n×k) order {}{}{}", tm, tn, tk, order[0], order[1], order[2]);
}

GemmTiling evaluate_tiling(const GemmShape& s, std::uint64_t tm, std::uint64_t tn, std::uint64_t tk,
                           std::array<char, 3> order, const AccelConfig& c) {
  const Loops l = make_loops(s, tm, tn, tk);
  const Fusion f = fusion(s.a_bits, s.w_bits);
  const std::uint64_t kdiv = c.rows * f.spatial;
  const std::uint64_t col_steps = (l.trips[1] - 1) * ceil_div(tn, c.cols) + ceil_div(l.last[1], c.cols);
  const std::uint64_t k_steps = (l.trips[2] - 1) * ceil_div(tk * f.passes, kdiv) + ceil_div(l.last[2] * f.passes, kdiv);

  GemmTiling t;
  t.tm = tm, t.tn = tn, t.tk = tk, t.order = order;
  t.compute_cycles = checked_mul(s.batch, checked_mul(s.m, checked_mul(col_steps, k_steps)));
  const std::uint64_t a = checked_mul(s.batch * s.m * s.k * s.a_bits, sweeps(l, order, "mk"));
  const std::uint64_t w = checked_mul(s.batch * s.k * s.n * s.w_bits, sweeps(l, order, "nk"));
  const std::uint64_t partial = checked_mul(s.batch * s.m * s.n * c.accumulator_bits, sweeps(l, order, "mn") - 1);
  const std::uint64_t out = s.batch * s.m * s.n * s.out_bits();
  t.dram_bits = checked_add(checked_add(a, w), checked_add(2 * partial, out));

  t.estimated_cycles = std::max(t.compute_cycles, ceil_div(t.dram_bits, c.dram_bits_per_cycle));
  const auto& wb = c.buffer(Buffer::weights);
  const auto& ib = c.buffer(Buffer::inputs);
  const auto& ob = c.buffer(Buffer::outputs);
  const double unit_weight_reads = double(s.batch) * double(l.trips[0]) * double(s.n * s.k * s.w_bits);
  const double unit_input_reads = double(s.batch) * double(s.m * s.k * s.a_bits) * double(col_steps);
  const double unit_output_rw = double(s.batch) * double(s.m * s.n * c.accumulator_bits) * double(k_steps);
  t.estimated_energy_pj = double(t.compute_cycles) * c.array_pj_per_cycle + double(t.dram_bits) * c.dram_pj_per_bit +
                          double(w) * wb.write_pj_per_bit + unit_weight_reads * wb.read_pj_per_bit +
                          double(a) * ib.write_pj_per_bit + unit_input_reads * ib.read_pj_per_bit +
                          double(partial) * ob.write_pj_per_bit + double(partial + out) * ob.read_pj_per_bit +
                          unit_output_rw * (ob.read_pj_per_bit + ob.write_pj_per_bit);
  return t;
}

GemmTiling choose_tiling(const GemmShape& s, const AccelConfig& c) {
  const std::uint64_t half_in = c.buffer(Buffer::inputs).half_bits(), half_w = c.buffer(Buffer::weights).half_bits(),
                      half_out = c.buffer(Buffer::outputs).half_bits();
  std::optional<GemmTiling> best;
  for (std::uint64_t tk : candidate_sizes(s.k)) {
    for (std::uint64_t tn : candidate_sizes(s.n)) {
      if (tk * tn * s.w_bits > half_w) break;
      for (std::uint64_t tm : candidate_sizes(s.m)) {
        if (tm * tk * s.a_bits > half_in || tm * tn * c.accumulator_bits > half_out) break;
        for (const auto& order : kOrders) {
          GemmTiling t = evaluate_tiling(s, tm, tn, tk, order, c);
          if (!best || better(t, *best)) best = t;
        }
      }
    }
  }
  if (!best) throw Error(fmt::format("no GEMM tile of {}-bit operands fits the buffers of '{}'", s.a_bits, c.name));
  return *best;
}

namespace {

/// Walks the loop nest (batch outermost, then the tiling's order) one tile ahead: the output tile that the
/// next tile evicts is stored after the current one.
class GemmCursor : public TileCursor {
 public:
  GemmCursor(const GemmShape& s, const GemmTiling& g, const AccelConfig& c)
      : s_(s),
        c_(c),
        l_(make_loops(s, g.tm, g.tn, g.tk)),
        f_(fusion(s.a_bits, s.w_bits)),
        order_{Loops::index(g.order[0]), Loops::index(g.order[1]), Loops::index(g.order[2])} {
    has_pending_ = generate(pending_);
  }

  bool next(TileWork& tile) override {
    if (!has_pending_) return false;
    TileWork following;
    const bool more = generate(following);
    if (!more) evict_output();
    tile = pending_;
    pending_ = following;
    has_pending_ = more;
    return true;
  }

 private:
  struct Resident {
    std::uint64_t batch = ~0ull, a = ~0ull, b = ~0ull;
  };

  /// The output tile leaves the buffer: stored after the tile before the one that evicts it.
  void evict_output() {
    if (has_pending_) pending_.store_bits += c_last_k_ + 1 == l_.trips[2] ? c_bits_final_ : c_bits_partial_;
  }

  /// The tile at the current loop indices, then steps them; false when the nest is done.
  bool generate(TileWork& t) {
    if (done_) return false;
    const std::uint64_t b = batch_, im = idx_[0], in = idx_[1], ik = idx_[2];
    const std::uint64_t tm = l_.size(0, im), tn = l_.size(1, in), tk = l_.size(2, ik);
    t = TileWork{};
    t.unit = Unit::array;
    t.compute_cycles = tile_cycles(tm, tn, tk, f_, c_);
    t.macs = tm * tn * tk;
    if (a_tile_.batch != b || a_tile_.a != im || a_tile_.b != ik) {
      t.load_bits[std::size_t(Buffer::inputs)] = tm * tk * s_.a_bits;
      a_tile_ = {b, im, ik};
    }
    if (w_tile_.batch != b || w_tile_.a != in || w_tile_.b != ik) {
      t.load_bits[std::size_t(Buffer::weights)] = tk * tn * s_.w_bits;
      w_tile_ = {b, in, ik};
    }
    if (c_tile_.batch != b || c_tile_.a != im || c_tile_.b != in) {
      evict_output();
      if (ik != 0) t.load_bits[std::size_t(Buffer::outputs)] = tm * tn * c_.accumulator_bits;
      c_tile_ = {b, im, in};
      c_bits_final_ = tm * tn * s_.out_bits();
      c_bits_partial_ = tm * tn * c_.accumulator_bits;
    }
    c_last_k_ = ik;
    const std::uint64_t k_steps = ceil_div(tk * f_.passes, c_.rows * f_.spatial);
    t.unit_read_bits[std::size_t(Buffer::weights)] = tk * tn * s_.w_bits;
    t.unit_read_bits[std::size_t(Buffer::inputs)] = tm * tk * s_.a_bits * ceil_div(tn, c_.cols);
    t.unit_read_bits[std::size_t(Buffer::outputs)] = tm * tn * c_.accumulator_bits * k_steps;
    t.unit_write_bits[std::size_t(Buffer::outputs)] = tm * tn * c_.accumulator_bits * k_steps;
    step();
    return true;
  }

  /// Innermost loop first, carrying outwards; past the last batch element the nest is done.
  void step() {
    for (int p = 2; p >= 0; --p) {
      const std::size_t d = order_[p];
      if (++idx_[d] < l_.trips[d]) return;
      idx_[d] = 0;
    }
    done_ = ++batch_ == s_.batch;
  }

  const GemmShape& s_;
  const AccelConfig& c_;
  const Loops l_;
  const Fusion f_;
  const std::size_t order_[3];                    // dimension (m, n, k) of each loop, outermost first
  std::uint64_t batch_ = 0, idx_[3] = {0, 0, 0};  // loop indices by dimension
  bool done_ = false;
  Resident a_tile_, w_tile_, c_tile_;  // the tiles the buffers hold
  std::uint64_t c_bits_final_ = 0, c_bits_partial_ = 0, c_last_k_ = 0;
  TileWork pending_;  // generated, not yet handed out (its store depends on the next tile)
  bool has_pending_ = false;
};

class GemmRun : public TileRun {
 public:
  GemmRun(const GemmShape& s, const GemmTiling& g, const AccelConfig& c) : shape_(s), tiling_(g), config_(c) {}
  std::uint64_t tile_count() const override {
    const Loops l = make_loops(shape_, tiling_.tm, tiling_.tn, tiling_.tk);
    return checked_product({shape_.batch, l.trips[0], l.trips[1], l.trips[2]});
  }
  std::unique_ptr<TileCursor> cursor() const override { return std::make_unique<GemmCursor>(shape_, tiling_, config_); }

 private:
  GemmShape shape_;
  GemmTiling tiling_;
  AccelConfig config_;
};

}  // namespace

std::shared_ptr<const TileRun> gemm_tiles(const GemmShape& s, const GemmTiling& g, const AccelConfig& c) {
  return std::make_shared<GemmRun>(s, g, c);
}

}  // namespace ecosim::accel
