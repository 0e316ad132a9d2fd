// `ecosim sweep`: spec parsing and its errors, pruning by the area constraints and by the accelerator model,
// the built-in spec's size, per-point error rows, CSV rows read back unchanged, identical CSV bytes for
// --jobs 1 and --jobs 2 (sweep.json's axis values as the spec gives them), and --resume after a run cut short.
#include <catch2/catch.hpp>

#include <algorithm>

#include <fmt/core.h>
#include <fstream>
#include <sstream>

#include "../unique_temp_path.hpp"
#include "ecosim/accel_model/config.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/variant_registry.hpp"
#include "ecosim_child.hpp"
#include "sweep/sweep_report.hpp"
#include "sweep/sweep_runner.hpp"
#include "sweep/sweep_spec.hpp"

namespace fs = std::filesystem;
using namespace ecosim;
using namespace ecosim::cli;

namespace {

constexpr std::uint64_t kAddressSpaceBytes = std::uint64_t{4} << 30;
constexpr unsigned kSeconds = 300;

/// Two variants on a small layer over 2 × 3 array shapes; ecoformer's 25 anchors exceed N = 16 tokens, so
/// its points of that layer are error rows.
constexpr const char* kSmallSpec = R"({
  "axes": {"array.rows": [8, 16], "array.cols": [8, 16, 32]},
  "workloads": [{"layer": {"seq": [16, 64], "dim": 16}}],
  "variants": [{"name": "msa"}, {"name": "ecoformer", "bits": [8, 16]}]
})";

SweepSpec spec_with(const std::string& text) { return parse_sweep_spec(text, "test.json"); }

