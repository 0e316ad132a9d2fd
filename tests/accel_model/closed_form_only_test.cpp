// The engine registry in a program that links ecosim::accel_model without ecosim::accel_systemc (as the Python
// module does): the closed form is the only engine and the default, and asking for SystemC, by name or through
// replay(), is an error that names the closed form and the command line.
#include <catch2/catch.hpp>
#include <vector>

#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/sinks.hpp"

using namespace ecosim;
using namespace ecosim::accel;

TEST_CASE("without ecosim::accel_systemc the closed form is the only engine") {
  CHECK_FALSE(engine_available(Engine::systemc));
  CHECK(engine_available(Engine::closed_form));
  CHECK(default_engine() == Engine::closed_form);
  CHECK(parse_engine("closed-form") == Engine::closed_form);
  // (Catch's && keeps references to its operands: the three matchers are named)
  const auto lacking = Catch::Contains("not linked into this program"), closed_form = Catch::Contains("closed-form"),
             command_line = Catch::Contains("ecosim command line");
  const auto names_the_way_out = lacking && closed_form && command_line;
  CHECK_THROWS_WITH(parse_engine("systemc"), names_the_way_out);

  AttentionConfig layer;
  layer.batch = 1, layer.heads = 1, layer.seq = 64, layer.head_dim = 16;
  RecordingSink list;
  emit_attention("attention", layer, Convention::exact, list);
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const TechTable tech = TechTable::builtin_45nm();
  RecordList records(list.records);
  PlanSource plans(records, Convention::exact, "test records", c, tech);
  CHECK_THROWS_WITH(replay(Engine::systemc, plans, c), names_the_way_out);
  RecordList again(list.records);
  PlanSource closed_form_plans(again, Convention::exact, "test records", c, tech);
  const ReplayResult result = replay(Engine::closed_form, closed_form_plans, c);
  CHECK(result.engine == "closed-form");
  CHECK(result.total.cycles > 0);
}
