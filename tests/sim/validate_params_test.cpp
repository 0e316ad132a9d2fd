// `ecosim validate` on realistic kernels, as child processes: an output rounded to float16 or bfloat16 passes
// with the precision's default tolerance and fails when moved beyond it; --rtol and --atol replace the
// defaults; `run --save-inputs DIR` writes q, k, v and the kernel's parameters with a manifest, and
// `validate --params DIR` computes the reference from exactly those (a kernel's own output passes whatever
// --seed drew them, and a changed parameter file changes the reference; a causal run's folder validates as
// causal, as --causal does for --input); a hostile folder (a missing file, a
// wrong shape or dtype, a bad manifest) and a hostile --save-inputs target are errors naming what is wrong.
#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "../traces/temp_folder.hpp"
#include "ecosim/ecoformer/msa_fp16.hpp"
#include "ecosim/ecoformer/npy.hpp"
#include "ecosim_child.hpp"
#include "tolerance.hpp"

using namespace ecosim;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kAddressSpaceBytes = std::uint64_t{2} << 30;
constexpr unsigned kSeconds = 120;
const std::vector<std::uint64_t> kShape = {1, 2, 40, 16};  // [batch, heads, seq, dim] of the runs below

std::pair<ChildOutcome, std::string> ecosim_in(const TempFolder& folder, const std::vector<std::string>& args) {
  return run_ecosim_with_stdout(args, folder / "", kAddressSpaceBytes, kSeconds);
}

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

/// A .npy file of 16-bit elements: descr '<f2' (float16) or '<u2' (bfloat16 bits).
void write_npy16(const std::string& path, const std::vector<std::uint64_t>& shape,
                 const std::vector<std::uint16_t>& bits, const char* descr) {
  std::string bytes = ecoformer::npy_bytes(shape, std::vector<float>(bits.size()));
  bytes.resize(bytes.size() - bits.size() * sizeof(float));
  bytes.replace(bytes.find("<f4"), 3, descr);
  bytes.append(reinterpret_cast<const char*>(bits.data()), bits.size() * sizeof(std::uint16_t));
  write_bytes(path, bytes);
}

std::uint16_t to_bfloat16_bits(float x) {  // round to nearest even
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

float max_abs(const std::vector<float>& x) {
  float worst = 0;
  for (float v : x) worst = std::max(worst, std::abs(v));
  return worst;
}

/// `run --variant msa` of kShape writing o.npy (the kernel's float32 output) and its inputs in `saved/`.
ecoformer::NpyArray msa_output(const TempFolder& folder) {
  REQUIRE(ecosim_in(folder, {"run", "--variant", "msa", "--batch", "1", "--heads", "2", "--seq", "40", "--dim", "16",
                             "--seed", "3", "--output", "o.npy", "--save-inputs", "saved"})
              .first.exit_code == 0);
  return ecoformer::read_npy(folder / "o.npy");
}

nlohmann::json manifest_of(const std::string& dir) {
  return nlohmann::json::parse(std::ifstream(dir + "/manifest.json"));
}

}  // namespace

