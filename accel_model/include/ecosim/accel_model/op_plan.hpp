// How one trace operation runs on the accelerator: the unit it uses and its sequence of tiles, each with the
// DRAM traffic, buffer accesses and compute cycles it costs. Tiles are produced on demand, in order, by
// cursors over small descriptions of the mapping (a plan's memory does not grow with its tile count). Both
// the SystemC model and the closed-form model replay these plans; the tiling choice itself is in tiling.hpp.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/ops_counter/energy.hpp"
#include "ecosim/ops_counter/op_record.hpp"
#include "ecosim/traces/trace.hpp"

namespace ecosim::accel {

enum class Unit : std::uint8_t { array, vector, dma };  // dma: data movement only (memcpy)
std::string_view name(Unit u);

/// A tensor an op moves between DRAM and the buffers: row-major [d0][d1][d2][d3] elements of element_bits, each
/// innermost row starting on a byte (tensor_layout.hpp places it in DRAM).
struct TensorShape {
  std::array<std::uint64_t, 4> dims{1, 1, 1, 1};
  unsigned element_bits = 0;
  friend bool operator==(const TensorShape&, const TensorShape&) = default;
};

/// The part of one of its op's tensors a tile loads or stores: [start, start + extent) along each dimension.
struct TensorBox {
  static constexpr std::uint8_t kNone = 0xff;
  std::uint8_t tensor = kNone;  // index into the run's tensors(); kNone: the tile moves nothing there
  std::array<std::uint64_t, 4> start{}, extent{};
  friend bool operator==(const TensorBox&, const TensorBox&) = default;
};

class TileRun;

/// The most loops a tile's run nests (a direct convolution's six).
inline constexpr std::size_t kMaxTileLoops = 6;

struct TileWork {
  Unit unit = Unit::array;
  std::uint64_t compute_cycles = 0;
  std::array<std::uint64_t, kBufferCount> load_bits{};        // DRAM → buffer, before the tile computes
  std::uint64_t store_bits = 0;                               // outputs buffer → DRAM, after it computes
  std::array<std::uint64_t, kBufferCount> unit_read_bits{};   // compute unit reading each buffer
  std::array<std::uint64_t, kBufferCount> unit_write_bits{};  // compute unit writing each buffer
  std::uint64_t macs = 0;                                     // multiply-accumulates done on the array
  double vector_pj = 0;                                       // arithmetic energy on the vector unit
  // Where the tile lies: the run whose cursor produced it and its loop indices there (TileRun::boxes).
  const TileRun* run = nullptr;
  std::array<std::uint64_t, kMaxTileLoops> index{};
  // True when the tile reads nothing the tile just before it writes: it may then compute beside that tile on
  // the other unit (config.overlap_units; pipeline.hpp), e.g. the next QKᵀ beside a softmax.
  bool beside_previous = false;

  std::uint64_t load_total_bits() const { return load_bits[0] + load_bits[1] + load_bits[2]; }
  friend bool operator==(const TileWork&, const TileWork&) = default;
};

/// Where a tile's loads and store lie in its run's tensors (load_bits[b] = load[b]'s elements × their bits).
struct TileBoxes {
  std::array<TensorBox, kBufferCount> load{};
  TensorBox store;
};

/// True when `a` and `b` cost alike and sit alike in the pipeline: equal in everything but their place
/// (TileWork::run and index).
bool alike(const TileWork& a, const TileWork& b);

/// Tiles ahead of a cursor that repeat the last ones it gave: the next `periods` × `period` tiles are the last
/// `period` tiles given, in order, again and again (each alike() the tile `period` places before it).
struct RepeatAhead {
  std::uint64_t period = 0, periods = 0;
  std::uint64_t tiles() const { return period * periods; }
};

/// Produces tiles one at a time, in order.
class TileCursor {
 public:
  virtual ~TileCursor() = default;
  /// Writes the next tile to `tile`; false after the last one.
  virtual bool next(TileWork& tile) = 0;
  /// The longest repetition ahead whose period is at most `max_period` tiles, as the run's structure knows it
  /// (no tile is made); none ({0, 0}) when the cursor cannot tell.
  virtual RepeatAhead repeat_ahead(std::uint64_t max_period) const {
    (void)max_period;
    return {};
  }
  /// Passes over `periods` periods of `period` tiles of the repetition repeat_ahead() reported (at most its
  /// periods) without making them; a cursor that reports none has none to skip (std::logic_error).
  virtual void skip(std::uint64_t period, std::uint64_t periods);
};

/// A class of tiles that cost alike and sit alike in the pipeline: a representative tile `at`, the tiles
/// before and after it in the run (null at the run's first and last tile) and how many tiles it stands for.
/// Every tile it stands for equals `at`, the tile before it stores what `before` stores and the tile after it
/// loads what `after` loads (all a pipeline stage reads of its neighbours).
using TileClassVisitor =
    std::function<void(const TileWork* before, const TileWork& at, const TileWork* after, std::uint64_t count)>;

/// A stretch of a run's tile sequence as nested repetitions: `tiles` in order, then each of `parts` in order,
/// the whole `repeat` times. A run whose tiles repeat in a few patterns is a few hundred TileWork this way,
/// whatever its tile count, and the closed form runs the pipeline recurrence over it without walking every
/// repetition (pipeline.hpp).
struct TileStretch {
  std::vector<TileWork> tiles;
  std::vector<TileStretch> parts;
  std::uint64_t repeat = 1;
};

/// The tiles of one mapping (a GEMM's loop nest, a streamed vector or DMA op, a fused attention), described
/// by its shape and tiling: immutable, so plans share it and any number of cursors walk it.
class TileRun {
 public:
  virtual ~TileRun() = default;
  virtual std::uint64_t tile_count() const = 0;
  /// The tensors its tiles' boxes index (operands, partial sums, outputs), in DRAM.
  virtual std::vector<TensorShape> tensors() const = 0;
  /// Where `tile` (one this run's cursors produced) loads from and stores to.
  virtual TileBoxes boxes(const TileWork& tile) const = 0;
  /// A cursor at the first tile (valid while this run lives).
  virtual std::unique_ptr<TileCursor> cursor() const = 0;
  /// Visits every tile once, by class (TileClassVisitor): a mapping whose tiles repeat visits far fewer
  /// classes than it has tiles, so the closed form costs it without walking it.
  virtual void visit_classes(const TileClassVisitor& visit) const = 0;
  /// True when some tile is TileWork::beside_previous (it may compute beside the tile before it): the class
  /// stages of ClassClock (pipeline.hpp) then do not apply.
  virtual bool has_tiles_beside_previous() const { return false; }
  /// Every tile, in order, as nested repetitions (TileStretch), for a run whose tiles may compute beside the
  /// tile before them (the class stages of ClassClock do not apply, the recurrence does); nullopt for a run
  /// costed by class.
  virtual std::optional<TileStretch> stretches() const { return std::nullopt; }
};

struct OpPlan {
  std::string name;
  OpClass kind = OpClass::gemm;
  std::string mapping;                               // human-readable: precision, tile sizes, loop order, unit
  std::vector<std::shared_ptr<const TileRun>> runs;  // the op's tiles: each run's, one run after another
  std::uint64_t tile_count() const;
};

/// Walks every tile of a plan in order (the plan must outlive the cursor).
class PlanCursor : public TileCursor {
 public:
  explicit PlanCursor(const OpPlan& plan) : plan_(&plan) {}
  bool next(TileWork& tile) override;
  /// Within the run being walked.
  RepeatAhead repeat_ahead(std::uint64_t max_period) const override;
  void skip(std::uint64_t period, std::uint64_t periods) override;

