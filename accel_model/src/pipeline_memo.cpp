// The timing keys of GEMMs and convolution tilings and the per-thread memos of tilings' timing
// (pipeline_memo.hpp).
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

std::uint64_t mix(std::uint64_t h, const TimingParts& t) {
  for (std::uint64_t word : {t.rows, t.cols, t.accumulator_bits, t.dram_bits_per_cycle, t.dram_latency_cycles,
                             t.pmax_bits << 32 | t.pmin_bits})
    h = mix(h, word);
  return h;
}

}  // namespace

std::optional<TimingParts> timing_parts(const AccelConfig& config) {
  if (config.memory_bound) return std::nullopt;
  return TimingParts{config.rows,
                     config.cols,
                     config.accumulator_bits,
                     config.dram_bits_per_cycle,
                     config.dram_latency_cycles,
                     config.pmax_bits,
                     config.pmin_bits};
}

std::optional<GemmTimingKey> timing_key(const GemmShape& shape, const AccelConfig& config) {
  const std::optional<TimingParts> timing = timing_parts(config);
  if (!timing) return std::nullopt;
  return GemmTimingKey{shape, *timing};
}

std::size_t GemmTimingKeyHash::operator()(const GemmTimingKey& k) const {
  const GemmShape& s = k.shape;
  std::uint64_t h = 0x9e3779b97f4a7c15u;
  for (std::uint64_t word : {s.batch, s.m, s.n, s.k, std::uint64_t(s.a_bits) << 32 | s.w_bits}) h = mix(h, word);
  return std::size_t(mix(h, k.timing));
}

std::size_t ConvTimingKeyHash::operator()(const ConvTimingKey& k) const {
  const ConvShape& s = k.shape;
  std::uint64_t h = 0x9e3779b97f4a7c15u;
  for (std::uint64_t word :
       {s.batch, s.in_channels, s.in_h, s.in_w, s.out_channels, s.kernel_h, s.kernel_w, s.stride, s.padding, s.groups,
        std::uint64_t(k.a_bits) << 32 | k.w_bits, k.th, k.tw, k.tk, k.tc << 1 | std::uint64_t(k.out_channels_outer)})
    h = mix(h, word);
  return std::size_t(mix(h, k.timing));
}

ConvTimingMemo& conv_timing_memo() {
  thread_local ConvTimingMemo memo;
  if (memo.size() > kConvTimingMemoCapacity) memo.clear();
  return memo;
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