TEST_CASE("an output rounded to float16 or bfloat16 passes with the precision's default tolerance", "[validate][cli]") {
  TempFolder folder("ecosim_validate_fp16");
  const ecoformer::NpyArray out = msa_output(folder);
  AttentionConfig msa;
  msa.variant = AttentionVariant::msa;
  msa.batch = kShape[0], msa.heads = kShape[1], msa.seq = kShape[2], msa.head_dim = kShape[3];
  const auto validate = [&](const std::string& mine, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"validate", "--params", "saved", "--output", mine};
    args.insert(args.end(), extra.begin(), extra.end());
    return ecosim_in(folder, args);
  };

  std::vector<std::uint16_t> half(out.data.size()), brain(out.data.size());
  std::vector<float> half_values(out.data.size());
  for (std::size_t i = 0; i < out.data.size(); ++i) {
    half[i] = ecoformer::to_half_bits(out.data[i]);
    half_values[i] = ecoformer::from_half_bits(half[i]);
    brain[i] = to_bfloat16_bits(out.data[i]);
  }
  write_npy16(folder / "o16.npy", kShape, half, "<f2");
  const auto [fp16, fp16_text] = validate("o16.npy");
  CHECK(fp16.exit_code == 0);
  CHECK_THAT(fp16_text, Contains("output             float16") && Contains("PASS"));

  // The same float16 values stored as float32 are held to float32's tolerance unless --output-dtype says so.
  write_bytes(folder / "o16_as_f4.npy", ecoformer::npy_bytes(kShape, half_values));
  CHECK(validate("o16_as_f4.npy").first.exit_code == 1);
  const auto [declared, declared_text] = validate("o16_as_f4.npy", {"--output-dtype", "float16"});
  CHECK(declared.exit_code == 0);
  CHECK_THAT(declared_text, Contains("float32, holding a float16 result"));

  // One value moved by three times the float16 tolerance × max |ref| fails; by half of it, passes.
  const double fp16_rtol = cli::default_rtol(msa, ecoformer::NpyDtype::float16);
  CHECK(fp16_rtol < 0.05);  // a tolerance that still catches a wrong kernel
  for (const auto& [factor, expected_exit] : {std::pair{3.0, 1}, std::pair{0.5, 0}}) {
    std::vector<std::uint16_t> moved = half;
    moved[17] = ecoformer::to_half_bits(
        static_cast<float>(ecoformer::from_half_bits(half[17]) + factor * fp16_rtol * max_abs(out.data)));
    write_npy16(folder / "moved16.npy", kShape, moved, "<f2");
    const auto [outcome, text] = validate("moved16.npy");
    CHECK(outcome.exit_code == expected_exit);
    CHECK_THAT(text, Contains(expected_exit == 0 ? "PASS" : "FAIL"));
  }

  // bfloat16 bits as uint16: read only when --output-dtype bfloat16 says so.
  write_npy16(folder / "o_bf16.npy", kShape, brain, "<u2");
  const auto [unsaid, unsaid_text] = validate("o_bf16.npy");
  CHECK(unsaid.exit_code == 2);
  CHECK_THAT(unsaid.stderr_text, Contains("o_bf16.npy: uint16 ('<u2') data") && Contains("--output-dtype bfloat16"));
  const auto [bf16, bf16_text] = validate("o_bf16.npy", {"--output-dtype", "bfloat16"});
  CHECK(bf16.exit_code == 0);
  CHECK_THAT(bf16_text, Contains("output             bfloat16") && Contains("PASS"));
  // Each precision's default is looser than the finer one's; at twice float16's unit roundoff, the float16
  // output (each value within 2⁻¹¹ of its own magnitude) passes and the bfloat16 one (2⁻⁸) does not.
  CHECK(cli::default_rtol(msa, ecoformer::NpyDtype::float32) < fp16_rtol);
  CHECK(fp16_rtol < cli::default_rtol(msa, ecoformer::NpyDtype::bfloat16));
  const std::string two_fp16_roundoffs = fmt::format("{:.6e}", 2 * cli::unit_roundoff(ecoformer::NpyDtype::float16));
  CHECK(validate("o16.npy", {"--rtol", two_fp16_roundoffs}).first.exit_code == 0);
  CHECK(validate("o_bf16.npy", {"--output-dtype", "bfloat16", "--rtol", two_fp16_roundoffs}).first.exit_code == 1);
  const auto [f2_as_bf16, f2_as_bf16_text] = validate("o16.npy", {"--output-dtype", "bfloat16"});
  CHECK(f2_as_bf16.exit_code == 2);
  CHECK_THAT(f2_as_bf16.stderr_text, Contains("stored as float16 ('<f2'), which cannot hold --output-dtype bfloat16"));
}