 private:
  const OpPlan* plan_;
  std::size_t run_ = 0;  // the run `cursor_` walks
  std::unique_ptr<TileCursor> cursor_;
};

/// Bits one element of type t occupies on the accelerator: floats run at config.float_operand_bits,
/// integer and binary types at their own width.
unsigned operand_bits(DType t, const AccelConfig& config);

/// Bits one element of type t occupies in DRAM and the buffers under a trace's float storage: `operand` as
/// operand_bits(); `recorded` at its own width (fp32 32 bits), the units converting on chip.
unsigned stored_bits(DType t, trace::FloatStorage storage, const AccelConfig& config);

/// Where the keys of a causal softmax attention's GEMM lie: along n (the scores, queries × keys) or along k (the
/// context, probabilities × values); none for any other GEMM.
enum class CausalKeys : std::uint8_t { none, along_n, along_k };

/// Strips of keys a causal attention GEMM is planned in (at most), each over the query rows that attend to them.
inline constexpr std::uint64_t kMaxCausalStrips = 32;
/// Under a sliding window W narrower than 1/kMaxCausalStrips of the keys, strips of W keys (a strip of w keys is
/// attended by w + W − 1 rows: its pairs are (1 + w/W)× the band's), yet at most this many.
inline constexpr std::uint64_t kMaxWindowStrips = 4096;

class TilingMemo;
/// Plans one operation; throws ecosim::Error when the record cannot run (e.g. an operand wider than 32 bits, or
/// an array op with float operands in a trace whose floats are stored at their recorded width). GEMM tilings
/// come from `memo` (for `config`) when given. A causal attention's GEMM (`causal_keys`, from its group) runs in
/// strips of keys (plan_causal_strips) or, where that is faster (or ties and costs less energy), as its whole
/// rectangle masked — the context's strips carry partial sums through DRAM; any other causal GEMM computes its
/// whole rectangle.
OpPlan plan_op(const OpRecord& op, const AccelConfig& config, const TechTable& tech, TilingMemo* memo = nullptr,
               trace::FloatStorage storage = trace::FloatStorage::operand, CausalKeys causal_keys = CausalKeys::none);

/// A causal attention GEMM (`causal_keys` not none; its operands tileable, as plan_op checks) in strips of keys, each
/// over the query rows that attend to them (the masked tiles above the diagonal skipped): plan_op's alternative to the
/// rectangle.
OpPlan plan_causal_strips(const OpRecord& op, const AccelConfig& config, CausalKeys causal_keys,
                          TilingMemo* memo = nullptr);

/// The bits a plan's tiles move between DRAM and the buffers (summed class by class).
std::uint64_t dram_bits(const OpPlan& plan);

/// An op's arithmetic on the vector unit: float work at the configured vector type.
struct VectorWork {
  std::uint64_t cycles = 0;
  double pj = 0;
};
VectorWork vector_work(const OpCounts& counts, const AccelConfig& config, const TechTable& tech);

/// DRAM cycles of one transfer of `bits` (0 when nothing moves): under `simple`, exactly what it takes
/// (`latency + ceil(bits / bits_per_cycle)`); under another memory model, its lower bound (memory_model.hpp).
std::uint64_t dram_cycles(std::uint64_t bits, const AccelConfig& config);
/// `bits` at the memory's peak bandwidth, no latency: at most the sum of dram_cycles() over any split of `bits`
/// into transfers (the tiling searches' bound on an op's DRAM traffic).
std::uint64_t dram_peak_cycles(std::uint64_t bits, const AccelConfig& config);

}  // namespace ecosim::accel