std::string error_of(const std::string& text) {
  try {
    spec_with(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Folder {
  explicit Folder(const std::string& stem) : path(unique_temp_path("ecosim_sweep_" + stem, "")) {
    fs::remove_all(path);
    fs::create_directories(path);
    std::ofstream(path / "spec.json") << kSmallSpec;
  }
  ~Folder() { fs::remove_all(path); }
  fs::path path;
};

}  // namespace

TEST_CASE("sweep spec: points are workloads x variants x configurations, the last axis fastest", "[sweep]") {
  const SweepSpec spec = spec_with(kSmallSpec);
  CHECK(spec.configurations() == 6);
  CHECK(spec.workloads.size() == 2);
  CHECK(spec.variants.size() == 3);  // msa, ecoformer bits=8, ecoformer bits=16
  CHECK(spec.points() == 36);
  CHECK(spec.variants[2].given == "bits=16");
  CHECK(spec.variants[2].parameters.bits == 16);
  REQUIRE(spec.axes.size() == 2);
  CHECK(spec.axes[0].key == "array.cols");  // sorted by key
  CHECK(spec.axis_values(0) == std::vector<std::string>{"8", "8"});
  CHECK(spec.axis_values(1) == std::vector<std::string>{"8", "16"});
  CHECK(spec.axis_values(5) == std::vector<std::string>{"32", "16"});
  CHECK(spec.overrides(5) == nlohmann::json::parse(R"({"array": {"cols": 32, "rows": 16}})"));
}

TEST_CASE("sweep spec: the built-in default spans at least 100 points", "[sweep]") {
  const SweepSpec spec = default_sweep_spec();
  CHECK(spec.points() >= 100);
  CHECK(spec.engine == accel::Engine::closed_form);
}

TEST_CASE("sweep spec: bad specs are errors naming the problem", "[sweep]") {
  const std::string tail = R"(, "workloads": [{"layer": {"seq": 16}}], "variants": [{"name": "msa"}]})";
  CHECK_THAT(error_of(R"({"axes": {"array.rowz": [8]})" + tail), Catch::Contains("array.rowz"));
  CHECK_THAT(error_of(R"({"axes": {"array.rows": []})" + tail), Catch::Contains("empty"));
  CHECK_THAT(error_of(R"({"axes": {"array.rows": [0]})" + tail), Catch::Contains("array.rows"));
  // an object axis setting a key a dotted axis sweeps: one would overwrite the other's value, labelled with both
  CHECK_THAT(error_of(R"({"axes": {"array": [{"rows": 8}], "array.rows": [32]})" + tail),
             Catch::Contains("axis 'array' sets 'array.rows', which axis 'array.rows' sweeps"));
  // other keys of the same object combine (merged, nothing overwritten)
  CHECK(error_of(R"({"axes": {"array": [{"cols": 40}], "array.rows": [16, 24]})" + tail).empty());
  CHECK_THAT(error_of(R"({"constraints": {"min_area_mm2": 5, "max_area_mm2": 1})" + tail),
             Catch::Contains("contradictory"));
  // a spec names a built-in configuration only (it has no --accel-config to point to)
  CHECK(error_of(R"({"accelerator": "tpu")" + tail) ==
        "test.json: unknown accelerator 'tpu' (built in: bitfusion-45nm)");
  CHECK_THAT(error_of(R"({"colour": 1)" + tail), Catch::Contains("colour"));
  CHECK_THAT(error_of(R"({"engine": "fast")" + tail), Catch::Contains("engine"));
  CHECK_THAT(error_of(R"({"workloads": [{"model": "resnet"}], "variants": [{"name": "msa"}]})"),
             Catch::Contains("resnet"));
  CHECK_THAT(error_of(R"({"workloads": [{"layer": {"seq": 16}}], "variants": [{"name": "msa", "bits": 8}]})"),
             Catch::Contains("bits"));
  CHECK_THAT(error_of(R"({"workloads": [{"layer": {"seq": 16}}], "variants": [{"name": "ecoformer", "bits": 65}]})"),
             Catch::Contains("bits"));
  CHECK_THAT(error_of(R"({"workloads": [], "variants": [{"name": "msa"}]})"), Catch::Contains("workloads"));
  // a zoo model's windows are its own: a variant's window there would be ignored
  CHECK_THAT(error_of(R"({"workloads": [{"model": "swin_tiny"}], "variants": [{"name": "lsa", "window": [7, 12]}]})"),
             Catch::Contains("variants[0]: window does not apply to a zoo model's workload"));
  // A misspelled key is refused with its dotted path and the key it misspells, at every level of the spec.
  CHECK(error_of(R"({"constraint": {"max_area_mm2": 1})" + tail) ==
        "test.json: constraint: unknown key (did you mean 'constraints'?)");
  CHECK(error_of(R"({"workload": [{"layer": {"seq": 16}}], "variants": [{"name": "msa"}]})") ==
        "test.json: workload: unknown key (did you mean 'workloads'?)");
  CHECK(error_of(R"({"workloads": [{"layer": {"seq": 16}}, {"layer": {"seq": 16, "head": 2}}],
                     "variants": [{"name": "msa"}]})") ==
        "test.json: workloads[1].layer.head: unknown key (did you mean 'heads'?)");
  CHECK(error_of(R"({"workloads": [{"model": "pvt_v2_b0", "bach": 2}], "variants": [{"name": "msa"}]})") ==
        "test.json: workloads[0].bach: unknown key (did you mean 'batch'?)");
  CHECK(error_of(R"({"constraints": {"max_area": 1})" + tail) ==
        "test.json: constraints.max_area: unknown key (known: max_area_mm2, min_area_mm2)");
  CHECK(error_of(R"({"workloads": [{"layer": {"seq": 16}}], "variants": [{"name": "ecoformer", "bit": 8}]})") ==
        "test.json: variants[0].bit: variant 'ecoformer' reads no such parameter (did you mean 'bits'?)");
  CHECK_THAT(error_of(R"({"axes": {"array.rowz": [8]})" + tail),
             Catch::Contains("array.rowz: unknown key (did you mean 'rows'?)"));
  // a line break in a string would split its row of sweep.csv (--resume and MPI read the rows back as lines)
  CHECK_THAT(error_of(R"({"axes": {"name": ["a\nb", "c"]})" + tail),
             Catch::Contains("axes.name[0]: a control character"));
  // Seven axes of ten values (each valid: its default plus 0..9) span 10⁷ configurations, above
  // kMaxSweepConfigurations.
  std::string long_axes = R"({"axes": {)";
  const std::vector<std::pair<const char*, int>> defaults = {{"array.rows", 16},
                                                             {"array.cols", 32},
                                                             {"clock_mhz", 500},
                                                             {"dram.bits_per_cycle", 192},
                                                             {"vector_unit.lanes", 64},
                                                             {"buffers.inputs.bytes", 32768},
                                                             {"buffers.outputs.bytes", 16384}};
  for (const auto& [key, value] : defaults) {
    long_axes += fmt::format(R"({}"{}": [)", long_axes.back() == '{' ? "" : ", ", key);
    for (int i = 0; i < 10; ++i) long_axes += fmt::format("{}{}", i ? ", " : "", value + i);
    long_axes += "]";
  }
  CHECK_THAT(error_of(long_axes + "}" + tail), Catch::Contains("configurations"));
}

TEST_CASE("sweep spec: two ONNX files of one name are two workloads, labelled by their paths", "[sweep]") {
  SweepWorkload first, second;
  first.onnx = "m1/model.onnx";
  second.onnx = "m2/model.onnx";
  CHECK(first.label() == "onnx m1/model.onnx");
  CHECK(first.label() != second.label());  // else one plot panel and one Pareto front for both
}

TEST_CASE("sweep plan: configurations above max_area_mm2 are pruned, the others kept", "[sweep]") {
  const accel::AccelConfig base = accel::builtin_config("bitfusion-45nm");
  const double small = accel::with_overrides(base, {{"array", {{"rows", 8}, {"cols", 8}}}}, "t").area_mm2();
  const double large = accel::with_overrides(base, {{"array", {{"rows", 16}, {"cols", 32}}}}, "t").area_mm2();
  REQUIRE(small < large);
  const double budget = (small + large) / 2;
  SweepSpec spec = spec_with(kSmallSpec);
  spec.max_area_mm2 = budget;
  const SweepPlan plan(spec);
  std::size_t above = 0;
  for (std::size_t c = 0; c < spec.configurations(); ++c)
    above += accel::with_overrides(base, spec.overrides(c), "t").area_mm2() > budget ? 1 : 0;
  CHECK(above > 0);
  CHECK(plan.pruned()["configurations"] == above);
  CHECK(plan.runnable().size() == (spec.configurations() - above) * 6);
  for (std::size_t index : plan.runnable()) CHECK(plan.run(index).area_mm2 <= budget);
  spec.max_area_mm2 = small / 2;
  CHECK_THROWS_WITH(SweepPlan(spec), Catch::Contains("prune every point"));
}

TEST_CASE("sweep plan: sliding on a decoder with its own window takes that window unless the variant sets one",
          "[sweep]") {
  // a one-layer Mistral-style config whose window (5000) exceeds the variant's default (4096): its default prefill
  // is over 5000 tokens, each attending to all before it
  const Folder folder("model_window");
  const fs::path config = folder.path / "config.json";
  std::ofstream(config) << R"({"model_type": "mistral", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 1, "vocab_size": 100,
    "max_position_embeddings": 5000, "sliding_window": 5000, "hidden_act": "silu", "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0, "tie_word_embeddings": false})";
  REQUIRE(default_of(VariantParameterId::sliding_window) < 5000);
  const SweepSpec spec = spec_with(fmt::format(
      R"({{"workloads": [{{"hf_config": "{}"}}], "engine": "closed-form",
      "variants": [{{"name": "sliding"}}, {{"name": "sliding", "sliding_window": 5000}}, {{"name": "msa"}},
      {{"name": "sliding", "sliding_window": 4096}}]}})",
      config.string()));
  const SweepPlan plan(spec);
  REQUIRE(plan.runnable().size() == 4);
  std::vector<SweepRow> rows;
  for (std::size_t index : plan.runnable()) rows.push_back(plan.run(index));
  for (const SweepRow& row : rows) REQUIRE(row.ran);
  CHECK(rows[0].cycles == rows[1].cycles);  // the model's window: every key before each query, as MSA's
  CHECK(rows[0].energy.total_pj() == rows[2].energy.total_pj());
  CHECK(rows[3].energy.total_pj() < rows[0].energy.total_pj());  // 4096 keys at most
}