TEST_CASE("validate honours --rtol and --atol", "[validate][cli]") {
  TempFolder folder("ecosim_validate_rtol");
  const ecoformer::NpyArray out = msa_output(folder);
  std::vector<float> moved = out.data;
  const float max_ref = max_abs(out.data), shift = 1e-3f * max_ref;
  moved[5] += shift;  // beyond the float32 default (≈1e-5), well within 1e-2
  write_bytes(folder / "moved.npy", ecoformer::npy_bytes(kShape, moved));
  const auto validate = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"validate", "--params", "saved", "--output", "moved.npy"};
    args.insert(args.end(), extra.begin(), extra.end());
    return ecosim_in(folder, args);
  };
  CHECK(validate({}).first.exit_code == 1);
  const auto [loose, loose_text] = validate({"--rtol", "1e-2"});
  CHECK(loose.exit_code == 0);
  CHECK_THAT(loose_text, Contains("rtol, atol         1.000e-02, 0.000e+00  (rtol given)"));
  CHECK(ecosim_in(folder, {"validate", "--params", "saved", "--output", "o.npy", "--rtol", "0"}).first.exit_code ==
        0);  // the kernel's own output: error 0
  // atol alone: the max criterion max |d| ≤ atol decides (the RMS error is √(1/n) of it).
  const double max_error = double{moved[5]} - out.data[5];
  CHECK(validate({"--rtol", "0", "--atol", fmt::format("{:.9e}", max_error * 1.01)}).first.exit_code == 0);
  CHECK(validate({"--rtol", "0", "--atol", fmt::format("{:.9e}", max_error * 0.99)}).first.exit_code == 1);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--rtol", "-1"}, std::vector<std::string>{"--atol", "nan"},
        std::vector<std::string>{"--output-dtype", "float64"}})
    CHECK(validate(bad).first.exit_code == 2);
}

TEST_CASE("run --save-inputs writes the inputs and parameters validate --params computes with", "[validate][cli]") {
  using Files = std::vector<std::string>;
  // Reformer in chunks of 8, so that its buckets (from the rotations) decide which keys a query sees.
  const auto [variant, files, options] =
      GENERATE(std::tuple<std::string, Files, Files>{"msa", {}, {}},
               std::tuple<std::string, Files, Files>{"performer", {"omega"}, {}},
               std::tuple<std::string, Files, Files>{"linformer", {"length_projection"}, {}},
               std::tuple<std::string, Files, Files>{"reformer", {"rotations"}, {"--chunk", "8"}},
               std::tuple<std::string, Files, Files>{"ecoformer", {"anchors", "projection"}, {}},
               std::tuple<std::string, Files, Files>{"lsh-ecoformer", {"projection"}, {}},
               std::tuple<std::string, Files, Files>{"bi-ecoformer", {}, {}});
  TempFolder folder("ecosim_save_inputs_" + variant);
  // Seed 9: validate --params has no --seed, so a pass shows it read the parameters rather than drawing them.
  std::vector<std::string> run = {"run", "--variant", variant, "--batch",       "1",    "--heads",
                                  "2",   "--seq",     "40",    "--dim",         "16",   "--seed",
                                  "9",   "--output",  "o.npy", "--save-inputs", "saved"};
  run.insert(run.end(), options.begin(), options.end());
  REQUIRE(ecosim_in(folder, run).first.exit_code == 0);
  std::vector<std::string> expected = {"k.npy", "manifest.json", "q.npy", "v.npy"};
  for (const std::string& f : files) expected.push_back(f + ".npy");
  std::sort(expected.begin(), expected.end());
  std::vector<std::string> written;
  for (const auto& entry : fs::directory_iterator(folder / "saved"))
    written.push_back(entry.path().filename().string());
  std::sort(written.begin(), written.end());
  CHECK(written == expected);  // and no temporary left behind

  const nlohmann::json manifest = manifest_of(folder / "saved");
  CHECK(manifest["variant"] == variant);
  CHECK(manifest["seed"] == 9);
  CHECK(manifest["files"].size() == 3 + files.size());
  for (const nlohmann::json& entry : manifest["files"]) {
    const ecoformer::NpyArray a = ecoformer::read_npy(folder / ("saved/" + entry["file"].get<std::string>()));
    CHECK(nlohmann::json(a.shape) == entry["shape"]);
    CHECK(entry["dtype"] == "float32");
  }
  const auto [same, text] = ecosim_in(folder, {"validate", "--params", "saved", "--output", "o.npy"});
  CHECK(same.exit_code == 0);
  CHECK_THAT(text, Contains("max_abs_error      0.000e+00") && Contains("parameters from saved") && Contains("PASS"));
  // The seeded path draws seed 0's parameters: another reference, so the seed-9 output fails there.
  std::vector<std::string> seeded = {"validate", "--variant", variant, "--input", "saved/q.npy,saved/k.npy,saved/v.npy",
                                     "--output", "o.npy"};
  seeded.insert(seeded.end(), options.begin(), options.end());
  if (!files.empty()) CHECK(ecosim_in(folder, seeded).first.exit_code == 1);
}

