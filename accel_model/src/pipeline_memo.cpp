// The per-thread memo of GEMM tilings' pipeline cycles (pipeline_memo.hpp).
#include "pipeline_memo.hpp"

#include <unordered_map>

namespace ecosim::accel {

namespace {

struct KeyHash {
  std::size_t operator()(const PipelineKey& k) const {
    const std::uint64_t words[] = {
        k.shape.batch,
        k.shape.m,
        k.shape.n,
        k.shape.k,
        k.shape.a_bits,
        k.shape.w_bits,
        k.tm,
        k.tn,
        k.tk,
        std::uint64_t(k.order[0]) << 16 | std::uint64_t(k.order[1]) << 8 | std::uint64_t(k.order[2]),
        k.rows,
        k.cols,
        k.accumulator_bits,
        k.dram_bits_per_cycle,
        k.dram_latency_cycles};
    std::uint64_t h = 0x9e3779b97f4a7c15u;
    for (std::uint64_t w : words) h = (h ^ w) * 0x100000001b3u + (h >> 29);
    return std::size_t(h);
  }
};

}  // namespace

std::optional<PipelineKey> pipeline_key(const GemmShape& shape, const GemmTiling& tiling, const AccelConfig& config) {
  if (config.memory_bound) return std::nullopt;
  return PipelineKey{shape,
                     tiling.tm,
                     tiling.tn,
                     tiling.tk,
                     tiling.order,
                     config.rows,
                     config.cols,
                     config.accumulator_bits,
                     config.dram_bits_per_cycle,
                     config.dram_latency_cycles};
}

std::uint64_t remembered_pipeline_cycles(const GemmShape& shape, const GemmTiling& tiling, const AccelConfig& config) {
  const std::optional<PipelineKey> key = pipeline_key(shape, tiling, config);
  if (!key) return pipeline_cycles(shape, tiling, config);
  thread_local std::unordered_map<PipelineKey, std::uint64_t, KeyHash> memo;
  if (const auto found = memo.find(*key); found != memo.end()) return found->second;
  const std::uint64_t cycles = pipeline_cycles(shape, tiling, config);
  if (memo.size() >= kPipelineMemoCapacity) memo.clear();
  memo.emplace(*key, cycles);
  return cycles;
}

}  // namespace ecosim::accel