TEST_CASE("sweep spec: an axis of configuration objects sweeps the memory model", "[sweep]") {
  const SweepSpec spec = spec_with(R"({"axes": {"memory": [{"model": "simple"},
      {"model": "dram", "device": "DDR4-2400"}, {"model": "dram", "device": "HBM2", "channels": 8}]},
      "workloads": [{"layer": {"seq": 256}}], "variants": [{"name": "msa"}]})");
  REQUIRE(spec.configurations() == 3);
  const accel::AccelConfig base = accel::builtin_config("bitfusion-45nm");
  CHECK(accel::with_overrides(base, spec.overrides(0), "t").effective["memory"]["model"] == "simple");
  CHECK(accel::with_overrides(base, spec.overrides(2), "t").effective["memory"]["device"] == "HBM2");
  CHECK(spec.axis_values(1) == std::vector<std::string>{R"({"device":"DDR4-2400","model":"dram"})"});
  const SweepPlan plan(spec);
  REQUIRE(plan.runnable().size() == 3);
  const SweepRow simple = plan.run(0), ddr4 = plan.run(1), hbm2 = plan.run(2);
  CHECK(simple.ran);
  CHECK(ddr4.ran);
  CHECK(hbm2.ran);
  // An MSA layer is memory-bound here: eight HBM2 channels move its bits faster than one DDR4-2400 channel.
  CHECK(hbm2.latency_ms < ddr4.latency_ms);
  CHECK_THAT(error_of(R"({"axes": {"memory": [{"model": "dram", "device": "DDR9"}]},
      "workloads": [{"layer": {"seq": 16}}], "variants": [{"name": "msa"}]})"),
             Catch::Contains("DDR9"));
}

