// Mapping of each trace operation class onto the accelerator's units (array, vector unit, DMA) as tiles.
#include "ecosim/accel_model/op_plan.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

#include "ecosim/accel_model/conv_tiling.hpp"
#include "ecosim/accel_model/memory_model.hpp"
#include "ecosim/accel_model/pipeline.hpp"
#include "ecosim/accel_model/replay.hpp"
#include "ecosim/accel_model/tiling.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/primitives.hpp"
#include "indexed_tile_run.hpp"
#include "loop_nest.hpp"

namespace ecosim::accel {

std::string_view name(Unit u) {
  constexpr std::array<std::string_view, 3> names = {"array", "vector", "dma"};
  return names[static_cast<std::size_t>(u)];
}

std::uint64_t OpPlan::tile_count() const {
  std::uint64_t count = 0;
  for (const auto& run : runs) count = checked_add(count, run->tile_count());
  return count;
}

bool PlanCursor::next(TileWork& tile) {
  for (;;) {
    if (cursor_ && cursor_->next(tile)) return true;
    if (run_ == plan_->runs.size()) return false;
    cursor_ = plan_->runs[run_++]->cursor();
  }
}

RepeatAhead PlanCursor::repeat_ahead(std::uint64_t max_period) const {
  return cursor_ ? cursor_->repeat_ahead(max_period) : RepeatAhead{};
}

void PlanCursor::skip(std::uint64_t period, std::uint64_t periods) {
  if (!cursor_) throw std::logic_error("PlanCursor::skip before the first tile");
  cursor_->skip(period, periods);
}

void TileCursor::skip(std::uint64_t, std::uint64_t) {
  throw std::logic_error("TileCursor::skip: this cursor reports no repetition ahead");
}

bool alike(const TileWork& a, const TileWork& b) {
  TileWork placed = b;
  placed.run = a.run;
  placed.index = a.index;
  return placed == a;
}

std::uint64_t dram_bits(const OpPlan& plan) {
  std::uint64_t bits = 0;
  for (const auto& run : plan.runs)
    run->visit_classes([&](const TileWork*, const TileWork& at, const TileWork*, std::uint64_t count) {
      bits = checked_add(bits, checked_mul(checked_add(at.load_total_bits(), at.store_bits), count));
    });
  return bits;
}

unsigned operand_bits(DType t, const AccelConfig& config) {
  return is_float(t) ? static_cast<unsigned>(config.float_operand_bits) : bits(t);
}

unsigned stored_bits(DType t, trace::FloatStorage storage, const AccelConfig& config) {
  return storage == trace::FloatStorage::recorded ? bits(t) : operand_bits(t, config);
}

std::uint64_t dram_cycles(std::uint64_t bits, const AccelConfig& config) {
  if (config.memory_bound) return config.memory_bound->lower_bound_cycles(bits);
  return bandwidth_latency_cycles(bits, config.dram_bits_per_cycle, config.dram_latency_cycles);
}

std::uint64_t dram_peak_cycles(std::uint64_t bits, const AccelConfig& config) {
  if (config.memory_bound) return config.memory_bound->peak_cycles(bits);
  return bandwidth_latency_cycles(bits, config.dram_bits_per_cycle, 0);
}

VectorWork vector_work(const OpCounts& counts, const AccelConfig& config, const TechTable& tech) {
  OpCounts mapped;
  std::uint64_t lane_cycles = 0;
  for (OpKind k : kAllOpKinds) {
    for (DType t : kAllDTypes) {
      const std::uint64_t n = counts.ops(k, t);
      if (n == 0) continue;
      mapped.add(k, is_float(t) ? config.vector_float_dtype : t, n);
      lane_cycles = checked_add(lane_cycles, checked_mul(n, config.vector_cycles_per_op[std::size_t(k)]));
    }
  }
  return {lane_cycles / config.vector_lanes + (lane_cycles % config.vector_lanes != 0), tech.energy_pj(mapped)};
}

namespace {

std::uint64_t split(std::uint64_t total, std::uint64_t parts, std::uint64_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}
/// The sum of split(total, parts, j) over j < i.
std::uint64_t split_before(std::uint64_t total, std::uint64_t parts, std::uint64_t i) {
  return i * (total / parts) + std::min(i, total % parts);
}

/// Bits the bytes of `counts` (read or written) occupy on the accelerator under the trace's float storage.
std::uint64_t traffic_bits(const OpCounts& counts, bool read, trace::FloatStorage storage, const AccelConfig& config) {
  std::uint64_t total = 0;
  for (DType t : kAllDTypes) {
    const std::uint64_t bytes = read ? counts.read_bytes(t) : counts.written_bytes(t);
    total = checked_add(total, checked_mul(bytes, 8) / bits(t) * stored_bits(t, storage, config));
  }
  return total;
}

/// Streams `read_bits` in and `write_bits` out through the inputs/outputs buffers in `count` tiles, the unit's
/// cycles and energy spread evenly over them.
class StreamRun : public IndexedTileRun {
 public:
  StreamRun(Unit unit, std::uint64_t read_bits, std::uint64_t write_bits, VectorWork work, std::uint64_t count)
      : unit_(unit), read_bits_(read_bits), write_bits_(write_bits), count_(count), work_(work) {}
  std::uint64_t tile_count() const override { return count_; }
  /// What is read and what is written, each as one row of 1-bit elements.
  std::vector<TensorShape> tensors() const override {
    return {{{1, 1, 1, std::max<std::uint64_t>(read_bits_, 1)}, 1},
            {{1, 1, 1, std::max<std::uint64_t>(write_bits_, 1)}, 1}};
  }
  TileBoxes boxes(std::uint64_t i, const TileWork& t) const override {
    TileBoxes b;
    const std::uint64_t read = t.load_bits[std::size_t(Buffer::inputs)];
    if (read)
      b.load[std::size_t(Buffer::inputs)] = {0, {0, 0, 0, split_before(read_bits_, count_, i)}, {1, 1, 1, read}};
    if (t.store_bits) b.store = {1, {0, 0, 0, split_before(write_bits_, count_, i)}, {1, 1, 1, t.store_bits}};
    return b;
  }
  TileWork tile(std::uint64_t i) const override {
    TileWork t;
    t.unit = unit_;
    t.load_bits[std::size_t(Buffer::inputs)] = split(read_bits_, count_, i);
    t.store_bits = split(write_bits_, count_, i);
    t.compute_cycles = split(work_.cycles, count_, i);
    t.vector_pj = work_.pj / double(count_);
    if (unit_ == Unit::vector) {
      t.unit_read_bits[std::size_t(Buffer::inputs)] = t.load_bits[std::size_t(Buffer::inputs)];
      t.unit_write_bits[std::size_t(Buffer::outputs)] = t.store_bits;
    }
    return t;
  }
  /// Tiles take one more bit, cycle or unit of work than the rest while their index is below the remainder
  /// of each split.
  std::optional<std::vector<std::uint64_t>> changes() const override {
    return std::vector<std::uint64_t>{read_bits_ % count_, write_bits_ % count_, work_.cycles % count_};
  }

