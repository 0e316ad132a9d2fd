// Reading version 1: the stored v1 traces (tests/traces/data/v1, written by ecosim at commit fb8401d) convert
// with every operation and byte kept, into valid v2 records; a v1 hash becomes the component records today's
// counter emits; v1 softmax attentions get the fusion groups today's writer gives them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/hash_stages.hpp"
#include "ecosim/ops_counter/sinks.hpp"
#include "ecosim/traces/trace.hpp"

using namespace ecosim;

namespace {

const std::filesystem::path kV1Dir = ECOSIM_V1_TRACES_DIR;

std::vector<std::filesystem::path> stored_v1_traces() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kV1Dir))
    if (entry.path().extension() == ".jsonl") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// The operations and bytes of a file's op lines, summed straight from its JSON (not through the reader).
OpCounts raw_totals(const std::filesystem::path& file, std::size_t& op_lines) {
  std::ifstream in(file);
  OpCounts total;
  op_lines = 0;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j["record"] != "op") continue;
    ++op_lines;
    for (const auto& [kind, per_type] : j["ops"].items())
      for (const auto& [t, n] : per_type.items())
        total.add(*parse_op_kind(kind), *parse_dtype(t), n.get<std::uint64_t>());
    for (const auto& [t, n] : j["bytes_read"].items()) total.add_read_bytes(*parse_dtype(t), n.get<std::uint64_t>());
    for (const auto& [t, n] : j["bytes_written"].items())
      total.add_written_bytes(*parse_dtype(t), n.get<std::uint64_t>());
  }
  return total;
}

OpCounts sum(const std::vector<OpRecord>& ops) {
  OpCounts total;
  for (const OpRecord& op : ops) total += op.counts;
  return total;
}

const OpRecord& named(const std::vector<OpRecord>& ops, const std::string& name) {
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const OpRecord& r) { return r.name == name; });
  REQUIRE(it != ops.end());
  return *it;
}

/// The layer the stored traces were written for: `ecosim trace --layer attention --seq 64 --dim 16`.
AttentionConfig stored_layer(AttentionVariant v, std::uint64_t seq = 64) {
  AttentionConfig c;
  c.variant = v;
  c.seq = seq;
  c.head_dim = 16;
  return c;
}

}  // namespace

TEST_CASE("stored v1 traces convert with every operation and byte kept, into valid v2 records") {
  const auto files = stored_v1_traces();
  REQUIRE(files.size() >= 6);
  for (const auto& file : files) {
    INFO(file.filename().string());
    const trace::Trace t = trace::read_file(file.string());
    CHECK(t.header.version == 1);
    std::size_t op_lines = 0;
    CHECK(sum(t.ops) == raw_totals(file, op_lines));
    CHECK(t.ops.size() >= op_lines);
    // Written again (as version 2) and read back: the same records.
    std::string v2 = trace::to_json(t.header).dump() + "\n";
    for (const OpRecord& op : t.ops) v2 += trace::to_json(op).dump() + "\n";
    v2 += nlohmann::json{{"record", "end"}, {"ops", t.ops.size()}}.dump() + "\n";
    const trace::Trace again = trace::parse(v2, "v2.jsonl");
    CHECK(again.header.version == 2);
    CHECK(again.ops == t.ops);
  }
}

TEST_CASE("a v1 hash becomes the component records the counter emits today") {
  for (AttentionVariant v : {AttentionVariant::ecoformer, AttentionVariant::fp_ecoformer,
                             AttentionVariant::lsh_ecoformer, AttentionVariant::bi_ecoformer}) {
    const std::string file = std::string(name(v)) + "_exact.jsonl";
    INFO(file);
    const std::vector<OpRecord> ops = trace::read_file((kV1Dir / file).string()).ops;
    const AttentionConfig c = stored_layer(v);
    const bool kernel = stages::performs(c, stages::HashPart::distances);
    // The GEMM parts have today's shapes and operations; the last record has the rest of them.
    OpCounts rest;
    for (stages::HashPart part : stages::all_hash_parts()) {
      if (!stages::performs(c, part)) continue;
      const OpRecord today = stages::hash_part(c, part).front().exact;
      if (today.kind != OpClass::gemm) {
        rest += today.counts;
        continue;
      }
      const OpRecord& converted = named(ops, "attention." + today.name);
      CHECK(converted.kind == OpClass::gemm);
      CHECK(std::tie(converted.batch, converted.m, converted.n, converted.k) ==
            std::tie(today.batch, today.m, today.n, today.k));
      CHECK(converted.counts.bytes_only() == OpCounts{});
      for (OpKind k : kAllOpKinds) CHECK(converted.counts.ops(k, DType::fp32) == today.counts.ops(k, DType::fp32));
    }
    const OpRecord& last = named(ops, kernel ? "attention.hash_elementwise" : "attention.hash_sign");
    CHECK(last.kind == OpClass::eltwise);
    for (OpKind k : kAllOpKinds) CHECK(last.counts.ops(k, DType::fp32) == rest.ops(k, DType::fp32));
    CHECK(last.k == 1);
    CHECK(last.m == c.seq);
    CHECK(last.n == (kernel ? c.support : c.code_bits()));
  }
}

