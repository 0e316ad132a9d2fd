// Every attention variant ecosim knows (all_attention_variants) goes through the whole chain on a small layer:
// `ecosim trace --convention exact` → `ecosim replay` (SystemC) and the closed-form replay of the same file, and
// `ecosim compare --variants V` (its kernel on the CPU, or its analytic records when it has none). A
// paper-convention trace is counted but refused by replay with the fix named.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "../unique_temp_path.hpp"
#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/traces/trace_reader.hpp"
#include "ecosim_child.hpp"

namespace fs = std::filesystem;
using namespace ecosim;

namespace {

constexpr std::uint64_t kAddressSpaceBytes = std::uint64_t{4} << 30;
constexpr unsigned kSeconds = 300;
const std::vector<std::string> kLayer = {"--batch", "1", "--seq", "64", "--dim", "16"};

std::vector<std::string> with_layer(std::vector<std::string> args) {
  args.insert(args.end(), kLayer.begin(), kLayer.end());
  return args;
}

/// A fresh folder for one variant's files, removed at the end of the test case.
struct Folder {
  explicit Folder(const std::string& stem) : path(unique_temp_path("ecosim_registry_" + stem, "")) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
  fs::path path;
};

}  // namespace

TEST_CASE("every registered variant traces exactly, replays on both engines and compares") {
  const auto variants = all_attention_variants();
  const AttentionVariant v = variants[GENERATE_COPY(range(std::size_t{0}, variants.size()))];
  const std::string variant(name(v));
  INFO(variant);
  Folder dir(variant);

  const ChildOutcome traced = run_ecosim(
      with_layer({"trace", "--layer", "attention", "--attention", variant, "--convention", "exact", "-o", "t.jsonl"}),
      dir.path, kAddressSpaceBytes, kSeconds);
  INFO(traced.stderr_text);
  REQUIRE(traced.exit_code == 0);

  const ChildOutcome replayed = run_ecosim({"replay", "t.jsonl", "--format", "json"}, dir.path, kAddressSpaceBytes,
                                           kSeconds, (dir.path / "replay.json").string());
  INFO(replayed.stderr_text);
  CHECK(replayed.exit_code == 0);
  std::ifstream json(dir.path / "replay.json");
  const nlohmann::json result = nlohmann::json::parse(json);
  CHECK(result["cycles"].get<std::uint64_t>() > 0);

  const accel::AccelConfig config = accel::builtin_config("bitfusion-45nm");
  const TechTable tech = TechTable::builtin_45nm();
  trace::TraceReader reader((dir.path / "t.jsonl").string());
  accel::PlanSource plans(reader, reader.header().convention, "t.jsonl", config, tech);
  const accel::ReplayResult closed = accel::replay_closed_form(plans, config);
  CHECK(closed.total.cycles > 0);
  CHECK(closed.total.macs == result["macs"].get<std::uint64_t>());
  // Both engines run one pipeline: the closed form bounds SystemC's prefetches from below, and SystemC is no
  // slower than that pipeline without overlap and prefetch (where the two are equal).
  CHECK(closed.total.cycles <= result["cycles"].get<std::uint64_t>());
  accel::AccelConfig serial = config;
  serial.overlap_units = serial.prefetch_weights = false;
  trace::TraceReader again((dir.path / "t.jsonl").string());
  accel::PlanSource serial_plans(again, again.header().convention, "t.jsonl", serial, tech);
  CHECK(result["cycles"].get<std::uint64_t>() <= accel::replay_closed_form(serial_plans, serial).total.cycles);

  const ChildOutcome compared =
      run_ecosim(with_layer({"compare", "--variants", variant, "--device", "cpu", "--out", "reports"}), dir.path,
                 kAddressSpaceBytes, kSeconds);
  INFO(compared.stderr_text);
  CHECK(compared.exit_code == 0);
  CHECK(fs::is_regular_file(dir.path / "reports" / "compare.csv"));
  CHECK(fs::is_regular_file(dir.path / "reports" / (variant + ".jsonl")));
}

TEST_CASE("a paper-convention trace is counted, and replay refuses it naming --convention exact") {
  Folder dir("paper");
  REQUIRE(run_ecosim(with_layer({"trace", "--layer", "attention", "--convention", "paper", "-o", "paper.jsonl"}),
                     dir.path, kAddressSpaceBytes, kSeconds)
              .exit_code == 0);
  CHECK(run_ecosim({"count", "--trace", "paper.jsonl"}, dir.path, kAddressSpaceBytes, kSeconds).exit_code == 0);
  const ChildOutcome replayed = run_ecosim({"replay", "paper.jsonl"}, dir.path, kAddressSpaceBytes, kSeconds);
  CHECK(replayed.exit_code != 0);
  CHECK_THAT(replayed.stderr_text,
             Catch::Contains("paper.jsonl: replay needs exact-convention counts; this trace is 'paper' (write it "
                             "with: ecosim trace ... --convention exact)"));
}
