// `ecosim crossover` (sim/src/compare/crossover.hpp): the crossing found between two listed contexts by hand, and on
// Qwen2-7B's decode steps — MSA's op energy affine in the context, the recurrent variants' flat, each crossing where
// the two lines meet — and the command's JSON, and its --out folder (JSON, CSV and, with matplotlib, the plot).
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../traces/temp_folder.hpp"
#include "child_process.hpp"
#include "compare/crossover.hpp"
#include "ecosim/accel_model/config.hpp"
#include "ecosim_child.hpp"

using namespace ecosim;
using namespace ecosim::cli;

TEST_CASE("find_crossover: below from the first context, crossing by interpolation, after a tie, or not within") {
  const std::vector<std::uint64_t> contexts = {1, 2, 4};
  const std::vector<double> msa = {10, 20, 40};
  CHECK(find_crossover(contexts, msa, {5, 5, 5}).kind == Crossover::Kind::below_from_first);
  CHECK(find_crossover(contexts, msa, {50, 50, 50}).kind == Crossover::Kind::not_within);
  const Crossover c = find_crossover(contexts, msa, {30, 30, 30});  // 30 − (20 + 10·(c − 2)) = 0 at c = 3
  REQUIRE(c.kind == Crossover::Kind::crosses);
  CHECK(c.context == Approx(3.0));
  // below at a shorter context, then above, then below again (Reformer's buckets): the last crossing, marked
  const Crossover again = find_crossover({2, 3, 4, 5}, {20, 30, 40, 50}, {10, 40, 45, 45});
  CHECK(again.kind == Crossover::Kind::crosses);
  CHECK(again.context == Approx(4.5));
  CHECK(again.below_earlier == 2);
  CHECK(find_crossover({2, 3, 4}, {20, 30, 40}, {10, 40, 50}).below_earlier == 2);  // and not since: none
  CHECK(find_crossover(contexts, msa, {30, 30, 30}).below_earlier == 0);
  // equal up to the context 2, below at 4: it parts from MSA somewhere after 2, by 4 (equal costs tell nothing of
  // where, so no interpolation: a sliding window's cost leaves MSA's at the window, wherever that lies)
  const Crossover tie = find_crossover(contexts, msa, {10, 20, 20});
  CHECK(tie.kind == Crossover::Kind::after_tie);
  CHECK((tie.context == 2.0 && tie.by == 4.0));
}

TEST_CASE(
    "crossover on Qwen2-7B decode: MSA's op energy per token affine in the context, Performer's and "
    "EcoFormer's flat, Performer crossing where the two meet, EcoFormer below from the first") {
  CrossoverRequest r;
  r.zoo = ModelZoo::builtin();
  r.model = "qwen2_7b";
  r.options.phase.phase = Phase::decode;
  r.contexts = {16, 64, 256, 1024, 4096};
  r.variants = {AttentionVariant::msa, AttentionVariant::performer, AttentionVariant::ecoformer};
  r.gpu = gpu::builtin_gpu("h100-sxm");
  const accel::AccelConfig accel = accel::builtin_config("bitfusion-45nm");
  const TechTable tech = TechTable::builtin_45nm();
  const std::vector<CrossoverSeries> series = crossover_series(r, accel, tech);
  REQUIRE(series.size() == 3);
  const auto& msa = series[0].points;
  const double slope = (msa[1].op_energy_pj - msa[0].op_energy_pj) / 48.0;
  CHECK(slope > 0);
  for (std::size_t i = 1; i < msa.size(); ++i) {
    const double step =
        (msa[i].op_energy_pj - msa[i - 1].op_energy_pj) / static_cast<double>(r.contexts[i] - r.contexts[i - 1]);
    CHECK(step == Approx(slope).epsilon(1e-9));
    CHECK(msa[i].accel_latency_ms > msa[i - 1].accel_latency_ms);
    CHECK(msa[i].gpu_latency_ms >= msa[i - 1].gpu_latency_ms);  // the step streams a longer KV cache (whole tiles)
  }
  CHECK(msa.back().gpu_latency_ms > msa.front().gpu_latency_ms);
  for (std::size_t v = 1; v < series.size(); ++v) {
    const CrossoverSeries& s = series[v];
    INFO(name(s.variant));
    for (const CrossoverPoint& p : s.points) {
      CHECK(p.op_energy_pj == s.points.front().op_energy_pj);
      CHECK(p.kv_cache_bytes == s.points.front().kv_cache_bytes);
      CHECK(p.gpu_latency_ms == s.points.front().gpu_latency_ms);  // a fixed-size state: the same step each time
    }
  }
  // Performer: both lines are exact, so MSA's op energy at the interpolated crossing is Performer's
  const CrossoverSeries& performer = series[1];
  REQUIRE(performer.op_energy.kind == Crossover::Kind::crosses);
  const double at = msa[0].op_energy_pj + slope * (performer.op_energy.context - 16.0);
  CHECK(at == Approx(performer.points.front().op_energy_pj).epsilon(1e-9));
  CHECK(performer.accel_latency.kind == Crossover::Kind::crosses);
  // EcoFormer hashes one shared q/k projection, so its step projects no keys: below MSA from the first context,
  // and below Performer's (F = 256 features against b = 16 bits)
  const CrossoverSeries& ecoformer = series[2];
  CHECK(ecoformer.op_energy.kind == Crossover::Kind::below_from_first);
  CHECK(ecoformer.accel_latency.kind == Crossover::Kind::below_from_first);
  CHECK(ecoformer.points.front().op_energy_pj < msa.front().op_energy_pj);
  CHECK(ecoformer.points.front().op_energy_pj < performer.points.front().op_energy_pj);
}

