// `ecosim run --output` and `ecosim validate --variant V --input q,k,v --output mine.npy`, as child processes:
// the written output is the kernel's (MSA's equals softmax attention computed here) and validates against
// itself with error 0; one value moved by ten times the variant's tolerance fails with exit 1, by a tenth
// of it passes; NaN and Inf fail with their count; a wrong shape or dtype is an error (exit 2); for a
// hashed variant (ecoformer) and a baseline (msa). Other parameters fail; a missing option, --suite beside
// --output, --bits with --suite, --device with --output, a count-only variant and a reference above
// --max-memory-gb are errors.
#include <fmt/core.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "../traces/temp_folder.hpp"
#include "ecosim/ecoformer/npy.hpp"
#include "ecosim/ecoformer/reference.hpp"
#include "ecosim_child.hpp"
#include "tolerance.hpp"

using namespace ecosim;
using Catch::Matchers::Contains;

namespace {

constexpr std::uint64_t kAddressSpaceBytes = std::uint64_t{2} << 30;
constexpr unsigned kSeconds = 120;
const std::vector<std::uint64_t> kShape = {1, 2, 40, 16};  // [batch, heads, seq, dim]

std::pair<ChildOutcome, std::string> ecosim_in(const TempFolder& folder, const std::vector<std::string>& args) {
  return run_ecosim_with_stdout(args, folder / "", kAddressSpaceBytes, kSeconds);
}

void write_npy(const std::string& path, const std::vector<std::uint64_t>& shape, const std::vector<float>& data) {
  std::ofstream(path, std::ios::binary) << ecoformer::npy_bytes(shape, data);
}

/// q.npy, k.npy, v.npy of kShape, standard normal from a fixed seed.
void write_inputs(const TempFolder& folder) {
  std::mt19937_64 rng(11);
  std::normal_distribution<float> normal;
  for (const char* name : {"q.npy", "k.npy", "v.npy"}) {
    std::vector<float> x(kShape[0] * kShape[1] * kShape[2] * kShape[3]);
    for (float& value : x) value = normal(rng);
    write_npy(folder / name, kShape, x);
  }
}

ecoformer::Tensor tensor(const ecoformer::NpyArray& a) {
  return {a.shape[0], a.shape[1], a.shape[2], a.shape[3], a.data};
}

}  // namespace

