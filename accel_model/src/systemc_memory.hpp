// Internal: the DRAM as a TLM-2.0 target, and where each op's tensors lie in it. Every DMA transfer reaches
// the memory as one b_transport per tensor part (weights, inputs or outputs of one tile) at that tensor's
// address; the target adds the part's cycles to the annotated delay, computed by one function,
// MemoryTarget::access_cycles — the memory-model hook.
#pragma once
#include <array>
#include <cstdint>

#include "systemc_kernel.hpp"

namespace ecosim::accel::sc {

/// One DRAM access: a tensor part of a tile transfer. The parts of one transfer form a burst issued back to
/// back; `burst_offset_bits` counts the bits of the burst before this part.
struct DramAccess {
  std::uint64_t address = 0, bits = 0, burst_offset_bits = 0;
  bool write = false;
};

/// The access's bits and burst offset (the generic payload's length is in bytes; operands may be 2 bits).
struct DramBitsExtension : tlm::tlm_extension<DramBitsExtension> {
  std::uint64_t bits = 0, burst_offset_bits = 0;
  tlm::tlm_extension_base* clone() const override { return new DramBitsExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const DramBitsExtension&>(other);
  }
};

/// Addresses of each op's tensors: op k's weights, inputs and outputs in regions of their own, each part at
/// the tensor's base plus the bytes of that tensor moved before it in the op (fetch order; a tile loaded
/// again gets the next addresses, and output reloads read back what the stores wrote, in order).
class TensorLayout {
 public:
  static constexpr unsigned kRegionBits = 36;  // 64 GiB per tensor region
  void next_op() {
    ++op_;
    cursors_ = {};
  }
  /// The address of the next `bits` of buffer b's tensor (reads and writes of the outputs apart).
  std::uint64_t address(Buffer b, bool write, std::uint64_t bits) {
    std::uint64_t& cursor = cursors_[std::size_t(b) + (write ? kBufferCount : 0)];
    const std::uint64_t region = (op_ * kBufferCount + std::size_t(b)) % (std::uint64_t{1} << (64 - kRegionBits));
    const std::uint64_t address = (region << kRegionBits) | (cursor % (std::uint64_t{1} << kRegionBits));
    cursor += (bits + 7) / 8;
    return address;
  }

 private:
  std::uint64_t op_ = 0;
  std::array<std::uint64_t, 2 * kBufferCount> cursors_{};
};

class MemoryTarget : public sc_module {
 public:
  tlm_utils::simple_target_socket<MemoryTarget> socket{"socket"};
  MemoryTarget(sc_module_name name, const AccelConfig& config) : sc_module(name), config_(config) {
    socket.register_b_transport(this, &MemoryTarget::b_transport);
  }

  /// The memory-model hook: the cycles from `issue_cycle` until `access` has completed. Today's model: a
  /// channel of dram.bits_per_cycle after dram.latency_cycles per burst (dram_cycles of op_plan.hpp), so
  /// the parts of a burst add up to dram_cycles of the whole transfer; address, direction and issue time
  /// do not matter to it.
  std::uint64_t access_cycles(const DramAccess& access, std::uint64_t issue_cycle) {
    static_cast<void>(issue_cycle);
    return dram_cycles(access.burst_offset_bits + access.bits, config_) -
           dram_cycles(access.burst_offset_bits, config_);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_time& delay) {
    DramBitsExtension* bits = nullptr;
    payload.get_extension(bits);
    const DramAccess access{payload.get_address(), bits->bits, bits->burst_offset_bits, payload.is_write()};
    delay += cycles_time(access_cycles(access, now_cycles() + to_cycles(delay)));
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  const AccelConfig& config_;
};

}  // namespace ecosim::accel::sc