namespace {
constexpr std::uint64_t kAddressSpaceBytes = std::uint64_t{4} << 30;
constexpr unsigned kSeconds = 120;
}  // namespace

TEST_CASE("ecosim crossover --format json: every variant's points and its crossings against MSA") {
  const TempFolder dir("ecosim_crossover");
  const auto [out, stdout_text] =
      run_ecosim_with_stdout({"crossover", "--model", "qwen2_7b", "--contexts", "64,512,8k", "--variants",
                              "performer,sliding", "--sliding-window", "512", "--format", "json"},
                             std::filesystem::path(dir / "."), kAddressSpaceBytes, kSeconds);
  INFO(out.stderr_text);
  REQUIRE(out.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(stdout_text);
  CHECK(j["phase"] == "decode");
  CHECK(j["engine"] == "closed-form");
  REQUIRE(j["variants"].size() == 3);
  CHECK(j["variants"][0]["variant"] == "msa");
  CHECK(!j["variants"][0].contains("crossover_vs_msa"));
  const nlohmann::json& sliding = j["variants"][2];
  CHECK(sliding["points"][2]["kv_cache_bytes"] == sliding["points"][1]["kv_cache_bytes"]);  // the last 512 tokens
  // equal to MSA up to its window W = 512, below at 8k: it parts from MSA after 512, by 8k
  CHECK(sliding["crossover_vs_msa"]["op_energy"]["kind"] == "after_tie");
  CHECK(sliding["crossover_vs_msa"]["op_energy"]["context"].get<double>() == 512.0);
  CHECK(sliding["crossover_vs_msa"]["op_energy"]["by"].get<double>() == 8192.0);
  // a context beyond the model's positions, and contexts out of order, are errors naming them
  const ChildOutcome far = run_ecosim({"crossover", "--model", "llama3_8b", "--contexts", "1k,16k"},
                                      std::filesystem::path(dir / "."), kAddressSpaceBytes, kSeconds);
  CHECK(far.exit_code != 0);
  CHECK_THAT(far.stderr_text, Catch::Contains("max_position_embeddings"));
  const ChildOutcome unordered = run_ecosim({"crossover", "--model", "qwen2_7b", "--contexts", "4k,1k"},
                                            std::filesystem::path(dir / "."), kAddressSpaceBytes, kSeconds);
  CHECK(unordered.exit_code != 0);
  CHECK_THAT(unordered.stderr_text, Catch::Contains("ascending"));
}

namespace {
std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> split(const std::string& text, char at) {
  std::vector<std::string> parts;
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, at);) parts.push_back(item);
  return parts;
}
}  // namespace

TEST_CASE(
    "ecosim crossover --out: crossover.json as printed, crossover.csv its points, crossover.png with matplotlib") {
  const TempFolder dir("ecosim_crossover_out");
  const std::filesystem::path reports = dir / "reports";
  const auto [out, stdout_text] =
      run_ecosim_with_stdout({"crossover", "--model", "qwen2_7b", "--contexts", "16,256,4k", "--variants",
                              "performer,ecoformer", "--format", "json", "--out", reports.string()},
                             std::filesystem::path(dir / "."), kAddressSpaceBytes, kSeconds);
  INFO(out.stderr_text);
  REQUIRE(out.exit_code == 0);
  const nlohmann::json printed = nlohmann::json::parse(stdout_text);
  const nlohmann::json written = nlohmann::json::parse(read_text(reports / "crossover.json"));
  CHECK(written == printed);
  REQUIRE(written["variants"].size() == 3);
  CHECK(written["contexts"] == nlohmann::json({16, 256, 4096}));
  // the CSV: a header of `variant` and the points' keys, then one row per variant and context with the JSON's values
  const std::vector<std::string> lines = split(read_text(reports / "crossover.csv"), '\n');
  REQUIRE(lines.size() == 1 + 3 * 3);
  const std::vector<std::string> header = split(lines[0], ',');
  const nlohmann::json& first_point = written["variants"][0]["points"][0];
  REQUIRE(header.size() == 1 + first_point.size());
  CHECK(header[0] == "variant");
  std::size_t row = 1;
  for (const nlohmann::json& variant : written["variants"])
    for (const nlohmann::json& point : variant["points"]) {
      INFO(lines[row]);
      const std::vector<std::string> cells = split(lines[row++], ',');
      REQUIRE(cells.size() == header.size());
      CHECK(cells[0] == variant["variant"].get<std::string>());
      for (std::size_t c = 1; c < cells.size(); ++c) {
        REQUIRE(point.contains(header[c]));
        if (point[header[c]].is_boolean())  // gpu_fits
          CHECK(cells[c] == (point[header[c]].get<bool>() ? "true" : "false"));
        else
          CHECK(std::stod(cells[c]) == Approx(point[header[c]].get<double>()).epsilon(1e-12));
      }
    }
  // the plot, drawn by Debian's python3 with matplotlib; without it a warning and no PNG
  const bool matplotlib = cli::run_program({"/usr/bin/python3", "-c", "import matplotlib"}).succeeded;
  if (matplotlib) {
    CHECK(std::filesystem::is_regular_file(reports / "crossover.png"));
    CHECK(std::filesystem::file_size(reports / "crossover.png") > 1000);
  } else {
    WARN("no matplotlib for /usr/bin/python3: the PNG is not checked");
    CHECK_THAT(out.stderr_text, Catch::Contains("no plot written"));
  }
}
