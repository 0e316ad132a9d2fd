// The engine registry as a program sees it. Built twice: linked with ecosim::accel_systemc (accel_model_tests,
// ECOSIM_TEST_SYSTEMC_LINKED=1, as the command line) the SystemC engine is registered as the program loads, is
// the default, parses by name and runs through replay() as replay_systemc() does; without it
// (accel_model_closed_form_only_tests, =0, as the Python module) the closed form is the only engine, the
// default, and asking for SystemC by name or through replay() is an error naming the closed form and the
// command line.
#include <catch2/catch.hpp>
#include <vector>

#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/sinks.hpp"

using namespace ecosim;
using namespace ecosim::accel;

namespace {

constexpr bool kSystemcLinked = ECOSIM_TEST_SYSTEMC_LINKED;

/// One small attention layer's exact records.
std::vector<OpRecord> layer_records() {
  AttentionConfig layer;
  layer.variant = AttentionVariant::ecoformer;
  layer.batch = 1, layer.heads = 1, layer.seq = 64, layer.head_dim = 16;
  RecordingSink list;
  emit_attention("attention", layer, Convention::exact, list);
  return list.records;
}

/// `run(plans, config)` over the layer's plans on the built-in accelerator.
template <class Run>
ReplayResult on_layer(Run run) {
  static const TechTable tech = TechTable::builtin_45nm();
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const std::vector<OpRecord> ops = layer_records();  // RecordList reads the list where it lies
  RecordList records(ops);
  PlanSource plans(records, Convention::exact, "test records", c, tech);
  return run(plans, c);
}

ReplayResult replayed(Engine engine) {
  return on_layer([engine](PlanSource& plans, const AccelConfig& c) { return replay(engine, plans, c); });
}

}  // namespace

TEST_CASE(ECOSIM_TEST_SYSTEMC_LINKED ? "linking ecosim::accel_systemc registers the SystemC engine, the default"
                                     : "without ecosim::accel_systemc the closed form is the only engine") {
  CHECK(engine_available(Engine::systemc) == kSystemcLinked);
  CHECK(engine_available(Engine::closed_form));
  CHECK(default_engine() == (kSystemcLinked ? Engine::systemc : Engine::closed_form));
  CHECK(parse_engine("closed-form") == Engine::closed_form);
  CHECK(replayed(Engine::closed_form).engine == "closed-form");
#if ECOSIM_TEST_SYSTEMC_LINKED
  CHECK(parse_engine("systemc") == Engine::systemc);
  const ReplayResult through_registry = replayed(Engine::systemc);
  const ReplayResult direct =
      on_layer([](PlanSource& plans, const AccelConfig& c) { return replay_systemc(plans, c); });
  CHECK(through_registry.engine == "systemc");
  CHECK(through_registry.total.cycles == direct.total.cycles);
  CHECK(through_registry.total.energy.total_pj() == direct.total.energy.total_pj());
#else
  // (Catch's && keeps references to its operands: the three matchers are named)
  const auto lacking = Catch::Contains("not linked into this program"), closed_form = Catch::Contains("closed-form"),
             command_line = Catch::Contains("ecosim command line");
  const auto names_the_way_out = lacking && closed_form && command_line;
  CHECK_THROWS_WITH(parse_engine("systemc"), names_the_way_out);
  CHECK_THROWS_WITH(replayed(Engine::systemc), names_the_way_out);
#endif
}