TEST_CASE("v1 softmax attentions get the fusion groups today's counter gives them") {
  struct Case {
    std::string file;
    AttentionConfig layer;
  };
  AttentionConfig reformer = stored_layer(AttentionVariant::reformer, 60);
  reformer.chunk = 16;  // three chunk shapes: groups attention.chunk_attention.0 to .2
  for (const Case& c :
       {Case{"msa_exact.jsonl", stored_layer(AttentionVariant::msa)},
        Case{"msa_paper.jsonl", stored_layer(AttentionVariant::msa)}, Case{"reformer_exact.jsonl", reformer}}) {
    INFO(c.file);
    const std::vector<OpRecord> ops = trace::read_file((kV1Dir / c.file).string()).ops;
    RecordingSink today;
    emit_attention("attention", c.layer, Convention::exact, today);
    REQUIRE(ops.size() == today.records.size());
    std::size_t grouped = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      INFO(ops[i].name);
      CHECK(ops[i].name == today.records[i].name);
      CHECK(ops[i].group == today.records[i].group);
      grouped += !ops[i].group.empty();
    }
    CHECK(grouped == (c.layer.variant == AttentionVariant::reformer ? 12 : 4));
  }
}

TEST_CASE("v1 name rule: only four consecutive records of one prefix and the right kinds form a group") {
  const std::string header =
      R"({"record":"header","format":"ecosim-trace","version":1,"producer":"t","convention":"exact"})";
  auto op = [](const std::string& name, const std::string& kind) {  // a product's 1·2·2·1 multiplications
    const std::string ops = kind == "gemm" ? R"({"mul":{"fp32":4}})" : "{}";
    return R"({"record":"op","name":")" + name + R"(","kind":")" + kind +
           R"(","batch":1,"m":2,"n":2,"k":1,"a_dtype":"fp32","b_dtype":"fp32","ops":)" + ops +
           R"(,"bytes_read":{},"bytes_written":{}})";
  };
  auto groups = [&](const std::vector<std::string>& lines) {
    std::string text = header + "\n";
    for (const auto& l : lines) text += l + "\n";
    text += R"({"record":"end","ops":)" + std::to_string(lines.size()) + "}\n";
    std::vector<std::string> out;
    for (const OpRecord& r : trace::parse(text, "t.jsonl").ops) out.push_back(r.group);
    return out;
  };
  const std::vector<std::string> attention = {op("b.a.scores", "gemm"), op("b.a.scale", "eltwise"),
                                              op("b.a.softmax", "reduce"), op("b.a.context", "gemm")};
  const std::string g = "b.a.softmax_attention";
  CHECK(groups(attention) == std::vector<std::string>{g, g, g, g});
  // A false start just before: the next scores record still starts the group.
  std::vector<std::string> lines = attention;
  lines.insert(lines.begin(), op("x.scores", "gemm"));
  CHECK(groups(lines) == std::vector<std::string>{"", g, g, g, g});
  lines = attention;
  lines[2] = op("c.softmax", "reduce");  // another prefix
  CHECK(groups(lines) == std::vector<std::string>(4, ""));
  lines = attention;
  lines[1] = op("b.a.scale", "reduce");  // wrong kind
  CHECK(groups(lines) == std::vector<std::string>(4, ""));
  lines = {op("scores", "gemm"), op("scale", "eltwise"), op("softmax", "reduce"), op("context", "gemm")};
  CHECK(groups(lines) == std::vector<std::string>(4, "softmax_attention"));  // no prefix
  lines = attention;
  lines.pop_back();  // truncated at the end of the trace
  CHECK(groups(lines) == std::vector<std::string>(3, ""));
}

