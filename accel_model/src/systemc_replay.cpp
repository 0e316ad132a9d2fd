// The SystemC top level (units wired together through ports and exports), created once per process, and
// replay_systemc(), which runs one replay on it.
#include <cstdlib>
#include <memory>

#include "ecosim/ops_counter/error.hpp"
#include "systemc_controller.hpp"

// libsystemc's own main() calls sc_main; ecosim has its own main and drives the kernel with sc_start(), so
// this is never called. The link option --undefined=sc_main keeps this definition in every binary.
int sc_main(int, char*[]) { return 1; }

namespace ecosim::accel {

namespace {

struct Top : sc::sc_module {
  sc::Job job;
  sc::SramBuffer weights{"weights"}, inputs{"inputs"}, outputs{"outputs"};
  sc::Dma dma{"dma", job};
  sc::ComputeUnit array{"array", Unit::array, job}, vector{"vector_unit", Unit::vector, job};
  sc::Controller controller{"controller", job};

  explicit Top(sc::sc_module_name name) : sc_module(name) {
    for (sc::ComputeUnit* unit : {&array, &vector}) {
      unit->buffers[0].bind(weights.target);
      unit->buffers[1].bind(inputs.target);
      unit->buffers[2].bind(outputs.target);
    }
    dma.buffers[0].bind(weights.target);
    dma.buffers[1].bind(inputs.target);
    dma.buffers[2].bind(outputs.target);
    controller.dma.bind(dma.target);
    controller.array.bind(array.target);
    controller.vector.bind(vector.target);
  }
};

Top& top() {
  static Top* instance = [] {
    setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);  // keep stdout clean for CSV/JSON output
    return new Top("accelerator");                 // lives as long as the SystemC kernel: to the end of the process
  }();
  return *instance;
}

}  // namespace

ReplayResult replay_systemc(PlanSource& plans, const AccelConfig& config, RowSink* rows, TimelineWriter* timeline) {
  Top& t = top();
  EnergyLedger ledger(config);
  t.job = sc::Job{&config, &ledger, timeline, sc::now_cycles(), {0, 0, 0}};
  ReplayResult result = make_result(config, std::string(name(Engine::systemc)));
  const sc::SramBuffer* buffers[kBufferCount] = {&t.weights, &t.inputs, &t.outputs};
  std::array<std::uint64_t, kBufferCount> read_before{}, write_before{};
  for (std::size_t b = 0; b < kBufferCount; ++b)
    read_before[b] = buffers[b]->read_bits(), write_before[b] = buffers[b]->write_bits();
  // One op at a time: each starts when the previous one's last store is done, so the simulation has just
  // starved when the next plan is made (planning and reading records happen outside the SystemC threads).
  OpPlan plan;
  while (plans.next(plan)) {
    if (timeline) timeline->begin_op(plan.name, plan.tile_count());
    OpRow row;
    t.controller.start(plan, row);
    sc_core::sc_start();
    if (!t.controller.finished()) throw Error("the SystemC simulation stopped before the replay finished");
    charge_leakage(row, config);
    if (rows) rows->row(row);
    result.add(row);
  }
  // The buffers' own counters, over this replay (the per-op rows carry the planned bits).
  for (std::size_t b = 0; b < kBufferCount; ++b) {
    result.total.sram_read_bits[b] = buffers[b]->read_bits() - read_before[b];
    result.total.sram_write_bits[b] = buffers[b]->write_bits() - write_before[b];
  }
  return result;
}

}  // namespace ecosim::accel