 private:
  Unit unit_;
  std::uint64_t read_bits_, write_bits_, count_;
  VectorWork work_;
};

/// Most tiles a stream is cut into for overlap (more only where the buffers need them).
inline constexpr std::uint64_t kMaxStreamTiles = 4096;

/// A stream in the tiles that finish it soonest: at least as many as fit half of each buffer; more (doubling)
/// while the DMA's transfers, which overlap the unit's work only across tiles, then hide more of it than their
/// per-transfer latency costs. Ties (tie_window_cycles) go to fewer tiles. So a larger buffer no longer forces a
/// stream into one tile that loads, computes and stores in turn.
std::shared_ptr<StreamRun> stream_run(Unit unit, std::uint64_t read_bits, std::uint64_t write_bits, VectorWork work,
                                      const AccelConfig& config) {
  const std::uint64_t half_in = config.buffer(Buffer::inputs).half_bits();
  const std::uint64_t half_out = config.buffer(Buffer::outputs).half_bits();
  const std::uint64_t fewest =
      std::max({std::uint64_t{1}, ceil_div(read_bits, half_in), ceil_div(write_bits, half_out)});
  const auto cycles = [&](std::uint64_t tiles) {
    return cycles_by_class(StreamRun(unit, read_bits, write_bits, work, tiles), config);
  };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> tried{{fewest, cycles(fewest)}};  // (tiles, cycles)
  const std::uint64_t most = std::max(fewest, std::min({kMaxStreamTiles, std::max(read_bits, write_bits)}));
  for (std::uint64_t n = fewest * 2; unit != Unit::dma && n <= most; n *= 2) tried.emplace_back(n, cycles(n));
  std::uint64_t fastest = tried.front().second;
  for (const auto& [n, c] : tried) fastest = std::min(fastest, c);
  // in order of tile count: the fewest within the tie window (the fastest is one of them)
  const auto chosen =
      std::find_if(tried.begin(), tried.end(), [&](const auto& t) { return t.second <= tie_window_cycles(fastest); });
  return std::make_shared<StreamRun>(unit, read_bits, write_bits, work, chosen->first);
}

/// "array 8×8-bit (pf 1)": the operand precisions and the fusion they run at.
std::string array_precision(unsigned a_bits, unsigned w_bits, const AccelConfig& c) {
  const Fusion f = fusion(a_bits, w_bits, c);
  return fmt::format("array {}×{}-bit (pf {}{})", a_bits, w_bits, f.spatial,
                     f.passes > 1 ? fmt::format(", {} passes", f.passes) : "");
}

std::string plan_gemm(const GemmShape& shape, const AccelConfig& config, TilingMemo* memo, OpPlan& plan) {
  const GemmTiling tiling = memo ? memo->choose(shape) : choose_tiling(shape, config);
  plan.runs.push_back(gemm_tiles(shape, tiling, config));
  return array_precision(shape.a_bits, shape.w_bits, config) + ", " + tiling.describe();
}

/// The fewest keys a causal GEMM's strip holds over `keys` keys under a sliding `window` (0: none): a
/// kMaxCausalStrips-th of them, or the window where narrower (at most kMaxWindowStrips strips).
std::uint64_t least_strip_keys(std::uint64_t keys, std::uint64_t window) {
  const std::uint64_t least = ceil_div(keys, kMaxCausalStrips);
  if (!window || window >= least) return least;
  return std::max(window, ceil_div(keys, kMaxWindowStrips));
}

/// A causal attention's GEMM of `shape` (queries along m, keys along n or k) in strips of keys, as many as
/// least_strip_keys gives, every strip with `tiling`. The queries are the last M of the Nk positions (a
/// prefill, or a decode block over a cache): query row r attends to the keys from r + o − W + 1 (or the first) to
/// r + o, o = Nk − M, W the sliding window (0: none). So the keys [c₀, c₁) are attended by the rows from c₀ − o to
/// c₁ − o + W − 2, and each strip is a GEMM of those rows over its keys; only the tiles on the band's edges compute
/// masked products. The context's sums over the keys run on from strip to strip through partial sums in DRAM:
/// a strip's rows split where their first key (before it: they add onto partial sums) or their last key (after
/// it: they store partial sums, not outputs) leaves the strip, each part a run of its own.
/// Whether a plan costing `a` is taken over one costing `b`: fewer closed-form cycles beyond the tie window, or
/// within it less energy.
bool preferred(const OpRow& a, const OpRow& b) {
  const bool a_slower = a.cycles > tie_window_cycles(b.cycles), b_slower = b.cycles > tie_window_cycles(a.cycles);
  return b_slower || (!a_slower && a.energy.total_pj() < b.energy.total_pj());
}

std::string plan_causal_gemm(const GemmShape& shape, CausalKeys keys, std::uint64_t window, const GemmTiling& tiling,
                             const AccelConfig& config, OpPlan& plan) {
  const bool scores = keys == CausalKeys::along_n;
  const std::uint64_t key_count = scores ? shape.n : shape.k, key_tile = scores ? tiling.tn : tiling.tk;
  const std::uint64_t offset = key_count - shape.m, band = window ? window : key_count;
  // Strips of whole key tiles where they are wide enough, else of whole array rows or columns (keys along n map
  // onto the array's columns, along k onto its rows), so the strips cut no tile the array would fill.
  const std::uint64_t least = least_strip_keys(key_count, window), lanes = scores ? config.cols : config.rows;
  const std::uint64_t step = least >= key_tile ? key_tile : lanes, width = step * ceil_div(least, step);
  // The rows are ordered by their first and by their last key alike: the rows whose last key is below `key` are
  // the first rows_ending_before(key), those whose first key is below it the first rows_starting_before(key).
  auto rows_ending_before = [&](std::uint64_t key) { return key > offset ? std::min(shape.m, key - offset) : 0; };
  auto rows_starting_before = [&](std::uint64_t key) {
    return key > 0 && key + band - 1 > offset ? std::min(shape.m, key + band - 1 - offset) : 0;
  };
  std::uint64_t computed = 0;  // query × key pairs computed, per batch entry
  for (std::uint64_t c0 = 0; c0 < key_count; c0 += width) {
    const std::uint64_t c1 = std::min(key_count, c0 + width);
    const std::uint64_t first_row = rows_ending_before(c0), end_row = rows_starting_before(c1);
    std::vector<std::uint64_t> cuts = {first_row, end_row};
    if (!scores) cuts.insert(cuts.end(), {rows_ending_before(c1), rows_starting_before(c0)});
    std::sort(cuts.begin(), cuts.end());
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      const std::uint64_t r0 = std::max(cuts[i], first_row), r1 = std::min(cuts[i + 1], end_row);
      if (r0 >= r1) continue;
      GemmShape strip = shape;
      strip.m = r1 - r0;
      (scores ? strip.n : strip.k) = c1 - c0;
      strip.continues = !scores && c0 > 0 && r0 < rows_starting_before(c0);  // its rows' first keys lie before c₀
      strip.goes_on = !scores && r0 >= rows_ending_before(c1);               // their last keys lie after the strip
      plan.runs.push_back(gemm_tiles(strip, tiling, config));
      computed = checked_add(computed, checked_mul(strip.m, c1 - c0));
    }
  }
  return fmt::format(
      "{}, {}; causal{}: {} strips of {} keys over the query rows that attend to them ({:.1f} % of "
      "the rectangle)",
      array_precision(shape.a_bits, shape.w_bits, config), tiling.describe(),
      window ? fmt::format(", sliding window {}", window) : "", ceil_div(key_count, width), width,
      100.0 * double(computed) / double(checked_mul(shape.m, key_count)));
}

std::string plan_conv(const OpRecord& op, unsigned a_bits, unsigned w_bits, const AccelConfig& config, TilingMemo* memo,
                      OpPlan& plan) {
  const ConvShape shape = conv_shape(op);
  const ConvTiling tiling =
      memo ? memo->choose_conv(shape, a_bits, w_bits) : choose_conv_tiling(shape, a_bits, w_bits, config);
  plan.runs.push_back(conv_tiles(shape, a_bits, w_bits, tiling, config));
  return array_precision(a_bits, w_bits, config) + ", " + tiling.describe();
}

std::string plan_vector(const OpRecord& op, const AccelConfig& config, const TechTable& tech,
                        trace::FloatStorage storage, OpPlan& plan) {
  const VectorWork work = vector_work(op.counts, config, tech);
  plan.runs.push_back(stream_run(Unit::vector, traffic_bits(op.counts, true, storage, config),
                                 traffic_bits(op.counts, false, storage, config), work, config));
  return fmt::format("vector unit, {} lanes", config.vector_lanes);
}

/// The array's tilings hold float operands at mapping.float_operand_bits in DRAM as in the buffers: a record
/// whose floats are stored at their recorded width cannot be tiled there (traces/README.md, float_storage).
void check_array_storage(const OpRecord& op, trace::FloatStorage storage) {
  if (storage == trace::FloatStorage::recorded && (is_float(op.a_dtype) || is_float(op.b_dtype)))
    throw Error(
        fmt::format("operation '{}': a {} with {} operands in a trace whose floats are stored at their recorded "
                    "width (float_storage 'recorded'): only vector-unit and DMA records replay there",
                    op.name, name(op.kind), name(is_float(op.a_dtype) ? op.a_dtype : op.b_dtype)));
}

}  // namespace

