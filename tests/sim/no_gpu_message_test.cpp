// Without a GPU, `ecosim run --device cuda` says so in plain words (issue 18, finding 12): on a machine without
// the NVIDIA driver (found here by loading libcuda.so.1, independently of the probe) the error is "no GPU (no
// NVIDIA driver found; CUDA runtime: ...)", the runtime's "driver version is insufficient" kept as detail only.
// With a GPU the same command runs.
#include <dlfcn.h>

#include <catch2/catch.hpp>

#include "../unique_temp_path.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim_child.hpp"

namespace fs = std::filesystem;
using namespace ecosim;

namespace {

constexpr std::uint64_t kAddressSpaceBytes = std::uint64_t{1} << 44;  // the CUDA runtime reserves address space
constexpr unsigned kSeconds = 120;

bool nvidia_driver_loads() {
  void* library = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (library) ::dlclose(library);
  return library != nullptr;
}

}  // namespace

TEST_CASE("without a GPU, run --device cuda names what is missing, the CUDA error as detail only") {
  const fs::path dir = unique_temp_path("ecosim_no_gpu", "");
  fs::create_directories(dir);
  const ChildOutcome r =
      run_ecosim({"run", "--variant", "msa", "--seq", "64", "--device", "cuda"}, dir, kAddressSpaceBytes, kSeconds);
  fs::remove_all(dir);
  INFO(r.stderr_text);
  if (gpu::probe().available) {
    CHECK(r.exit_code == 0);
    return;
  }
  CHECK(r.exit_code == 2);
  const std::string prefix = "ecosim run: error: --device cuda: no GPU (";
  CHECK_THAT(r.stderr_text, Catch::StartsWith(prefix));
  if (!gpu::built_with_cuda()) {
    CHECK_THAT(r.stderr_text, Catch::StartsWith(prefix + "built without CUDA"));
  } else if (!nvidia_driver_loads()) {
    CHECK_THAT(r.stderr_text, Catch::StartsWith(prefix + "no NVIDIA driver found; CUDA runtime: "));
  }
}
