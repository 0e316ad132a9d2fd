// The accelerator's memory, pluggable: models registered by name and chosen by `memory.model` in the
// configuration (accel_model/README.md) — `simple` (bandwidth + latency, dram.bits_per_cycle and
// dram.latency_cycles) and `dram` (banks, row buffers, JEDEC timings of a device in data/dram_devices.json).
// Engines ask a model when an access issued at a cycle completes; the closed form and the tiling searches use
// its lower bounds, so they stay lower bounds of what a model replays.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/accel_model/config.hpp"

namespace ecosim::accel {

/// One DRAM access: `bytes` from byte `address`, a read unless `write`.
struct MemoryAccess {
  std::uint64_t address = 0, bytes = 0;
  bool write = false;
};

class MemoryModel {
 public:
  virtual ~MemoryModel() = default;
  virtual std::string_view name() const = 0;
  /// Issues `access` at accelerator cycle `issue_cycle`; returns the cycle its last byte is transferred. Stateful.
  virtual std::uint64_t complete_cycle(const MemoryAccess& access, std::uint64_t issue_cycle) = 0;
  /// The fewest cycles moving `bits` can take (what the closed form uses: a lower bound of complete_cycle − issue).
  virtual std::uint64_t lower_bound_cycles(std::uint64_t bits) const = 0;
  /// `bits` at peak bandwidth without latency: at most the sum of lower_bound_cycles over any split of `bits`
  /// into transfers (the tiling searches' bound on a whole op's traffic).
  virtual std::uint64_t peak_cycles(std::uint64_t bits) const = 0;
};

/// `latency + ceil(bits / bits_per_cycle)` cycles, none for 0 bits: a `simple` transfer (and dram_cycles()).
inline std::uint64_t bandwidth_latency_cycles(std::uint64_t bits, std::uint64_t bits_per_cycle,
                                              std::uint64_t latency_cycles) {
  if (bits == 0) return 0;
  return latency_cycles + bits / bits_per_cycle + (bits % bits_per_cycle != 0);
}

/// The name of the model whose transfers take `latency + ceil(bits / bits_per_cycle)`, no state.
inline constexpr std::string_view kSimpleMemoryModel = "simple";

/// The registered models' names, in the order listed in errors.
std::span<const std::string_view> memory_model_names();
/// A fresh model (no open rows, idle buses) as `config`'s `memory` object describes it.
std::unique_ptr<MemoryModel> make_memory_model(const AccelConfig& config);

/// The cycle a DMA transfer of `bits` issued at `issue_cycle` completes when it moves `accesses` (its row
/// segments, tensor_layout.hpp), all issued at that cycle and served in order. Under `simple` the transfer
/// takes exactly dram_cycles(bits) — today's `latency + ceil(bits / bits_per_cycle)`, once per transfer —
/// whatever the segments; under any other model, the last segment's completion.
std::uint64_t transfer_complete_cycle(MemoryModel& model, std::span<const MemoryAccess> accesses, std::uint64_t bits,
                                      std::uint64_t issue_cycle);

}  // namespace ecosim::accel
