// The engine registry in a program that links ecosim::accel_systemc (as the command line does): the SystemC
// engine is registered as the program loads, is the default, parses by name and runs through replay().
#include <catch2/catch.hpp>

#include "accel_test_support.hpp"

using namespace ecosim;
using namespace ecosim::test;

TEST_CASE("linking ecosim::accel_systemc registers the SystemC engine, the default") {
  CHECK(engine_available(Engine::systemc));
  CHECK(engine_available(Engine::closed_form));
  CHECK(default_engine() == Engine::systemc);
  CHECK(parse_engine("systemc") == Engine::systemc);
  CHECK(parse_engine("closed-form") == Engine::closed_form);

  const AccelConfig c = builtin_config("bitfusion-45nm");
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::ecoformer, 1, 64, 16);
  RecordList records(ops);
  PlanSource plans(records, Convention::exact, "test records", c, tech());
  const ReplayResult through_registry = replay(Engine::systemc, plans, c);
  const ReplayResult direct = replay_sc(ops, c);
  CHECK(through_registry.engine == "systemc");
  CHECK(through_registry.total.cycles == direct.total.cycles);
  CHECK(through_registry.total.energy.total_pj() == direct.total.energy.total_pj());
}