TEST_CASE("run --output writes the kernel output that validate --output accepts", "[validate][cli]") {
  const auto [variant, parameters] =
      GENERATE(std::pair<std::string, std::vector<std::string>>{"msa", {}},
               std::pair<std::string, std::vector<std::string>>{"ecoformer", {"--bits", "8"}});
  TempFolder folder("ecosim_validate_output_" + variant);
  write_inputs(folder);
  std::vector<std::string> run_args = {"run",      "--variant", variant, "--input", "q.npy,k.npy,v.npy",
                                       "--output", "o.npy"};
  run_args.insert(run_args.end(), parameters.begin(), parameters.end());
  REQUIRE(ecosim_in(folder, run_args).first.exit_code == 0);
  CHECK(folder.entries() ==
        std::vector<std::string>{"k.npy", "o.npy", "q.npy", "stdout.txt", "v.npy"});  // no temporary
  const ecoformer::NpyArray out = ecoformer::read_npy(folder / "o.npy");
  REQUIRE(out.shape == kShape);
  if (variant == "msa") {
    const auto read = [&](const char* name) { return tensor(ecoformer::read_npy(folder / name)); };
    const auto exact = ecoformer::naive_softmax_attention(read("q.npy"), read("k.npy"), read("v.npy")).data;
    CHECK(ecoformer::max_relative_error(out.data, exact) < 1e-5);
  }

  const auto validate = [&](const std::string& mine) {
    std::vector<std::string> args = {"validate",          "--variant", variant, "--input",
                                     "q.npy,k.npy,v.npy", "--output",  mine};
    args.insert(args.end(), parameters.begin(), parameters.end());
    return ecosim_in(folder, args);
  };
  const auto [same, same_text] = validate("o.npy");
  CHECK(same.exit_code == 0);
  CHECK_THAT(same_text,
             Contains("max_abs_error      0.000e+00") && Contains("rel_frobenius      0.000e+00") && Contains("PASS"));

  // One value moved by a multiple of tolerance × max |ref|: the max-abs criterion decides.
  const double tolerance = cli::kernel_tolerance(attention_variant_named(variant));
  float max_ref = 0;
  for (float x : out.data) max_ref = std::max(max_ref, std::abs(x));
  for (const auto& [factor, expected_exit] : {std::pair{10.0, 1}, std::pair{0.1, 0}}) {
    std::vector<float> moved = out.data;
    moved[17] += static_cast<float>(factor * tolerance * max_ref);
    write_npy(folder / "moved.npy", kShape, moved);
    const auto [outcome, text] = validate("moved.npy");
    CHECK(outcome.exit_code == expected_exit);
    CHECK_THAT(text, Contains(expected_exit == 0 ? "PASS" : "FAIL"));
  }

  std::vector<float> bad = out.data;
  bad[3] = std::numeric_limits<float>::quiet_NaN();
  bad[5] = std::numeric_limits<float>::infinity();
  write_npy(folder / "nan.npy", kShape, bad);
  const auto [nan, nan_text] = validate("nan.npy");
  CHECK(nan.exit_code == 1);
  CHECK_THAT(nan_text, Contains("non_finite         2") && Contains("FAIL (2 NaN/Inf values)"));

  write_npy(folder / "short.npy", {1, 2, 39, 16}, std::vector<float>(out.data.begin(), out.data.end() - 32));
  const auto [shape, shape_text] = validate("short.npy");
  CHECK(shape.exit_code == 2);
  CHECK_THAT(shape.stderr_text, Contains("shape [1, 2, 39, 16] differs from the reference's [1, 2, 40, 16]"));

  std::string doubles = ecoformer::npy_bytes(kShape, out.data);
  doubles.replace(doubles.find("<f4"), 3, "<f8");
  std::ofstream(folder / "f8.npy", std::ios::binary) << doubles;
  const auto [dtype, dtype_text] = validate("f8.npy");
  CHECK(dtype.exit_code == 2);
  CHECK_THAT(dtype.stderr_text, Contains("is not little-endian float32"));
}

TEST_CASE("validate --output compares with the reference of the parameters given", "[validate][cli]") {
  TempFolder folder("ecosim_validate_output_bits");
  write_inputs(folder);
  REQUIRE(ecosim_in(folder, {"run", "--variant", "ecoformer", "--input", "q.npy,k.npy,v.npy", "--output", "o.npy",
                             "--bits", "8"})
              .first.exit_code == 0);
  const auto [other_bits, text] = ecosim_in(folder, {"validate", "--variant", "ecoformer", "--input",
                                                     "q.npy,k.npy,v.npy", "--output", "o.npy", "--bits", "4"});
  CHECK(other_bits.exit_code == 1);
  CHECK_THAT(text, Contains("FAIL"));
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"validate", "--variant", "ecoformer", "--output", "o.npy"},
           {"validate", "--suite", "attention", "--variant", "msa", "--input", "q.npy,k.npy,v.npy", "--output",
            "o.npy"},
           {"validate", "--variant", "sra", "--input", "q.npy,k.npy,v.npy", "--output", "o.npy"},
           {"validate", "--suite", "attention", "--bits", "8"},
           {"validate", "--variant", "msa", "--input", "q.npy,k.npy,v.npy", "--output", "o.npy", "--device", "cpu"},
           {"validate", "--variant", "msa", "--input", "q.npy,k.npy,v.npy", "--output", "o.npy", "--max-memory-gb",
            "0.000001"}})
    CHECK(ecosim_in(folder, args).first.exit_code == 2);
}