TEST_CASE("a causal run's saved inputs validate as causal, and --causal checks a causal output from --input",
          "[validate][cli]") {
  const std::string variant = GENERATE(std::string("msa"), std::string("performer"), std::string("ecoformer"));
  TempFolder folder("ecosim_save_inputs_causal_" + variant);
  REQUIRE(ecosim_in(folder, {"run", "--variant", variant, "--batch", "2", "--heads", "3", "--seq", "37", "--dim", "13",
                             "--causal", "--seed", "5", "--output", "o.npy", "--save-inputs", "saved"})
              .first.exit_code == 0);
  CHECK(manifest_of(folder / "saved")["causal"] == true);
  const auto [saved, text] = ecosim_in(folder, {"validate", "--params", "saved", "--output", "o.npy"});
  CHECK(saved.exit_code == 0);
  CHECK_THAT(text, Contains(", causal, parameters from saved") && Contains("PASS"));
  const std::vector<std::string> seeded = {
      "validate", "--variant", variant,  "--input", "saved/q.npy,saved/k.npy,saved/v.npy",
      "--output", "o.npy",     "--seed", "5"};
  std::vector<std::string> causal = seeded;
  causal.push_back("--causal");
  CHECK(ecosim_in(folder, causal).first.exit_code == 0);
  CHECK(ecosim_in(folder, seeded).first.exit_code == 1);  // a causal output is not bidirectional attention's
  std::vector<std::string> both = {"validate", "--params", "saved", "--output", "o.npy", "--causal"};
  const ChildOutcome refused = ecosim_in(folder, both).first;
  CHECK(refused.exit_code != 0);
  CHECK_THAT(refused.stderr_text, Contains("--causal does not apply to --params"));
}

TEST_CASE("validate --params computes with the parameter files as they are", "[validate][cli]") {
  TempFolder folder("ecosim_params_changed");
  REQUIRE(ecosim_in(folder, {"run", "--variant", "performer", "--seq", "40", "--dim", "16", "--features", "32",
                             "--output", "o.npy", "--save-inputs", "saved"})
              .first.exit_code == 0);
  CHECK(ecosim_in(folder, {"validate", "--params", "saved", "--output", "o.npy"}).first.exit_code == 0);
  ecoformer::NpyArray omega = ecoformer::read_npy(folder / "saved/omega.npy");
  REQUIRE(omega.shape == std::vector<std::uint64_t>{32, 16});
  for (float& w : omega.data) w *= 0.5f;
  write_bytes(folder / "saved/omega.npy", ecoformer::npy_bytes(omega.shape, omega.data));
  CHECK(ecosim_in(folder, {"validate", "--params", "saved", "--output", "o.npy"}).first.exit_code == 1);
}

