// The command line against the variant registry: `ecosim run` accepts exactly the variants with a kernel
// (a count-only one is refused, saying so), `ecosim count` counts every variant, --help of count, trace,
// compare and run lists every variant with its description and its parameters' defaults and ranges, each
// parameter option is refused one step outside its range and for a variant that does not read it; sliding swapped
// into a model with its own window takes that window unless one is given.
#include <fmt/core.h>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include "../unique_temp_path.hpp"

#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/variant_registry.hpp"
#include "ecosim_child.hpp"

namespace fs = std::filesystem;
using namespace ecosim;

namespace {

constexpr std::uint64_t kAddressSpaceBytes = std::uint64_t{2} << 30;
constexpr unsigned kSeconds = 120;

/// A fresh folder for the children of one test case.
struct Folder {
  fs::path path;
  explicit Folder(const std::string& stem) : path(unique_temp_path(stem, "")) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
};

/// `ecosim args...` with its standard output.
std::pair<ChildOutcome, std::string> run_with_output(const std::vector<std::string>& args, const Folder& folder) {
  const fs::path out = folder.path / "stdout.txt";
  const ChildOutcome outcome = run_ecosim(args, folder.path, kAddressSpaceBytes, kSeconds, out.string());
  std::ostringstream text;
  text << std::ifstream(out).rdbuf();
  return {outcome, text.str()};
}

/// The first variant reading parameter `id` (every parameter is read by one), and the first not reading it.
const VariantInfo& reader_of(VariantParameterId id, bool reads) {
  for (const VariantInfo& row : variant_registry())
    if (row.parameters.contains(id) == reads) return row;
  throw std::logic_error("no such variant");
}

}  // namespace

TEST_CASE("run accepts exactly the variants with a kernel, count every variant", "[registry][cli]") {
  const Folder folder("ecosim_registry_run");
  for (const VariantInfo& row : variant_registry()) {
    const std::string variant(row.name);
    INFO(variant);
    const ChildOutcome ran = run_ecosim({"run", "--variant", variant, "--seq", "64", "--dim", "8", "--device", "cpu"},
                                        folder.path, kAddressSpaceBytes, kSeconds);
    INFO("run stderr: " << ran.stderr_text);
    if (row.has_kernel) {
      CHECK(ran.exit_code == 0);
    } else {
      CHECK(ran.exit_code == 2);
      CHECK_THAT(ran.stderr_text, Catch::Contains("count-only"));
    }
    const ChildOutcome counted = run_ecosim({"count", "--layer", "attention", "--attention", variant, "--seq", "64"},
                                            folder.path, kAddressSpaceBytes, kSeconds);
    INFO("count stderr: " << counted.stderr_text);
    CHECK(counted.exit_code == 0);
  }
}

TEST_CASE("help lists every variant with its description and parameters", "[registry][cli]") {
  const Folder folder("ecosim_registry_help");
  for (const char* command : {"count", "trace", "compare", "run"}) {
    const auto [outcome, help] = run_with_output({command, "--help"}, folder);
    INFO(command << " --help:\n" << help);
    REQUIRE(outcome.exit_code == 0);
    for (const VariantInfo& row : variant_registry()) {
      CHECK_THAT(help, Catch::Contains("  " + std::string(row.name) + " "));
      CHECK_THAT(help, Catch::Contains(std::string(row.description)));
      for (const VariantParameter& p : kVariantParameters)
        if (row.parameters.contains(p.id))
          CHECK_THAT(help, Catch::Contains(
                               fmt::format("--{} {} ({}..{})", p.option(), p.default_value, p.minimum, p.maximum)));
    }
    for (const VariantParameter& p : kVariantParameters)
      CHECK_THAT(help, Catch::Contains(fmt::format("--{} arg (={})", p.option(), p.default_value)));
  }
}

TEST_CASE("a parameter option is refused outside its range and for a variant that does not read it",
          "[registry][cli]") {
  const Folder folder("ecosim_registry_ranges");
  for (const VariantParameter& p : kVariantParameters) {
    const std::string option = "--" + p.option();
    INFO(option);
    const std::vector<std::string> layer = {"count", "--layer", "attention", "--seq", "64", "--attention"};
    const std::string range = fmt::format("{}..{}", p.minimum, p.maximum);
    for (const std::string& outside : {std::to_string(p.maximum + 1), std::to_string(std::int64_t(p.minimum) - 1)}) {
      std::vector<std::string> args = layer;
      args.insert(args.end(), {std::string(reader_of(p.id, true).name), option + "=" + outside});
      const ChildOutcome out = run_ecosim(args, folder.path, kAddressSpaceBytes, kSeconds);
      INFO(option << "=" << outside << ": " << out.stderr_text);
      CHECK(out.exit_code == 2);
      CHECK_THAT(out.stderr_text, Catch::Contains(option) && Catch::Contains(range));
    }

    std::vector<std::string> args = layer;
    args.insert(args.end(), {std::string(reader_of(p.id, false).name), option, std::to_string(p.default_value)});
    const ChildOutcome out = run_ecosim(args, folder.path, kAddressSpaceBytes, kSeconds);
    INFO(out.stderr_text);
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.stderr_text, Catch::Contains(option + " applies to"));
  }
}

TEST_CASE("sliding swapped into a model with its own window keeps that window unless --sliding-window is given",
          "[registry][cli]") {
  const Folder folder("ecosim_registry_model_window");
  const std::uint64_t window = ModelZoo::builtin().resolved("phi3_mini_4k").at("sliding_window");
  REQUIRE(window < default_of(VariantParameterId::sliding_window));  // so the default would differ
  std::string notes;                                                 // the last run's standard error
  auto count = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"count", "--model", "phi3_mini_4k", "--phase", "prefill",
                                     "--seq", "4096",    "--format",     "json",    "--attention"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto [outcome, text] = run_with_output(args, folder);
    INFO(outcome.stderr_text);
    REQUIRE(outcome.exit_code == 0);
    notes = outcome.stderr_text;
    return nlohmann::json::parse(text);
  };
  const nlohmann::json native = count({"native"}), swapped = count({"sliding"}),
                       given = count({"sliding", "--sliding-window", "4096"});
  CHECK(swapped.at("workload").at("sliding_window") == window);
  CHECK(swapped.at("muls") == native.at("muls"));  // the model's own attention is sliding over its window
  CHECK(given.at("workload").at("sliding_window") == 4096);
  CHECK(given.at("muls").get<double>() > native.at("muls").get<double>());  // 4096 keys a query at the end
  // wider than the model's own: counted as given, and said (it was silent)
  CHECK_THAT(notes, Catch::Contains("a sliding window of 4096 tokens (--sliding-window) is wider than phi3_mini_4k's "
                                    "own 2047"));
}
