// Internal: a nest of tiling loops (GEMM, direct convolution) walked tile by tile, and its tiles by class
// (TileRun::visit_classes). A tile of a nest is a function of the loop indices of the tile before it, its own
// and the tile after it; along each loop it depends on its index only through a few distinctions (first, last,
// next-to-last, an edge tile's size, a clipped halo), so each loop's indices fall into a few classes and the
// tiles of one combination of classes are alike: the nest is costed one combination at a time.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "ecosim/accel_model/op_plan.hpp"
#include "ecosim/accel_model/pipeline.hpp"
#include "ecosim/accel_model/result.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::accel {

/// One class of a loop's indices: a representative and how many indices it stands for.
struct IndexClass {
  std::uint64_t index = 0, count = 0;
};
using IndexClasses = std::vector<IndexClass>;

/// Indices first…last of a loop (empty when first > last).
struct IndexRange {
  std::uint64_t first = 1, last = 0;
  bool contains(std::uint64_t i) const { return first <= i && i <= last; }
};

/// The indices of a loop of `trips` whose tiles differ only near its end that stand for one another: all but
/// the first and the last `last_edges` (the last: its edge tile and carry out of it; the next-to-last: the
/// tile after it is the edge tile).
inline IndexRange middle_indices(std::uint64_t trips, std::uint64_t last_edges) {
  return {1, trips > 1 + last_edges ? trips - 1 - last_edges : 0};
}

/// The classes of such a loop: the first index alone, the middle ones (middle_indices) together, each of the
/// last `last_edges` alone.
inline IndexClasses edge_classes(std::uint64_t trips, std::uint64_t last_edges) {
  IndexClasses classes = {{0, 1}};
  const IndexRange middle = middle_indices(trips, last_edges);
  if (middle.last >= middle.first) classes.push_back({middle.first, middle.last - middle.first + 1});
  for (std::uint64_t i = std::max<std::uint64_t>(1, middle.last + 1); i < trips; ++i) classes.push_back({i, 1});
  return classes;
}

/// The classes of a loop of `trips` whose tiles depend on index i through key(i) and, for the tile after,
/// key(i + 1): indices alike in being first or last, in key(i) and in key(i + 1) form one class (O(trips)).
template <class Key>
IndexClasses keyed_classes(std::uint64_t trips, Key key) {
  struct Signature {
    bool first, last;
    decltype(key(0)) at, next;
    bool operator==(const Signature&) const = default;
  };
  std::vector<Signature> signatures;
  IndexClasses classes;
  for (std::uint64_t i = 0; i < trips; ++i) {
    const Signature s{i == 0, i + 1 == trips, key(i), i + 1 < trips ? key(i + 1) : key(i)};
    std::size_t c = 0;
    while (c < signatures.size() && !(signatures[c] == s)) ++c;
    if (c == signatures.size()) {
      signatures.push_back(s);
      classes.push_back({i, 0});
    }
    ++classes[c].count;
  }
  return classes;
}

/// A nest of N loops (identified by their position in Index), walked in `order` (outermost first), the
/// innermost loop stepping fastest.
template <std::size_t N>
class LoopNest {
 public:
  using Index = std::array<std::uint64_t, N>;  // by loop
  LoopNest(const Index& trips, const std::array<std::size_t, N>& order) : trips_(trips), order_(order) {}

  std::uint64_t trips(std::size_t loop) const { return trips_[loop]; }
  const std::array<std::size_t, N>& order() const { return order_; }
  /// The last tile's indices (the first's are all 0).
  Index last() const {
    Index at = trips_;
    for (std::uint64_t& i : at) --i;
    return at;
  }
  std::uint64_t tile_count() const {
    std::uint64_t count = 1;
    for (std::uint64_t t : trips_) count = checked_mul(count, t);
    return count;
  }
  /// Moves to the next tile (innermost loop first, carrying outwards); false past the last.
  bool step(Index& at) const {
    for (std::size_t p = N; p-- > 0;) {
      const std::size_t loop = order_[p];
      if (++at[loop] < trips_[loop]) return true;
      at[loop] = 0;
    }
    return false;
  }
  /// Moves to the tile before; false before the first.
  bool step_back(Index& at) const {
    for (std::size_t p = N; p-- > 0;) {
      const std::size_t loop = order_[p];
      if (at[loop] > 0) {
        --at[loop];
        return true;
      }
      at[loop] = trips_[loop] - 1;
    }
    return false;
  }

  /// Visits the nest's tiles by class: every combination of the loops' `classes`, its representative tile
  /// with the tiles around it, standing for the product of the classes' counts. `tile(before, at, after)`
  /// makes the tile at indices `at` from its neighbours' indices (null: none).
  template <class Tile>
  void visit_classes(const std::array<IndexClasses, N>& classes, const Tile& tile,
                     const TileClassVisitor& visit) const {
    std::array<std::size_t, N> pick{};  // the class chosen along each loop
    for (;;) {
      Index at{};
      std::uint64_t count = 1;
      for (std::size_t l = 0; l < N; ++l) {
        at[l] = classes[l][pick[l]].index;
        count = checked_mul(count, classes[l][pick[l]].count);
      }
      visit_one(at, count, tile, visit);
      std::size_t l = 0;
      while (l < N && ++pick[l] == classes[l].size()) pick[l++] = 0;
      if (l == N) return;
    }
  }

