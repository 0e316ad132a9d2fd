// The timing key of a GEMM and the per-thread memo of tilings' pipeline cycles (pipeline_memo.hpp).
#include "pipeline_memo.hpp"

#include <unordered_map>

namespace ecosim::accel {

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t word) { return (h ^ word) * 0x100000001b3u + (h >> 29); }

/// A tiling of a GEMM under a timing.
struct PipelineKey {
  GemmTimingKey timing;
  std::uint64_t tm = 0, tn = 0, tk = 0;
  std::array<char, 3> order{};
  friend bool operator==(const PipelineKey&, const PipelineKey&) = default;
};
struct PipelineKeyHash {
  std::size_t operator()(const PipelineKey& k) const {
    const std::uint64_t order = std::uint64_t(k.order[0]) << 16 | std::uint64_t(k.order[1]) << 8 | k.order[2];
    return mix(mix(mix(mix(GemmTimingKeyHash{}(k.timing), k.tm), k.tn), k.tk), order);
  }
};

}  // namespace

std::optional<GemmTimingKey> timing_key(const GemmShape& shape, const AccelConfig& config) {
  if (config.memory_bound) return std::nullopt;
  return GemmTimingKey{
      shape, config.rows, config.cols, config.accumulator_bits, config.dram_bits_per_cycle, config.dram_latency_cycles};
}

std::size_t GemmTimingKeyHash::operator()(const GemmTimingKey& k) const {
  const GemmShape& s = k.shape;
  std::uint64_t h = 0x9e3779b97f4a7c15u;
  for (std::uint64_t word : {s.batch, s.m, s.n, s.k, std::uint64_t(s.a_bits) << 32 | s.w_bits, k.rows, k.cols,
                             k.accumulator_bits, k.dram_bits_per_cycle, k.dram_latency_cycles})
    h = mix(h, word);
  return std::size_t(h);
}

std::uint64_t remembered_pipeline_cycles(const GemmShape& shape, const GemmTiling& tiling, const AccelConfig& config) {
  const std::optional<GemmTimingKey> timing = timing_key(shape, config);
  if (!timing) return pipeline_cycles(shape, tiling, config);
  thread_local std::unordered_map<PipelineKey, std::uint64_t, PipelineKeyHash> memo;
  const PipelineKey key{*timing, tiling.tm, tiling.tn, tiling.tk, tiling.order};
  if (const auto found = memo.find(key); found != memo.end()) return found->second;
  const std::uint64_t cycles = pipeline_cycles(shape, tiling, config);
  if (memo.size() >= kPipelineMemoCapacity) memo.clear();
  memo.emplace(key, cycles);
  return cycles;
}

}  // namespace ecosim::accel
