// The hostile-input suite: ≥ 40 invocations of every subcommand with input meant to harm — shell
// metacharacters in paths, device files and odd outputs, deeply nested and duplicate-key JSON, implausible
// configurations, records describing enormous work, inapplicable or contradictory flags, corrupt .npy files.
// Each runs as a child under an address-space limit and an alarm; each must end by exiting (no signal:
// no crash, no hang), with exit code 2 and a clear message where it is refused, inside the memory bound,
// leaving no file behind that was not there before, and device files intact.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <set>

#include "../unique_temp_path.hpp"
#include "ecosim_child.hpp"

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kAddressSpaceBytes = std::uint64_t{2} << 30;  // every case runs within 2 GiB
constexpr unsigned kSeconds = 120;

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

/// `open` × depth, then `center`, then `close` × depth: e.g. {"a":{"a":...1...}}.
std::string nested(const std::string& open, const std::string& center, const std::string& close, int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += open;
  s += center;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

std::string trace_header(const std::string& workload = "{}") {
  return R"({"record":"header","format":"ecosim-trace","version":1,"producer":"test","convention":"exact","workload":)" +
         workload + "}\n";
}

/// One legal record describing an elementwise op over 2^40 × 2^20 elements.
std::string huge_eltwise_trace() {
  return trace_header() +
         R"({"record":"op","name":"huge","kind":"eltwise","batch":1099511627776,"m":1048576,"n":1,"k":1,)"
         R"("a_dtype":"fp32","b_dtype":"fp32","ops":{"add":{"fp32":1000000000000000}},)"
         R"("bytes_read":{"fp32":4000000000000000},"bytes_written":{"fp32":4000000000000000}})"
         "\n"
         R"({"record":"end","ops":1})"
         "\n";
}

/// A small legal trace (one GEMM).
std::string small_trace() {
  return trace_header() +
         R"({"record":"op","name":"g","kind":"gemm","batch":1,"m":8,"n":8,"k":8,"a_dtype":"fp32","b_dtype":"fp32",)"
         R"("ops":{"mul":{"fp32":512},"add":{"fp32":448}},"bytes_read":{"fp32":512},"bytes_written":{"fp32":256}})"
         "\n"
         R"({"record":"end","ops":1})"
         "\n";
}

/// A .npy file whose header claims `shape` but carries `data_bytes` bytes of data.
std::string npy(const std::string& shape, std::size_t data_bytes) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + "), }";
  dict.resize(118, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += char(dict.size() & 0xff);
  out += char(dict.size() >> 8);
  return out + dict + std::string(data_bytes, '\0');
}

struct Case {
  std::string name;
  std::vector<std::string> args;
  std::string message;  // expected in stderr; empty: the case must succeed
  std::function<void(const fs::path&)> setup = {};
  std::set<std::string> outputs = {};  // files a successful case may add
};

const std::string kSmallLayer[] = {"--variants", "msa,ecoformer", "--batch", "1",         "--seq",
                                   "64",         "--dim",         "8",       "--support", "8"};

std::vector<std::string> compare_small(std::vector<std::string> more) {
  std::vector<std::string> args = {"compare"};
  args.insert(args.end(), std::begin(kSmallLayer), std::end(kSmallLayer));
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

/// `ecosim replay` of a small trace with the accelerator config `config_json`, refused with `message`.
Case bad_accel_config(std::string name, std::string config_json, std::string message) {
  return {std::move(name),
          {"replay", "t.jsonl", "--accel-config", "c.json"},
          std::move(message),
          [config_json](const fs::path& d) {
            write_text(d / "c.json", config_json);
            write_text(d / "t.jsonl", small_trace());
          }};
}

std::vector<Case> cases() {
  auto file = [](std::string name, std::string text) {
    return [name, text](const fs::path& dir) { write_text(dir / name, text); };
  };
  return {
      // Paths are names, never shell text.
      {"shell metacharacters in --out",
       compare_small({"--out", "q'x; touch PWNED; echo '"}),
       "",
       {},
       {"q'x; touch PWNED; echo '"}},
      {"command substitution in -o",
       {"trace", "--model", "pvt_v2_b0", "-o", "$(touch PWNED).jsonl"},
       "",
       {},
       {"$(touch PWNED).jsonl"}},
      {"leading dash output name", {"trace", "--model", "pvt_v2_b0", "-o", "./-x.jsonl"}, "", {}, {"-x.jsonl"}},
      // Outputs that are not regular files.
      {"output is a directory",
       {"trace", "--model", "pvt_v2_b0", "-o", "adir"},
       "directory",
       [](const fs::path& d) { fs::create_directory(d / "adir"); }},
      {"FIFO output nobody reads",
       {"trace", "--model", "pvt_v2_b0", "-o", "pipe"},
       "no process is reading",
       [](const fs::path& d) { ::mkfifo((d / "pipe").c_str(), 0600); }},
      {"output folder missing", {"trace", "--model", "pvt_v2_b0", "-o", "missing/x.jsonl"}, "cannot write"},
      {"empty output path", {"trace", "--model", "pvt_v2_b0", "-o", ""}, "output"},
      {"output under a regular file", compare_small({"--out", "plain/reports"}), "plain", file("plain", "x")},
      {"timeline into a directory",
       {"replay", "t.jsonl", "--timeline", "adir"},
       "directory",
       [](const fs::path& d) {
         fs::create_directory(d / "adir");
         write_text(d / "t.jsonl", small_trace());
       }},
      // JSON nesting, duplicates, syntax.
      {"trace header nested 100,000 deep",
       {"count", "--trace", "deep.jsonl"},
       "nested",
       file("deep.jsonl", trace_header(nested("{\"a\":", "1", "}", 100000)))},
      {"trace record nested 100,000 deep",
       {"replay", "deep.jsonl"},
       "nested",
       file("deep.jsonl", trace_header() + nested("[", "", "]", 100000) + "\n")},
      bad_accel_config("accelerator config nested 100,000 deep", nested("{\"array\":", "1", "}", 100000), "nested"),
      bad_accel_config("accelerator config of 10 MB of '['", std::string(10'000'000, '['), "nested"),
      {"tech table nested 100,000 deep",
       {"count", "--model", "pvt_v2_b0", "--tech-table", "deep.json"},
       "nested",
       file("deep.json", nested("[", "", "]", 100000))},
      bad_accel_config("duplicate key in a config", R"({"clock_mhz": 500, "clock_mhz": 1})", "duplicate"),
      {"duplicate key in a trace record",
       {"count", "--trace", "dup.jsonl"},
       "duplicate",
       file("dup.jsonl", trace_header() + R"({"record":"end","ops":0,"ops":0})"
                                          "\n")},
      bad_accel_config("config that is not JSON", "clock_mhz = 5", "not valid JSON"),
      {"binary garbage as a trace",
       {"count", "--trace", "garbage.jsonl"},
       "error",
       file("garbage.jsonl", std::string("\x00\xff\xfe\x01\x80garbage", 12))},
      {"empty trace", {"replay", "empty.jsonl"}, "empty", file("empty.jsonl", "")},
      {"truncated trace",
       {"count", "--trace", "cut.jsonl"},
       "truncated",
       file("cut.jsonl", small_trace().substr(0, small_trace().rfind("{\"record\":\"end\"")))},
      {"shape beyond 2^40",
       {"count", "--trace", "big.jsonl"},
       "2^40",
       file(
           "big.jsonl",
           trace_header() +
               R"({"record":"op","name":"g","kind":"gemm","batch":2199023255552,"m":1,"n":1,"k":1,"a_dtype":"fp32","b_dtype":"fp32","ops":{},"bytes_read":{},"bytes_written":{}})"
               "\n")},
      {"a 4 MB line",
       {"count", "--trace", "long.jsonl"},
       "line",
       file("long.jsonl", trace_header() + R"({"record":"op","name":")" + std::string(4 << 20, 'a') + "\"}\n")},
      {"endless input (/dev/zero)", {"count", "--trace", "/dev/zero"}, "line"},
      // Implausible configurations.
      bad_accel_config("clock of 1e-300 MHz", R"({"clock_mhz": 1e-300})", "clock_mhz"),
      bad_accel_config("negative DRAM energy", R"({"dram": {"pj_per_bit": -1}})", "dram.pj_per_bit"),
      bad_accel_config("unknown config key", R"({"array": {"rowz": 4}})", "unknown key"),
      {"--accel and --accel-config together",
       {"replay", "t.jsonl", "--accel", "bitfusion-45nm", "--accel-config", "c.json"},
       "not both",
       [](const fs::path& d) {
         write_text(d / "c.json", "{}");
         write_text(d / "t.jsonl", small_trace());
       }},
      {"unknown accelerator",
       {"replay", "t.jsonl", "--accel", "tpu-v9"},
       "unknown accelerator 'tpu-v9' (built in: bitfusion-45nm); or give --accel-config FILE",
       file("t.jsonl", small_trace())},
      // Enormous work described by small input.
      // Walked tile by tile, 2^60 elements are refused; fast-forward (the default) passes over their alike tiles.
      {"581-byte record of 2^60 elements (replay, walked)",
       {"replay", "huge.jsonl", "--accel-config", "walk.json"},
       "--max-minutes",
       [](const fs::path& dir) {
         write_text(dir / "huge.jsonl", huge_eltwise_trace());
         write_text(dir / "walk.json", R"({"systemc": {"fast_forward": false}})");
       }},
      {"581-byte record of 2^60 elements (replay)",
       {"replay", "huge.jsonl"},
       "",
       file("huge.jsonl", huge_eltwise_trace())},
      {"581-byte record of 2^60 elements (count)",
       {"count", "--trace", "huge.jsonl"},
       "",
       file("huge.jsonl", huge_eltwise_trace())},
      {"attention kernel of 275 GB", {"run", "--variant", "msa", "--batch", "16", "--seq", "65536"}, "--max-memory-gb"},
      {"compare of 275 GB", {"compare", "--batch", "16", "--seq", "65536", "--variants", "msa"}, "--max-memory-gb"},
      {"compress of 3.6 G elements",
       {"compress", "--scheme", "actnn", "--bits", "2", "--shape", "60000x60000"},
       "--max-memory-gb"},
      {"absurd sequence length", {"count", "--layer", "attention", "--seq", "99999999999"}, "error"},
      // Inapplicable, contradictory or unknown flags.
      {"two traces to replay",
       {"replay", "t.jsonl", "t.jsonl"},
       "unexpected argument 't.jsonl'",
       file("t.jsonl", small_trace())},
      // an empty item of a list: a trailing one was dropped (and an empty list ran MSA alone), a leading one refused
      {"a trailing comma in --variants",
       {"compare", "--variants", "msa,", "--seq", "64"},
       "--variants: an empty item in 'msa,'"},
      {"an empty --variants list",
       {"crossover", "--model", "gpt2_small", "--variants", ""},
       "--variants: an empty item in ''"},
      // a negative seed was read as unsigned: -1 ran as 2^64 - 1, as compress refuses it
      {"a negative run seed",
       {"run", "--variant", "msa", "--seq", "8", "--device", "cpu", "--seed", "-1"},
       "--seed must be ≥ 0, got -1"},
      // an output path left out takes the next option as the path: the run went on without that option
      {"--trace without its path",
       {"run", "--variant", "performer", "--seq", "64", "--trace", "--causal", "--device", "cpu"},
       "--trace takes a value, but got the option '--causal'"},
      {"a value starting with -- given with =",
       {"trace", "--layer", "attention", "--seq", "4", "--output=--x.jsonl"},
       "",
       {},
       {"--x.jsonl"}},
      {"--out without its folder",
       {"compare", "--variants", "msa", "--seq", "64", "--out", "--fuse-attention"},
       "--out takes a value, but got the option '--fuse-attention'"},
      {"--seq with --model", {"count", "--model", "pvt_v2_b0", "--seq", "4"}, "--seq"},
      {"--resolution on a sequence model", {"count", "--model", "lra_text", "--resolution", "224"}, "resolution"},
      {"--seq-len on an image model", {"count", "--model", "pvt_v2_b0", "--seq-len", "100"}, "sequence length"},
      {"--resolution with --layer",
       {"count", "--layer", "attention", "--seq", "64", "--resolution", "224"},
       "--resolution"},
      {"another variant's parameter",
       {"count", "--layer", "attention", "--seq", "64", "--features", "12"},
       "--features"},
      {"--shape with --input",
       {"compress", "--scheme", "actnn", "--bits", "2", "--input", "x.npy", "--shape", "4x4"},
       "--shape",
       file("x.npy", npy("4, 4", 64))},
      {"--groups outside Mesa", {"compress", "--scheme", "actnn", "--bits", "2", "--groups", "3"}, "--groups"},
      {"unknown GPU for the estimate", compare_small({"--gpu", "RTX 9090", "--out", "r"}), "RTX 9090"},
      {"--seq with compare --model", {"compare", "--model", "pvt_v2_b0", "--seq", "5", "--out", "r"}, "--seq"},
      {"a variant twice", {"compare", "--variants", "msa,msa", "--seq", "64", "--out", "r"}, "twice"},
      {"negative memory limit", {"run", "--variant", "msa", "--seq", "8", "--max-memory-gb", "-1"}, "max-memory-gb"},
      {"unknown variant", {"run", "--variant", "flash", "--seq", "8"}, "flash"},
      {"bad format", {"count", "--model", "pvt_v2_b0", "--format", "xml"}, "format"},
      {"unknown suite", {"validate", "--suite", "everything"}, "everything"},
      // Corrupt .npy inputs.
      {"npy shape larger than its data",
       {"run", "--variant", "msa", "--input", "q.npy,q.npy,q.npy"},
       "q.npy",
       file("q.npy", npy("1, 1, 1000000, 1000000", 64))},
      {"npy shape product overflowing",
       {"compress", "--scheme", "actnn", "--bits", "2", "--input", "q.npy"},
       "q.npy",
       file("q.npy", npy("4294967296, 4294967296, 4294967296", 64))},
      {"missing npy", {"run", "--variant", "msa", "--input", "a.npy,b.npy,c.npy"}, "a.npy"},
      {"--scope attention on a network without attention",
       {"count", "--model", "resnet50", "--scope", "attention"},
       "--scope attention: model 'resnet50' has no attention layers"},
      {"Few-Bit past --max-memory-gb (39 bytes an element at its peak)",
       {"compress", "--scheme", "fewbit", "--bits", "2", "--shape", "16x1024x1024", "--max-memory-gb", "0.5"},
       "raise the limit with --max-memory-gb"},
      {"--max-minutes on compress (its time is not estimated: no limit to give)",
       {"compress", "--scheme", "actnn", "--bits", "2", "--shape", "4x4", "--max-minutes", "1"},
       "max-minutes"},
      {"Mesa on an npy with an empty last dimension",
       {"compress", "--scheme", "mesa", "--bits", "8", "--input", "e.npy"},
       "mesa: empty tensor",
       file("e.npy", npy("4, 0", 0))},
  };
}

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("hostile input: every case ends cleanly, within bounds, leaving nothing behind", "[hostile]") {
  const std::vector<Case> all = cases();
  REQUIRE(all.size() >= 40);
  for (const Case& c : all) {
    DYNAMIC_SECTION(c.name) {
      const fs::path dir = unique_temp_path("ecosim_hostile", "");
      fs::remove_all(dir);
      fs::create_directories(dir);
      if (c.setup) c.setup(dir);
      const std::set<std::string> before = listing(dir);
      const ChildOutcome out = run_ecosim(c.args, dir, kAddressSpaceBytes, kSeconds);
      INFO("stderr: " << out.stderr_text);
      CHECK(out.signal == 0);  // no crash, no hang (SIGALRM), no kill
      if (c.message.empty()) {
        CHECK(out.exit_code == 0);
      } else {
        CHECK(out.exit_code == 2);
        CHECK_THAT(out.stderr_text, Catch::Contains("error:") && Catch::Contains(c.message));
      }
      std::set<std::string> after = listing(dir);
      for (const std::string& name : c.outputs) after.erase(name);
      CHECK(after == before);  // no PWNED, no temporary, no partial report
      fs::remove_all(dir);
    }
  }
}

/// A character device node `name` in `dir` (major, minor), or false when this process may not make one.
bool make_device(const fs::path& node, unsigned major, unsigned minor) {
  return ::geteuid() == 0 && ::mknod(node.c_str(), S_IFCHR | 0600, ::makedev(major, minor)) == 0;
}

// Only device nodes made in a temporary folder are used: a defect must never be able to replace the
// machine's own /dev entries.
TEST_CASE("hostile input: device files given as outputs stay devices", "[hostile]") {
  const fs::path dir = unique_temp_path("ecosim_hostile_dev", "");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path null_node = dir / "null_clone", full_node = dir / "full_clone";
  if (!make_device(null_node, 1, 3) || !make_device(full_node, 1, 7)) {
    WARN("SKIPPED: mknod needs root (and a file system that allows device nodes)");
    fs::remove_all(dir);
    return;
  }
  SECTION("a null device is written through and stays a device") {
    const ChildOutcome out =
        run_ecosim({"trace", "--model", "pvt_v2_b0", "-o", null_node.string()}, dir, kAddressSpaceBytes, kSeconds);
    INFO("stderr: " << out.stderr_text);
    CHECK(out.exit_code == 0);
  }
  SECTION("a full device reports the write error and stays a device") {
    const ChildOutcome out =
        run_ecosim({"trace", "--model", "pvt_v2_b0", "-o", full_node.string()}, dir, kAddressSpaceBytes, kSeconds);
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.stderr_text, Catch::Contains("full_clone") && Catch::Contains("No space left"));
  }
  for (const fs::path& node : {null_node, full_node}) {
    struct stat after {};
    REQUIRE(::stat(node.c_str(), &after) == 0);
    CHECK(S_ISCHR(after.st_mode));
    CHECK((after.st_mode & 07777) == 0600);
  }
  CHECK(listing(dir) == std::set<std::string>{"null_clone", "full_clone"});
  fs::remove_all(dir);
}