 private:
  template <class Tile>
  void visit_one(const Index& at, std::uint64_t count, const Tile& tile, const TileClassVisitor& visit) const {
    Index before = at, after = at;
    const bool has_before = step_back(before), has_after = step(after);
    Index before2 = before, after2 = after;
    const bool has_before2 = has_before && step_back(before2), has_after2 = has_after && step(after2);
    const TileWork here = tile(has_before ? &before : nullptr, at, has_after ? &after : nullptr);
    TileWork previous, next;
    if (has_before) previous = tile(has_before2 ? &before2 : nullptr, before, &at);
    if (has_after) next = tile(&at, after, has_after2 ? &after2 : nullptr);
    visit(has_before ? &previous : nullptr, here, has_after ? &next : nullptr, count);
  }

  Index trips_;
  std::array<std::size_t, N> order_;
};

/// The pipeline's fill and drain: the first tile's load and the last tile's store, which nothing overlaps (a
/// lower bound on the cycles besides the tiles' computations).
template <class Nest>
std::uint64_t fill_and_drain_cycles(const Nest& nest, const AccelConfig& c) {
  return checked_add(tile_times(nest.tile(nullptr, {}, nullptr), c).load,
                     tile_times(nest.tile(nullptr, nest.nest().last(), nullptr), c).store);
}

/// A tiling's exact pipeline cycles, class by class.
template <class Nest>
std::uint64_t cycles_by_class(const Nest& nest, const AccelConfig& c) {
  ClassClock clock(c);
  nest.visit_classes([&](const TileWork* before, const TileWork& at, const TileWork* after, std::uint64_t count) {
    clock.add(before, at, after, count);
  });
  return clock.cycles();
}

/// A tiling's dynamic energy (array, DRAM, SRAM), class by class.
template <class Nest>
double energy_by_class(const Nest& nest, const AccelConfig& c) {
  EnergyLedger ledger(c);
  nest.visit_classes([&](const TileWork*, const TileWork& at, const TileWork*, std::uint64_t count) {
    charge_tile(at, ledger, count);
  });
  return ledger.total().total_pj();
}

/// Walks a nest tile by tile, holding the indices of the tiles before, at and after the cursor; `tile` as in
/// LoopNest::visit_classes. It knows repetitions ahead from `middles`: by loop, indices whose tiles stand for
/// one another (a loop's middle class; empty for a loop whose classes are not one stretch): a sweep of the loops
/// inside loop L at index i repeats the sweep at i − 1 when both are in L's middle indices.
template <std::size_t N, class Tile>
class NestCursor : public TileCursor {
  static_assert(N <= kMaxTileLoops, "TileWork::index holds the loop indices");

 public:
  /// Tiles of `run`, whose nest is `nest` (both must outlive the cursor).
  NestCursor(const TileRun& run, const LoopNest<N>& nest, Tile tile, const std::array<IndexRange, N>& middles)
      : run_(run), nest_(nest), tile_(std::move(tile)), middles_(middles) {}

  /// The next tile starts a sweep of the loops inside the loop at each order position p up to the innermost
  /// position whose index is not 0; a sweep there of at most `max_period` tiles that repeats the one before.
  RepeatAhead repeat_ahead(std::uint64_t max_period) const override {
    RepeatAhead best;
    std::uint64_t period = 1;
    for (std::size_t p = N; started_ && !done_ && p-- > 0 && period <= max_period;) {
      const std::size_t loop = nest_.order()[p];
      if (const std::uint64_t periods = sweeps_ahead(loop); periods * period > best.tiles()) best = {period, periods};
      if (at_[loop] != 0) break;
      period = checked_mul(period, nest_.trips(loop));
    }
    return best;
  }
  void skip(std::uint64_t period, std::uint64_t periods) override {
    std::uint64_t inner = 1;
    for (std::size_t p = N; started_ && !done_ && p-- > 0;) {
      const std::size_t loop = nest_.order()[p];
      if (inner == period && periods <= sweeps_ahead(loop)) {
        at_[loop] += periods;
        before_ = at_;
        nest_.step_back(before_);
        return;
      }
      if (at_[loop] != 0) break;
      inner = checked_mul(inner, nest_.trips(loop));
    }
    throw std::logic_error("NestCursor::skip: no such repetition ahead");
  }

  bool next(TileWork& tile) override {
    if (done_) return false;
    typename LoopNest<N>::Index after = at_;
    const bool more = nest_.step(after);
    tile = tile_(started_ ? &before_ : nullptr, at_, more ? &after : nullptr);
    tile.run = &run_;  // where it lies: TileRun::boxes reads its loop indices back
    std::copy(at_.begin(), at_.end(), tile.index.begin());
    before_ = at_;
    at_ = after;
    started_ = true;
    done_ = !more;
    return true;
  }

 private:
  /// How many sweeps of the loops inside `loop`, from the next tile's, repeat the sweep before it.
  std::uint64_t sweeps_ahead(std::size_t loop) const {
    const std::uint64_t i = at_[loop];
    const IndexRange& middle = middles_[loop];
    return i > 0 && middle.contains(i - 1) && middle.contains(i) ? std::min(middle.last + 1, nest_.trips(loop) - 1) - i
                                                                 : 0;
  }

  const TileRun& run_;
  const LoopNest<N>& nest_;
  Tile tile_;
  std::array<IndexRange, N> middles_;
  typename LoopNest<N>::Index before_{}, at_{};
  bool started_ = false, done_ = false;
};

}  // namespace ecosim::accel
