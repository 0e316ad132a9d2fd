// Internal: the DRAM as a TLM-2.0 target. Every DMA command (a tile's load of some of its operands, or its
// store) reaches the memory as one b_transport; the target times it with the configured memory model
// (memory_model.hpp: `simple` or `dram`, chosen by the configuration's `memory.model`) through the row
// segments of the tile's tensors (tile_transfers.hpp, addresses from tensor layouts) and adds its cycles to
// the annotated delay.
#pragma once
#include <memory>

#include "ecosim/accel_model/tile_transfers.hpp"
#include "systemc_kernel.hpp"

namespace ecosim::accel::sc {

/// The DMA command a memory transaction carries: the tile and, for a load, which operand parts it moves.
struct DmaTransferExtension : tlm::tlm_extension<DmaTransferExtension> {
  const TileCommand* command = nullptr;
  tlm::tlm_extension_base* clone() const override { return new DmaTransferExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const DmaTransferExtension&>(other);
  }
};

class MemoryTarget : public sc_module {
 public:
  tlm_utils::simple_target_socket<MemoryTarget> socket{"socket"};
  MemoryTarget(sc_module_name name, const AccelConfig& config)
      : sc_module(name), model_(make_memory_model(config)), transfers_(*model_) {
    socket.register_b_transport(this, &MemoryTarget::b_transport);
  }
  /// Places `plan`'s tensors (and `next`'s, whose first weight tile may be prefetched) before `plan` runs.
  void start_op(const OpPlan& plan, const OpPlan* next) { transfers_.start_op(plan, next); }

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_time& delay) {
    DmaTransferExtension* transfer = nullptr;
    payload.get_extension(transfer);
    const TileCommand& c = *transfer->command;
    const std::uint64_t issue = now_cycles() + to_cycles(delay);
    const std::uint64_t done =
        payload.is_write() ? transfers_.store_complete(c.tile, issue) : transfers_.load_complete(c.tile, issue, c.move);
    delay += cycles_time(done - issue);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  std::unique_ptr<MemoryModel> model_;
  TileTransfers transfers_;
};

}  // namespace ecosim::accel::sc