OpPlan plan_causal_strips(const OpRecord& op, const AccelConfig& config, CausalKeys causal_keys, TilingMemo* memo) {
  if (causal_keys == CausalKeys::none) throw std::logic_error("plan_causal_strips of a GEMM without causal keys");
  const GemmShape shape{op.batch, op.m, op.n, op.k, operand_bits(op.a_dtype, config), operand_bits(op.b_dtype, config)};
  const bool scores = causal_keys == CausalKeys::along_n;
  const std::uint64_t window = op.param(ops::kWindowParam);
  const auto choose = [&](const GemmShape& s) { return memo ? memo->choose(s) : choose_tiling(s, config); };
  // The strips' tiling: the rectangle's, or one chosen for a strip's shape (the narrowest strip: the fewest whole
  // array columns or rows, along the keys, holding least_strip_keys of them; over all the query rows, a half, a
  // quarter, an eighth or a sixteenth of them, as the strips' rows shrink along the diagonal): a tiling fitted to
  // the rectangle can leave a strip's buffers half empty. The strips with the fewest closed-form cycles (a tie:
  // less energy) are taken.
  const auto fastest = [&] {
    const std::uint64_t keys = scores ? shape.n : shape.k, lanes = scores ? config.cols : config.rows;
    std::vector<GemmTiling> tilings = {choose(shape)};
    for (std::uint64_t part : {1, 2, 4, 8, 16}) {
      GemmShape strip = shape;
      strip.m = ceil_div(shape.m, part);
      (scores ? strip.n : strip.k) = std::min(keys, lanes * ceil_div(least_strip_keys(keys, window), lanes));
      const GemmTiling t = choose(strip);
      const auto same = [&](const GemmTiling& u) {
        return u.tm == t.tm && u.tn == t.tn && u.tk == t.tk && u.order == t.order;
      };
      if (std::none_of(tilings.begin(), tilings.end(), same)) tilings.push_back(t);
    }
    std::optional<GemmTiling> best;
    std::optional<OpRow> best_row;
    for (const GemmTiling& tiling : tilings) {
      OpPlan plan{op.name, op.kind, "", {}};
      plan_causal_gemm(shape, causal_keys, window, tiling, config, plan);
      const OpRow row = closed_form_row(plan, config);
      if (best_row && !preferred(row, *best_row)) continue;
      best = tiling;
      best_row = row;
    }
    return *best;
  };
  const GemmTiling tiling = memo ? memo->choose_strips(shape, scores, window, fastest) : fastest();
  OpPlan plan{op.name, op.kind, "", {}};
  plan.mapping = plan_causal_gemm(shape, causal_keys, window, tiling, config, plan);
  return plan;
}