TEST_CASE("sweep plan: a configuration whose buffers cannot hold one tile is pruned", "[sweep]") {
  // 64×64 units need 64·64·16 bits in half the weight buffer (16 KiB); 8 KiB cannot hold one tile.
  const SweepSpec spec = spec_with(R"({"axes": {"array.rows": [8, 64], "array.cols": [64],
      "buffers.weights.bytes": [8192]}, "workloads": [{"layer": {"seq": 16}}], "variants": [{"name": "msa"}]})");
  const SweepPlan plan(spec);
  CHECK(plan.pruned()["configurations"] == 1);
  CHECK_THAT(plan.pruned()["reasons"][0]["reason"].get<std::string>(), Catch::Contains("one tile"));
  CHECK(plan.pruned()["reasons"][0]["axes"]["array.rows"] == 64);  // as the spec gives it, a number
  CHECK(plan.runnable() == std::vector<std::size_t>{0});
}

TEST_CASE("sweep plan: a point that cannot run is an error row, the others run", "[sweep]") {
  const SweepSpec spec = spec_with(kSmallSpec);
  const SweepPlan plan(spec);
  for (std::size_t index : plan.runnable()) {
    const SweepRow row = plan.run(index);
    const bool ecoformer_on_16_tokens = row.point[0] == "layer b1 n16 d16 h1" && row.point[1] == "ecoformer";
    CHECK(row.ran == !ecoformer_on_16_tokens);
    if (ecoformer_on_16_tokens) CHECK_THAT(row.error, Catch::Contains("support"));
    if (row.ran) {
      CHECK(row.latency_ms > 0);
      CHECK(row.energy.total_pj() > 0);
      CHECK(row.error.empty());
    }
  }
}

TEST_CASE("sweep plan: a variant on a model without attention is an error row, msa its own row", "[sweep]") {
  // ResNet-18's performer row was its msa row, labelled performer (trace refuses the swap)
  const SweepSpec spec =
      spec_with(R"({"workloads": [{"model": "resnet18"}], "variants": [{"name": "msa"}, {"name": "performer"}]})");
  const SweepPlan plan(spec);
  REQUIRE(plan.runnable().size() == 2);
  const SweepRow msa = plan.run(plan.runnable()[0]), performer = plan.run(plan.runnable()[1]);
  CHECK(msa.ran);
  CHECK_FALSE(performer.ran);
  CHECK(performer.error == "model 'resnet18' has no attention to swap for performer");
}

TEST_CASE("sweep plan: a point whose replay is estimated past --max-minutes is an error row naming it", "[sweep]") {
  // 16 × 65,536² scores on the SystemC engine without fast-forward: tens of millions of tiles walked
  const SweepSpec spec = spec_with(R"({"workloads": [{"layer": {"seq": 65536, "batch": 16}}],
    "variants": [{"name": "msa"}], "engine": "systemc", "axes": {"systemc.fast_forward": [false]}})");
  const SweepPlan plan(spec, {.max_seconds = 0.6});
  const SweepRow row = plan.run(plan.runnable().at(0));
  CHECK_FALSE(row.ran);
  CHECK_THAT(row.error, Catch::Contains("refused before replaying it") && Catch::Contains("--max-minutes"));
}

