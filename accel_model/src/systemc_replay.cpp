// The SystemC top level, built from the configuration for each replay in a SystemC kernel of its own, and
// replay_systemc(), which runs the replay on it.
//
// SystemC elaborates a module hierarchy once per simulation context and allows no new modules after the
// first sc_start(). Each replay therefore makes a fresh sc_simcontext, builds its Top in it, drives it with
// sc_start() op by op and deletes both at the end, so replays in one process (tests, sweeps) are independent
// and start at time 0. Replays run one at a time per process (the current context is a SystemC global).
#include <fmt/format.h>
#include <cstdlib>
#include <exception>
#include <memory>

#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "systemc_controller.hpp"

// libsystemc's own main() calls sc_main; ecosim has its own main and drives the kernel with sc_start(), so
// this is never called. The link option --undefined=sc_main keeps this definition, and with it the engine's
// registration below, in every binary that links ecosim::accel_systemc.
int sc_main(int, char*[]) { return 1; }

namespace {
// Linking this library (ecosim::accel_systemc, which keeps this file by its sc_main) makes the engine available.
[[maybe_unused]] const bool kRegistered =
    (ecosim::accel::register_engine(ecosim::accel::Engine::systemc, &ecosim::accel::replay_systemc), true);
}  // namespace

namespace ecosim::accel {

namespace {

/// A SystemC simulation context for the lifetime of this object (the modules built in it must die first).
class FreshKernel {
 public:
  FreshKernel() {
    setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);  // keep stdout clean for CSV/JSON output
    context_ = new sc_core::sc_simcontext;
    sc_core::sc_curr_simcontext = sc_core::sc_default_global_context = context_;
  }
  ~FreshKernel() {
    delete context_;
    sc_core::sc_curr_simcontext = sc_core::sc_default_global_context = nullptr;
  }
  FreshKernel(const FreshKernel&) = delete;
  FreshKernel& operator=(const FreshKernel&) = delete;

 private:
  sc_core::sc_simcontext* context_;
};

/// The accelerator: controller, DMA and memory, buffers and compute units, connected by TLM-2.0 sockets
/// (controller → DMA → memory, controller → array, controller → vector unit) and buffer ports.
struct Top : sc::sc_module {
  sc::Job job;
  sc::SramBuffer weights{"weights"}, inputs{"inputs"}, outputs{"outputs"};
  sc::MemoryTarget memory;
  sc::Dma dma{"dma", job};
  sc::ComputeUnit array{"array", Unit::array, job}, vector{"vector_unit", Unit::vector, job};
  sc::Controller controller{"controller", job, dma, array, vector};

  Top(sc::sc_module_name name, const AccelConfig& config, EnergyLedger& ledger, TimelineWriter* timeline,
      const ReplayProgress* progress)
      : sc_module(name), job{&config, &ledger, timeline, progress, {}, {0, 0, 0}}, memory("memory", config) {
    for (sc::ComputeUnit* unit : {&array, &vector}) bind_buffers(unit->buffers);
    bind_buffers(dma.buffers);
    dma.memory.bind(memory.socket);
    controller.dma.bind(dma.target);
    controller.array.bind(array.target);
    controller.vector.bind(vector.target);
  }
  void bind_buffers(sc::sc_port<sc::BufferIf> (&ports)[kBufferCount]) {
    ports[0].bind(weights.target);
    ports[1].bind(inputs.target);
    ports[2].bind(outputs.target);
  }
};

}  // namespace

ReplayResult replay_systemc(PlanSource& plans, const AccelConfig& config, RowSink* rows, TimelineWriter* timeline,
                            const ReplayProgress& progress) {
  FreshKernel kernel;
  EnergyLedger ledger(config);
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc::cycles_time(config.quantum_cycles));
  auto top = std::make_unique<Top>("accelerator", config, ledger, timeline, progress ? &progress : nullptr);
  ReplayResult result = make_result(config, std::string(name(Engine::systemc)));
  // One op at a time: each starts when the previous one's last store is done, so the simulation has just
  // starved when the next op starts. The plan after the running one is made first (its first weight tile
  // may be prefetched); an error making it is passed on once the running op has finished.
  OpPlan current, next;
  for (bool more = plans.next(current); more;) {
    std::exception_ptr error;
    bool has_next = false;
    try {
      has_next = plans.next(next);
    } catch (...) {
      error = std::current_exception();
    }
    if (timeline) timeline->begin_op(current.name, current.tile_count());
    OpRow row;
    top->memory.start_op(current, has_next ? &next : nullptr);
    top->controller.start(current, row, has_next ? &next : nullptr);
    sc_core::sc_start();
    if (!top->controller.finished()) throw Error("the SystemC simulation stopped before the replay finished");
    // a cycle is a nanosecond at SystemC's picosecond resolution: time saturates at 2^64 ps (1.8e16 cycles)
    if (double(sc::now_cycles()) >= 0.999999 * double(sc::to_cycles(sc_core::sc_max_time())))
      throw Error(
          fmt::format("op '{}': the replay reaches the SystemC clock's limit ({:.3g} cycles, 2^64 ps), past "
                      "which its cycles would be wrong; replay it with --engine closed-form",
                      current.name, double(sc::to_cycles(sc_core::sc_max_time()))));
    charge_leakage(row, config);
    if (rows) rows->row(row);
    result.add(row);
    ++top->job.done.ops;
    top->job.done.tiles += row.tiles;
    top->job.done.walked_tiles += top->controller.walked();
    if (progress) progress(top->job.done);
    if (error) std::rethrow_exception(error);
    std::swap(current, next);
    more = has_next;
  }
  // The buffers' own counters (the per-op rows carry the planned bits).
  const sc::SramBuffer* buffers[kBufferCount] = {&top->weights, &top->inputs, &top->outputs};
  for (std::size_t b = 0; b < kBufferCount; ++b) {
    result.total.sram_read_bits[b] = buffers[b]->read_bits();
    result.total.sram_write_bits[b] = buffers[b]->write_bits();
  }
  return result;
}

}  // namespace ecosim::accel