OpPlan plan_op(const OpRecord& op, const AccelConfig& config, const TechTable& tech, TilingMemo* memo,
               trace::FloatStorage storage, CausalKeys causal_keys) {
  OpPlan plan{op.name, op.kind, "", {}};
  const unsigned a = operand_bits(op.a_dtype, config), w = operand_bits(op.b_dtype, config);
  const bool on_array = op.kind == OpClass::gemm || op.kind == OpClass::conv ||
                        (op.kind == OpClass::popcount_accumulate && config.binary_codes == BinaryMapping::array);
  if (on_array) check_array_storage(op, storage);
  switch (op.kind) {
    case OpClass::gemm:
      if (causal_keys != CausalKeys::none && (op.m > 1 || op.params.contains(std::string(ops::kWindowParam)))) {
        // (one query without a window, a decode step, attends to every key: a plain GEMM)
        plan = plan_causal_strips(op, config, causal_keys, memo);
        // the whole rectangle, masked, is a schedule too: taken where the strips are slower (the context's strips
        // of keys carry partial sums through DRAM), or tie and cost more energy
        OpPlan whole{op.name, op.kind, "", {}};
        whole.mapping =
            plan_gemm({op.batch, op.m, op.n, op.k, a, w}, config, memo, whole) +
            "; causal: the whole rectangle computed, the masked part discarded (fewer cycles than strips of keys, "
            "or as few and less energy)";
        const OpRow strips_row = closed_form_row(plan, config), whole_row = closed_form_row(whole, config);
        if (preferred(whole_row, strips_row)) plan = std::move(whole);
        break;
      }
      plan.mapping = plan_gemm({op.batch, op.m, op.n, op.k, a, w}, config, memo, plan);
      // a causal GEMM outside a recognised attention group cannot tell its keys' axis
      if (causal_keys == CausalKeys::none && op.params.contains(std::string(ops::kCausalParam)))
        plan.mapping += "; causal: the whole rectangle computed, the masked part discarded";
      break;
    case OpClass::popcount_accumulate:
      plan.mapping =
          config.binary_codes == BinaryMapping::array
              ? "codes as 2-bit operands: " + plan_gemm({op.batch, op.m, op.n, op.k, a, w}, config, memo, plan)
              : "±additions on the " + plan_vector(op, config, tech, storage, plan);
      break;
    case OpClass::eltwise:
    case OpClass::reduce: plan.mapping = plan_vector(op, config, tech, storage, plan); break;
    case OpClass::conv: plan.mapping = plan_conv(op, a, w, config, memo, plan); break;
    case OpClass::memcpy:
      plan.runs.push_back(stream_run(Unit::dma, traffic_bits(op.counts, true, storage, config),
                                     traffic_bits(op.counts, false, storage, config), VectorWork{}, config));
      plan.mapping = "DMA only";
      break;
  }
  return plan;
}

}  // namespace ecosim::accel
