// AtomicFile: the target appears only on commit, and unwritable folders are reported.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/traces/atomic_file.hpp"
#include "../unique_temp_path.hpp"

using namespace ecosim;
namespace fs = std::filesystem;

TEST_CASE("atomic file replaces the target only on commit") {
  const fs::path path = unique_temp_path("ecosim_atomic", ".txt");
  write_file_atomically(path.string(), "old");
  {
    AtomicFile f(path.string());
    f.stream() << "new";
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    CHECK(text == "old");  // not yet committed
  }
  std::ifstream in(path);
  CHECK(std::string((std::istreambuf_iterator<char>(in)), {}) == "old");
  write_file_atomically(path.string(), "new");
  std::ifstream again(path);
  CHECK(std::string((std::istreambuf_iterator<char>(again)), {}) == "new");
  fs::remove(path);
}

TEST_CASE("a missing folder is a clear error") {
  CHECK_THROWS_WITH(AtomicFile("/nonexistent-dir/x.json"), Catch::Contains("cannot write '/nonexistent-dir/x.json'"));
}
