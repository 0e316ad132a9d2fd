// Internal: a TileRun whose tile i (and its boxes) follows from i alone (streamed vector/DMA tiles, fused
// attention), walked by one generic cursor and visited by class either tile by tile or,
// where its tiles change at a few indices only (changes()), one class per stretch of alike tiles; its cursor
// then knows the stretch ahead (TileCursor::repeat_ahead).
#pragma once
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

#include "ecosim/accel_model/op_plan.hpp"

namespace ecosim::accel {

class IndexedTileRun : public TileRun {
 public:
  /// Tile i, 0 ≤ i < tile_count(); its boxes.
  virtual TileWork tile(std::uint64_t i) const = 0;
  virtual TileBoxes boxes(std::uint64_t i, const TileWork& tile) const = 0;
  TileBoxes boxes(const TileWork& tile) const final { return boxes(tile.index[0], tile); }
  /// The indices i at which tile i may differ from tile i − 1 (tile i equals tile i − 1 at every other index);
  /// none known: every tile may differ.
  virtual std::optional<std::vector<std::uint64_t>> changes() const { return std::nullopt; }
  /// The repetition ahead of a cursor whose next tile is `next` (TileCursor::repeat_ahead) of a run whose changes()
  /// are not known (with them, the tiles up to the next change repeat the last one given); none by default.
  virtual RepeatAhead repeat_after(std::uint64_t next) const {
    (void)next;
    return {};
  }

  std::unique_ptr<TileCursor> cursor() const override {
    class Cursor : public TileCursor {
     public:
      explicit Cursor(const IndexedTileRun& run) : run_(run), count_(run.tile_count()), changes_(run.changes()) {}
      bool next(TileWork& tile) override {
        if (i_ == count_) return false;
        tile = run_.tile(i_);
        tile.run = &run_, tile.index = {i_++};
        return true;
      }
      RepeatAhead repeat_ahead(std::uint64_t max_period) const override {
        const RepeatAhead ahead = repeat();
        return ahead.period <= max_period ? ahead : RepeatAhead{};
      }
      void skip(std::uint64_t period, std::uint64_t periods) override {
        const RepeatAhead ahead = repeat();
        if (period != ahead.period || periods > ahead.periods) throw std::logic_error("skip: no such repetition ahead");
        i_ += period * periods;
      }

     private:
      /// Up to the next change (known once, when the cursor is made), or as the run says.
      RepeatAhead repeat() const {
        if (!changes_) return run_.repeat_after(i_);
        if (i_ == 0) return {};
        std::uint64_t end = count_;
        for (std::uint64_t c : *changes_)
          if (c >= i_) end = std::min(end, c);
        return {1, end - i_};
      }

      const IndexedTileRun& run_;
      std::uint64_t count_, i_ = 0;
      std::optional<std::vector<std::uint64_t>> changes_;
    };
    return std::make_unique<Cursor>(*this);
  }

  /// Tile by tile, or by the stretches between changes() when known: the stage of tile i depends on tiles
  /// i − 1, i and i + 1, so a change at c sets tiles c − 1, c and c + 1 apart, as are the first tile (nothing
  /// before it), the second and the last (nothing after it); each stretch between is one class.
  void visit_classes(const TileClassVisitor& visit) const final {
    if (const auto known = changes())
      visit_stretches(*known, visit);
    else
      visit_each_tile(visit);
  }

 private:
  void visit_stretches(std::vector<std::uint64_t> changes, const TileClassVisitor& visit) const {
    const std::uint64_t count = tile_count();
    std::vector<std::uint64_t> starts = {0, 1, count - 1, count};
    for (std::uint64_t c : changes)
      for (std::uint64_t s : {c - 1, c, c + 1})
        if (c > 0 && s <= count) starts.push_back(s);
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    for (std::size_t j = 0; j + 1 < starts.size() && starts[j] < count; ++j) {
      const std::uint64_t i = starts[j];
      const TileWork at = tile(i), before = i > 0 ? tile(i - 1) : TileWork{}, after = i + 1 < count ? tile(i + 1) : at;
      visit(i > 0 ? &before : nullptr, at, i + 1 < count ? &after : nullptr, starts[j + 1] - i);
    }
  }
  /// Tile by tile, tiles generated once each.
  void visit_each_tile(const TileClassVisitor& visit) const {
    const std::uint64_t count = tile_count();
    TileWork before, at = tile(0), after;
    for (std::uint64_t i = 0; i < count; ++i) {
      if (i + 1 < count) after = tile(i + 1);
      visit(i > 0 ? &before : nullptr, at, i + 1 < count ? &after : nullptr, 1);
      before = std::move(at);
      at = std::move(after);
    }
  }
};

}  // namespace ecosim::accel