TEST_CASE("v1 hash records: conversion rules and hostile values") {
  const std::string header =
      R"({"record":"header","format":"ecosim-trace","version":1,"producer":"t","convention":"paper"})";
  auto trace_of = [&](const std::string& extra, const std::string& func, const std::string& ops) {
    return header + "\n" + R"({"record":"op","name":"h","kind":"hash","func":")" + func +
           R"(","batch":2,"m":10,"n":4,"k":8,"a_dtype":"fp32","b_dtype":"fp32")" + extra + R"(,"ops":)" + ops +
           R"(,"bytes_read":{"fp32":640},"bytes_written":{"binary":10}})" + "\n" + R"({"record":"end","ops":1})" + "\n";
  };
  // Paper counts smaller than the GEMMs' products: each component takes what is left, nothing is lost.
  const auto paper =
      trace::parse(trace_of(R"(,"params":{"support":5})", "ksh", R"({"mul":{"fp32":100},"add":{"fp32":1000}})"),
                   "p.jsonl")
          .ops;
  REQUIRE(paper.size() == 3);
  CHECK(paper[0].name == "h_distances");
  CHECK(paper[0].counts.ops(OpKind::mul, DType::fp32) == 100);   // wanted 2·10·5·8 = 800
  CHECK(paper[0].counts.ops(OpKind::add, DType::fp32) == 1000);  // wanted 2·10·5·15 = 1500
  CHECK(paper[1].name == "h_projection");
  CHECK(paper[1].counts.empty());
  CHECK(paper[1].k == 5);
  CHECK(paper[2].name == "h_elementwise");
  CHECK(paper[2].func == "ksh");
  CHECK(paper[2].counts.ops(OpKind::mul) == 0);
  CHECK(paper[2].counts.read_bytes(DType::fp32) == 640);
  CHECK(paper[2].counts.written_bytes(DType::binary) == 10);
  // lsh: projection of the k features, then signs; sign / bi: signs only.
  const auto lsh =
      trace::parse(trace_of("", "lsh", R"({"mul":{"fp32":640},"add":{"fp32":560},"cmp":{"fp32":80}})"), "l").ops;
  REQUIRE(lsh.size() == 2);
  CHECK(lsh[0].k == 8);
  CHECK(lsh[0].counts.ops(OpKind::mul, DType::fp32) == 640);
  CHECK(lsh[0].counts.ops(OpKind::add, DType::fp32) == 560);
  CHECK(lsh[1].name == "h_sign");
  CHECK(lsh[1].counts.ops(OpKind::cmp, DType::fp32) == 80);
  CHECK(lsh[1].counts.ops(OpKind::mul) == 0);
  const auto sign = trace::parse(trace_of("", "sign", R"({"cmp":{"fp32":80}})"), "s").ops;
  REQUIRE(sign.size() == 1);
  CHECK(sign[0].name == "h_sign");
  CHECK(sign[0].kind == OpClass::eltwise);
  CHECK(sign[0].counts.ops(OpKind::cmp, DType::fp32) == 80);
  CHECK_THROWS_WITH(trace::parse(trace_of("", "bi", "{}"), "t.jsonl"),
                    Catch::Contains("t.jsonl:2: field 'params': the hash's components: func 'bi' is not a version-1 "
                                    "hash function (ksh, klsh, ksh_real, lsh, sign)"));
  CHECK_THROWS_WITH(trace::parse(trace_of("", "klsh", "{}"), "t.jsonl"),
                    Catch::Contains("a kernel hash ('klsh') needs params.support"));
  CHECK_THROWS_WITH(trace::parse(trace_of(R"(,"params":{"support":0})", "ksh", "{}"), "t.jsonl"),
                    Catch::Contains("t.jsonl:2: field 'params.support': must be an integer in 1..2^40"));
  // 2^20 tokens of 2^20 features per group, 2^20 groups: the record fits 64 bits, its distances to 2^20
  // anchors would not.
  std::string huge = trace_of(R"(,"params":{"support":1048576})", "ksh", "{}");
  for (const char* field : {"\"batch\":2", "\"m\":10", "\"k\":8"})
    huge.replace(huge.find(field), std::string(field).size(),
                 std::string(field).substr(0, std::string(field).find(':') + 1) + "1048576");
  CHECK_THROWS_WITH(trace::parse(huge, "t.jsonl"), Catch::Contains("t.jsonl:2: field 'params': the hash's components"));
  CHECK_THROWS_WITH(trace::parse(trace_of(R"(,"group":"g")", "ksh", "{}"), "t.jsonl"),
                    Catch::Contains("t.jsonl:2: field 'group': unknown field"));
}
