// Helpers of the accelerator tests: synthetic GEMM records, one attention layer's records, plans and replays
// of a record list, a plan's tiles collected into a list, the compute-bound check of a plan and the 45 nm
// energy table.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "ecosim/accel_model/pipeline.hpp"
#include "ecosim/accel_model/replay.hpp"
#include "ecosim/accel_model/tiling.hpp"
#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/sinks.hpp"

namespace ecosim::test {

using namespace ecosim::accel;

inline OpRecord gemm(std::uint64_t batch, std::uint64_t m, std::uint64_t n, std::uint64_t k, DType t) {
  OpRecord op;
  op.name = "gemm";
  op.kind = OpClass::gemm;
  op.batch = batch, op.m = m, op.n = n, op.k = k;
  op.a_dtype = op.b_dtype = t;
  op.counts.add(OpKind::mul, t, batch * m * n * k).add(OpKind::add, t, batch * m * n * k);
  return op;
}

/// One attention layer's exact records without projections (default: the compare workload).
inline std::vector<OpRecord> attention_layer(AttentionVariant v, std::uint64_t batch = 16, std::uint64_t seq = 3136,
                                             std::uint64_t head_dim = 32) {
  AttentionConfig c;
  c.variant = v;
  c.batch = batch, c.heads = 1, c.seq = seq, c.head_dim = head_dim;
  c.projections = false;
  RecordingSink list;
  emit_attention("attention", c, Convention::exact, list);
  return list.records;
}

/// `c` with the pipeline's dynamic effects (unit overlap, weight prefetch) switched off: SystemC then equals
/// the closed form.
inline AccelConfig static_pipeline(AccelConfig c) {
  c.overlap_units = c.prefetch_weights = false;
  return c;
}

/// Dynamic energy (everything but leakage × time), which the pipeline's dynamic effects leave unchanged.
inline double dynamic_pj(const EnergyBreakdown& e) { return e.total_pj() - e.leakage_pj; }

inline const TechTable& tech() {
  static const TechTable t = TechTable::builtin_45nm();
  return t;
}

/// Every plan of a record list (fused groups with config.fuse_attention).
inline std::vector<OpPlan> plan_all(const std::vector<OpRecord>& ops, const AccelConfig& c) {
  RecordList records(ops);
  PlanSource source(records, Convention::exact, "test records", c, tech());
  std::vector<OpPlan> plans;
  for (OpPlan plan; source.next(plan);) plans.push_back(plan);
  return plans;
}

/// Every row a replay hands over, kept in order.
struct RowList : RowSink {
  std::vector<OpRow> rows;
  void row(const OpRow& r) override { rows.push_back(r); }
};

inline ReplayResult replay_sc(const std::vector<OpRecord>& ops, const AccelConfig& c, RowSink* rows = nullptr,
                              TimelineWriter* timeline = nullptr) {
  RecordList records(ops);
  PlanSource plans(records, Convention::exact, "test records", c, tech());
  return replay_systemc(plans, c, rows, timeline);
}

inline ReplayResult replay_cf(const std::vector<OpRecord>& ops, const AccelConfig& c, RowSink* rows = nullptr) {
  RecordList records(ops);
  PlanSource plans(records, Convention::exact, "test records", c, tech());
  return replay_closed_form(plans, c, rows);
}

/// The tiles a cursor generates, kept in a list (test sizes only).
inline std::vector<TileWork> drain(TileCursor& cursor) {
  std::vector<TileWork> tiles;
  for (TileWork t; cursor.next(t);) tiles.push_back(t);
  return tiles;
}
inline std::vector<TileWork> collect(const OpPlan& plan) {
  PlanCursor cursor(plan);
  return drain(cursor);
}
inline std::vector<TileWork> collect(const TileRun& run) { return drain(*run.cursor()); }

/// The built-in configuration, or with a narrow, high-latency DRAM (`slow`) that makes many tiles memory-bound.
inline AccelConfig builtin_or_slow_dram(bool slow) {
  AccelConfig c = builtin_config("bitfusion-45nm");
  if (slow) c.dram_bits_per_cycle = 48, c.dram_latency_cycles = 20;
  return c;
}

/// The power-of-two tile sizes of a dimension (clipped to it), enumerated here independently of the searches.
inline std::vector<std::uint64_t> power_of_two_sizes(std::uint64_t dim) {
  std::vector<std::uint64_t> v;
  for (std::uint64_t t = 1; t < 2 * dim; t *= 2) v.push_back(std::min(t, dim));
  return v;
}

/// The closed form's cycles and dynamic energy of one run's tiles, walked one by one.
inline std::pair<std::uint64_t, double> walk(std::shared_ptr<const TileRun> run, const AccelConfig& c) {
  const OpPlan plan{"walked", OpClass::gemm, "", {std::move(run)}};
  PipelineClock clock(c);
  StaticRow row(plan, c);
  PlanCursor cursor(plan);
  for (TileWork tile; cursor.next(tile);) clock.add(tile), row.add(tile);
  return {clock.cycles(), row.row().energy.total_pj()};
}

/// True when, for every tile, the DMA work overlapping it (store of i−1, load of i+1) fits in its compute.
inline bool compute_bound(const OpPlan& p, const AccelConfig& c) {
  const std::vector<TileWork> tiles = collect(p);
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const std::uint64_t store = i ? dram_cycles(tiles[i - 1].store_bits, c) : 0;
    const std::uint64_t load = i + 1 < tiles.size() ? dram_cycles(tiles[i + 1].load_total_bits(), c) : 0;
    if (tiles[i].compute_cycles < store + load) return false;
  }
  return true;
}

}  // namespace ecosim::test