TEST_CASE("a hostile --params folder is an error naming the file and what was expected", "[validate][cli]") {
  TempFolder folder("ecosim_params_hostile");
  REQUIRE(ecosim_in(folder, {"run", "--variant", "performer", "--seq", "40", "--dim", "16", "--features", "64",
                             "--output", "o.npy", "--save-inputs", "saved"})
              .first.exit_code == 0);
  const std::string omega = folder / "saved/omega.npy", manifest = folder / "saved/manifest.json";
  const std::string omega_bytes = [&] {
    std::ostringstream s;
    s << std::ifstream(omega, std::ios::binary).rdbuf();
    return s.str();
  }();
  const nlohmann::json good = manifest_of(folder / "saved");
  const auto expect_error = [&](const std::string& why, const std::vector<std::string>& args) {
    const auto [outcome, text] = ecosim_in(folder, args);
    CHECK(outcome.exit_code == 2);
    CHECK_THAT(outcome.stderr_text, Contains(why));
  };
  const std::vector<std::string> validate = {"validate", "--params", "saved", "--output", "o.npy"};

  fs::remove(omega);
  expect_error("saved/omega.npy'", validate);
  expect_error("expected omega float32 [64, 16]", validate);
  write_bytes(omega, ecoformer::npy_bytes({32, 16}, std::vector<float>(32 * 16, 0.1f)));
  expect_error("saved/omega.npy: shape [32, 16], expected omega float32 [64, 16]", validate);
  std::string doubles = omega_bytes;
  doubles.replace(doubles.find("<f4"), 3, "<f8");
  write_bytes(omega, doubles);
  expect_error("saved/omega.npy: dtype '<f8' is not little-endian float32", validate);
  fs::remove(omega);
  fs::create_directory(omega);
  expect_error("saved/omega.npy: not a regular file; expected omega float32 [64, 16]", validate);
  fs::remove(omega);
  write_bytes(omega, omega_bytes);
  CHECK(ecosim_in(folder, validate).first.exit_code == 0);

  const auto with_manifest = [&](const nlohmann::json& j, const std::string& why) {
    write_bytes(manifest, j.dump());
    expect_error(why, validate);
  };
  nlohmann::json j = good;
  j["files"][3]["file"] = "../o.npy";
  with_manifest(j, "files[3]: file '../o.npy' is not a plain file name");
  j = good;
  j["files"].erase(3);
  with_manifest(j, "names no file for 'omega' (performer [64, 16]");
  j = good;
  j["files"][3]["shape"] = {64, 8};
  with_manifest(j, "'omega' has shape [64,8], performer with these parameters reads [64, 16]");
  j = good;
  j["files"][3]["dtype"] = "bfloat16";
  with_manifest(j, "saved/omega.npy: dtype float32, but manifest.json says bfloat16");
  j = good;
  j["parameters"].erase("features");
  with_manifest(j, "lacks 'features', which performer reads");
  j = good;
  j["parameters"]["bits"] = 8;
  with_manifest(j, "'bits' is not a parameter of performer");
  j = good;
  j["seq"] = 0;
  with_manifest(j, "'seq' is not a positive integer");
  write_bytes(manifest, std::string(std::size_t{2} << 20, ' '));
  expect_error("manifest.json: larger than 1048576 bytes", validate);
  write_bytes(manifest, "{\"format\": ");
  expect_error("manifest.json: not valid JSON", validate);
  fs::remove(manifest);
  expect_error("no manifest.json", validate);
  write_bytes(manifest, good.dump());

  expect_error("give --input or --params, not both",
               {"validate", "--params", "saved", "--input", "q.npy,k.npy,v.npy", "--output", "o.npy"});
  expect_error("--features does not apply to --params",
               {"validate", "--params", "saved", "--output", "o.npy", "--features", "64"});
  expect_error("--seed does not apply to --params",
               {"validate", "--params", "saved", "--output", "o.npy", "--seed", "1"});
  expect_error("--variant linformer disagrees with saved/manifest.json, which holds performer",
               {"validate", "--params", "saved", "--output", "o.npy", "--variant", "linformer"});
  CHECK(ecosim_in(folder, {"validate", "--params", "saved", "--output", "o.npy", "--variant", "performer"})
            .first.exit_code == 0);
}

TEST_CASE("run --save-inputs refuses a target that is not a folder of regular files, before any work",
          "[validate][cli]") {
  TempFolder folder("ecosim_save_inputs_hostile");
  write_bytes(folder / "file", "x");
  const auto [not_dir, not_dir_text] =
      ecosim_in(folder, {"run", "--variant", "msa", "--seq", "8", "--save-inputs", "file"});
  CHECK(not_dir.exit_code == 2);
  CHECK_THAT(not_dir.stderr_text, Contains("'file' is not a directory"));
  fs::create_directories(folder / "saved/q.npy");
  const auto [q_dir, q_dir_text] =
      ecosim_in(folder, {"run", "--variant", "msa", "--seq", "8", "--save-inputs", "saved"});
  CHECK(q_dir.exit_code == 2);
  CHECK_THAT(q_dir.stderr_text, Contains("saved/q.npy' exists and is not a regular file"));
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(folder / "saved")) left.push_back(entry.path().filename().string());
  CHECK(left == std::vector<std::string>{"q.npy"});  // nothing written beside it
}