TEST_CASE("sweep plan: SystemC points run, in no fewer cycles than the closed form's lower bound", "[sweep]") {
  auto spec_for = [](const char* engine) {
    return spec_with(
        fmt::format(R"({{"axes": {{"array.rows": [8, 16]}}, "workloads": [{{"layer": {{"seq": 64, "dim": 16}}}}],
        "variants": [{{"name": "msa"}}], "engine": "{}"}})",
                    engine));
  };
  const SweepSpec systemc_spec = spec_for("systemc"), closed_spec = spec_for("closed-form");
  const SweepPlan systemc(systemc_spec), closed(closed_spec);
  REQUIRE(systemc.runnable() == closed.runnable());
  for (std::size_t index : systemc.runnable()) {
    const SweepRow sc = systemc.run(index), cf = closed.run(index);
    INFO(sc.error);
    REQUIRE(sc.ran);
    CHECK(sc.cycles >= cf.cycles);
  }
}

TEST_CASE("sweep report: rows read back from the CSV render the same bytes", "[sweep]") {
  const SweepSpec spec = spec_with(kSmallSpec);
  const SweepPlan plan(spec);
  std::map<std::size_t, SweepRow> rows;
  for (std::size_t index : plan.runnable()) rows[index] = plan.run(index);
  const std::string csv = render_sweep_csv(spec, rows);
  CHECK(render_sweep_csv(spec, read_sweep_csv(csv, spec, "sweep.csv")) == csv);
  const SweepSpec other = spec_with(R"({"workloads": [{"layer": {"seq": 16}}], "variants": [{"name": "msa"}]})");
  CHECK_THROWS_WITH(read_sweep_csv(csv, other, "sweep.csv"), Catch::Contains("another spec"));
}

TEST_CASE("ecosim sweep: --jobs 1 and --jobs 2 write the same CSV bytes", "[sweep][cli]") {
  Folder f("jobs");
  const ChildOutcome one =
      run_ecosim({"sweep", "spec.json", "--out", "one", "--jobs", "1"}, f.path, kAddressSpaceBytes, kSeconds);
  const ChildOutcome two =
      run_ecosim({"sweep", "spec.json", "--out", "two", "--jobs", "2"}, f.path, kAddressSpaceBytes, kSeconds);
  REQUIRE(one.exit_code == 0);
  REQUIRE(two.exit_code == 0);
  const std::string csv = read(f.path / "one" / "sweep.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 37);  // header + 36 points
  CHECK(read(f.path / "two" / "sweep.csv") == csv);
  // sweep.json's rows: each axis value as the spec gives it (a number), at the row's configuration
  const nlohmann::json report = nlohmann::json::parse(read(f.path / "one" / "sweep.json"));
  const SweepSpec spec = spec_with(kSmallSpec);
  REQUIRE(report.at("rows").size() == 36);
  for (const nlohmann::json& row : report.at("rows")) {
    const std::vector<nlohmann::json> axes = spec.axis_points(row.at("index").get<std::size_t>() % 6);
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      CHECK(row.at(spec.axes[a].key).is_number_unsigned());
      CHECK(row.at(spec.axes[a].key) == axes[a]);
    }
  }
}

TEST_CASE("ecosim sweep: --resume keeps the rows of a run cut short and runs only the rest", "[sweep][cli]") {
  Folder f("resume");
  REQUIRE(run_ecosim({"sweep", "spec.json", "--out", "full", "--jobs", "2"}, f.path, kAddressSpaceBytes, kSeconds)
              .exit_code == 0);
  const std::string full = read(f.path / "full" / "sweep.csv");
  // What a killed run leaves: the header, the first 10 rows, and half of the 11th. Its error rows (the last
  // column, `error`, not empty) run again, the others are kept.
  std::size_t cut = 0, errors = 0;
  for (int line = 0; line < 11; ++line) {
    const std::size_t end = full.find('\n', cut);
    errors += line > 0 && full[end - 1] != ',';
    cut = end + 1;
  }
  const std::size_t half = cut + (full.find('\n', cut) - cut) / 2;
  fs::create_directories(f.path / "part");
  std::ofstream(f.path / "part" / "sweep.csv", std::ios::binary) << full.substr(0, half);
  fs::copy_file(f.path / "full" / "sweep.inputs.json", f.path / "part" / "sweep.inputs.json");  // written first
  const ChildOutcome resumed = run_ecosim({"sweep", "spec.json", "--out", "part", "--resume", "--jobs", "2"}, f.path,
                                          kAddressSpaceBytes, kSeconds);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.stderr_text, Catch::Contains(fmt::format("{} kept", 10 - errors)) &&
                                      Catch::Contains(fmt::format("{} to run", 26 + errors)));
  CHECK(read(f.path / "part" / "sweep.csv") == full);
  // the same points timed by the other engine are not this spec's rows: refused, the file left as it was
  std::string systemc = kSmallSpec;
  systemc.insert(systemc.rfind('}'), R"(, "engine": "systemc")");
  std::ofstream(f.path / "systemc.json") << systemc;
  const ChildOutcome other = run_ecosim({"sweep", "systemc.json", "--out", "part", "--resume", "--jobs", "2"}, f.path,
                                        kAddressSpaceBytes, kSeconds);
  CHECK(other.exit_code != 0);
  CHECK_THAT(other.stderr_text, Catch::Contains("does not match this spec"));
  CHECK(read(f.path / "part" / "sweep.csv") == full);
}

