// Internal: a TileRun whose tile i (and its boxes) follows from i alone (streamed vector/DMA tiles, direct
// convolution, fused attention), walked by one generic cursor.
#pragma once
#include "ecosim/accel_model/op_plan.hpp"

namespace ecosim::accel {

class IndexedTileRun : public TileRun {
 public:
  /// Tile i, 0 ≤ i < tile_count(); its boxes.
  virtual TileWork tile(std::uint64_t i) const = 0;
  virtual TileBoxes boxes(std::uint64_t i, const TileWork& tile) const = 0;
  TileBoxes boxes(const TileWork& tile) const final { return boxes(tile.index[0], tile); }

  std::unique_ptr<TileCursor> cursor() const override {
    class Cursor : public TileCursor {
     public:
      explicit Cursor(const IndexedTileRun& run) : run_(run), count_(run.tile_count()) {}
      bool next(TileWork& tile) override {
        if (i_ == count_) return false;
        tile = run_.tile(i_);
        tile.run = &run_, tile.index = {i_++};
        return true;
      }

     private:
      const IndexedTileRun& run_;
      std::uint64_t count_, i_ = 0;
    };
    return std::make_unique<Cursor>(*this);
  }
};

}  // namespace ecosim::accel
