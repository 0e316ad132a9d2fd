// Stored version-1 traces (tests/traces/data/v1) replay on both engines, fused and not: MSA and Reformer to
// the same totals as the same layer written today (their records are the same; the v1 name rule gives the
// groups today's writer writes), the EcoFormer family (hash converted to its components) at all. A
// paper-convention trace is refused with the fix named.
#include <catch2/catch.hpp>

#include <filesystem>

#include "accel_test_support.hpp"
#include "ecosim/traces/trace_reader.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {

const std::filesystem::path kV1Dir = ECOSIM_V1_TRACES_DIR;

std::vector<OpRecord> stored(const std::string& file) { return trace::read_file((kV1Dir / file).string()).ops; }

/// `ecosim trace --layer attention --seq N --dim 16` (with projections), as the stored traces were written.
std::vector<OpRecord> layer_today(AttentionVariant v, std::uint64_t seq, std::uint64_t chunk = 64) {
  AttentionConfig c;
  c.variant = v;
  c.seq = seq;
  c.head_dim = 16;
  c.chunk = chunk;
  RecordingSink list;
  emit_attention("attention", c, Convention::exact, list);
  return list.records;
}

}  // namespace

TEST_CASE("stored v1 MSA and Reformer traces replay to the totals of the same layer traced today") {
  struct Case {
    std::string file;
    std::vector<OpRecord> today;
  };
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fuse_attention = GENERATE(false, true);
  INFO("fused attention: " << c.fuse_attention);
  for (const Case& k : {Case{"msa_exact.jsonl", layer_today(AttentionVariant::msa, 64)},
                        Case{"reformer_exact.jsonl", layer_today(AttentionVariant::reformer, 60, 16)}}) {
    INFO(k.file);
    const std::vector<OpRecord> v1 = stored(k.file);
    const ReplayResult cf = replay_cf(v1, c), cf_today = replay_cf(k.today, c);
    const ReplayResult sc = replay_sc(v1, c), sc_today = replay_sc(k.today, c);
    CHECK(cf.total.cycles == cf_today.total.cycles);
    CHECK(cf.total.energy.total_pj() == cf_today.total.energy.total_pj());
    CHECK(sc.total.cycles == sc_today.total.cycles);
    CHECK(sc.total.energy.total_pj() == sc_today.total.energy.total_pj());
    CHECK(plan_all(v1, c).size() == plan_all(k.today, c).size());
    if (c.fuse_attention) CHECK(plan_all(v1, c).size() < v1.size());  // the groups did fuse
  }
}

TEST_CASE("stored v1 traces of every exact layer replay on both engines, hashes included") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fuse_attention = GENERATE(false, true);
  for (const std::string file :
       {"msa_exact.jsonl", "reformer_exact.jsonl", "ecoformer_exact.jsonl", "fp-ecoformer_exact.jsonl",
        "lsh-ecoformer_exact.jsonl", "bi-ecoformer_exact.jsonl", "deit_tiny_attention_exact.jsonl"}) {
    INFO(file << ", fused attention: " << c.fuse_attention);
    trace::TraceReader reader((kV1Dir / file).string());
    PlanSource plans(reader, reader.header().convention, file, c, tech());
    const ReplayResult sc = replay_systemc(plans, c);
    const ReplayResult cf = replay_cf(stored(file), c);
    CHECK(sc.total.macs > 0);
    CHECK(sc.total.macs == cf.total.macs);
    CHECK(sc.total.energy.total_pj() > 0);
    CHECK(cf.total.cycles > 0);
  }
}

TEST_CASE("a paper-convention trace is refused before any planning, naming the fix") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  for (const std::string file : {"msa_paper.jsonl", "ecoformer_paper.jsonl"}) {
    trace::TraceReader reader((kV1Dir / file).string());
    CHECK(reader.header().convention == Convention::paper);
    CHECK_THROWS_WITH(PlanSource(reader, reader.header().convention, file, c, tech()),
                      file +
                          ": replay needs exact-convention counts; this trace is 'paper' (write it with: ecosim "
                          "trace ... --convention exact)");
  }
}