TEST_CASE(
    "ecosim sweep: --resume runs an earlier run's error rows again (a --max-minutes refusal under a raised limit)",
    "[sweep][cli]") {
  Folder f("resume_errors");
  REQUIRE(run_ecosim({"sweep", "spec.json", "--out", "out", "--max-minutes", "0.0000001"}, f.path, kAddressSpaceBytes,
                     kSeconds)
              .exit_code == 0);
  REQUIRE_THAT(read(f.path / "out" / "sweep.csv"), Catch::Contains("refused before replaying it"));
  const ChildOutcome resumed =
      run_ecosim({"sweep", "spec.json", "--out", "out", "--resume"}, f.path, kAddressSpaceBytes, kSeconds);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.stderr_text, Catch::Contains("error rows run again"));
  CHECK_THAT(read(f.path / "out" / "sweep.csv"), !Catch::Contains("refused before replaying it"));
}

TEST_CASE("ecosim sweep: a fresh run empties an earlier run's rows before it records its inputs", "[sweep][cli]") {
  // an earlier run's rows, then a fresh run of one slow point (PVTv2-B0 at batch 65,536: seconds of replay) stopped
  // before its first checkpoint: the rows beside its inputs must not be the earlier run's (--resume kept them)
  Folder f("fresh_run");
  fs::create_directories(f.path / "out");
  std::ofstream(f.path / "out" / "sweep.csv") << "an earlier run's rows\n";
  std::ofstream(f.path / "slow.json")
      << R"({"axes": {"array.rows": [8]}, "workloads": [{"model": "pvt_v2_b0", "batch": [65536]}],
             "variants": [{"name": "msa"}]})";
  const ChildOutcome stopped = run_ecosim({"sweep", "slow.json", "--out", "out"}, f.path, kAddressSpaceBytes, 2);
  REQUIRE(stopped.signal != 0);  // stopped by the alarm, before its point finished
  const std::string rows = read(f.path / "out" / "sweep.csv");
  CHECK(rows.starts_with("index,workload,variant"));
  CHECK(std::count(rows.begin(), rows.end(), '\n') == 1);  // the header alone
  CHECK(fs::exists(f.path / "out" / "sweep.inputs.json"));
}

TEST_CASE("ecosim sweep: --resume refuses rows computed from other inputs, and rows without a record of them",
          "[sweep][cli]") {
  Folder f("resume_inputs");
  REQUIRE(run_ecosim({"sweep", "spec.json", "--out", "full", "--jobs", "2"}, f.path, kAddressSpaceBytes, kSeconds)
              .exit_code == 0);
  const std::string rows = read(f.path / "full" / "sweep.csv");
  // a constraint that prunes nothing: the same points, labels and columns, but not the same spec
  std::string constrained = kSmallSpec;
  constrained.insert(constrained.rfind('}'), R"(, "constraints": {"max_area_mm2": 1000})");
  std::ofstream(f.path / "constrained.json") << constrained;
  const ChildOutcome other =
      run_ecosim({"sweep", "constrained.json", "--out", "full", "--resume"}, f.path, kAddressSpaceBytes, kSeconds);
  CHECK(other.exit_code != 0);
  CHECK_THAT(other.stderr_text, Catch::Contains("computed from other inputs") && Catch::Contains("the spec differs"));
  CHECK(read(f.path / "full" / "sweep.csv") == rows);
  fs::remove(f.path / "full" / "sweep.inputs.json");
  const ChildOutcome unrecorded =
      run_ecosim({"sweep", "spec.json", "--out", "full", "--resume"}, f.path, kAddressSpaceBytes, kSeconds);
  CHECK(unrecorded.exit_code != 0);
  CHECK_THAT(unrecorded.stderr_text, Catch::Contains("sweep.inputs.json: missing"));
  CHECK(read(f.path / "full" / "sweep.csv") == rows);
}

TEST_CASE("ecosim sweep: a bad spec fails before any output", "[sweep][cli]") {
  Folder f("bad");
  std::ofstream(f.path / "bad.json") << R"({"axes": {"array.rows": []}, "workloads": [{"layer": {"seq": 16}}],
      "variants": [{"name": "msa"}]})";
  const ChildOutcome bad = run_ecosim({"sweep", "bad.json", "--out", "out"}, f.path, kAddressSpaceBytes, kSeconds);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.stderr_text, Catch::Contains("empty"));
  CHECK_FALSE(fs::exists(f.path / "out"));
}

TEST_CASE("ecosim sweep: a run killed mid-way resumes to the same CSV as an uninterrupted run", "[sweep][cli]") {
  Folder f("killed");
  // 1,944 whole-model points: on one thread (≈ 150 points/s on an idle sandbox core) longer than the 12 s
  // alarm, so SIGALRM kills the run after its first checkpoints (every 5 s once the points run, which planning
  // precedes by well under 7 s even on a loaded machine); a machine fast enough to finish first kills nothing.
  std::ofstream(f.path / "long.json") << R"({
    "axes": {"array.rows": [8, 16, 32], "array.cols": [8, 16, 32, 64], "buffers.weights.bytes": [32768, 65536, 131072],
             "buffers.inputs.bytes": [16384, 32768, 65536], "buffers.outputs.bytes": [16384, 32768, 65536]},
    "workloads": [{"model": "pvt_v2_b0", "batch": [1, 2]}],
    "variants": [{"name": "msa"}, {"name": "ecoformer"}, {"name": "performer"}]})";
  const ChildOutcome killed =
      run_ecosim({"sweep", "long.json", "--out", "part", "--jobs", "1"}, f.path, kAddressSpaceBytes, 12);
  const ChildOutcome full =
      run_ecosim({"sweep", "long.json", "--out", "full", "--jobs", "2"}, f.path, kAddressSpaceBytes, kSeconds);
  REQUIRE(full.exit_code == 0);
  const std::string expected = read(f.path / "full" / "sweep.csv");
  if (killed.signal != 0) {
    REQUIRE(fs::is_regular_file(f.path / "part" / "sweep.csv"));  // the checkpoint
    CHECK(read(f.path / "part" / "sweep.csv").size() < expected.size());
  } else {
    WARN("the sweep finished before the alarm: nothing was killed");
  }
  const ChildOutcome resumed = run_ecosim({"sweep", "long.json", "--out", "part", "--resume", "--jobs", "2"}, f.path,
                                          kAddressSpaceBytes, kSeconds);
  REQUIRE(resumed.exit_code == 0);
  CHECK(read(f.path / "part" / "sweep.csv") == expected);
}

TEST_CASE("ecosim sweep: a closed-form sweep over memory devices notes that it times them at their lower bound",
          "[sweep][cli]") {
  Folder f("memory_note");
  const char* memory = R"({"axes": {"memory": [{"model": "dram", "device": "DDR4-2400", "mapping": "RoBaCoBgCh"},
      {"model": "dram", "device": "DDR4-2400", "mapping": "RoCoBaCh"}]},
      "workloads": [{"layer": {"seq": 16, "dim": 16}}], "variants": [{"name": "msa"}]})";
  std::ofstream(f.path / "memory.json") << memory;
  std::ofstream(f.path / "memory_systemc.json") << std::string(memory).insert(1, R"("engine": "systemc", )");
  const ChildOutcome closed = run_ecosim({"sweep", "memory.json", "--out", "a"}, f.path, kAddressSpaceBytes, kSeconds);
  CHECK(closed.exit_code == 0);
  CHECK_THAT(closed.stderr_text, Catch::Contains("closed-form engine times a DRAM device's transfers at their lower"));
  const ChildOutcome systemc =
      run_ecosim({"sweep", "memory_systemc.json", "--out", "b"}, f.path, kAddressSpaceBytes, kSeconds);
  CHECK(systemc.exit_code == 0);
  CHECK_THAT(systemc.stderr_text, !Catch::Contains("lower bound"));
}
