// Tests: GPU checks run only where a GPU is present; elsewhere the test prints the "SKIPPED:" line that CTest
// reports as a skip (SKIP_REGULAR_EXPRESSION), or fails when ECOSIM_REQUIRE_GPU=1 says this machine has one.
#pragma once
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string_view>

#include "ecosim/kernels/gpu.hpp"

namespace ecosim::test {

/// True when a GPU can run the kernels; otherwise skips visibly (or fails under ECOSIM_REQUIRE_GPU=1).
inline bool gpu_or_skip() {
  const gpu::Availability a = gpu::probe();
  if (a.available) return true;
  const char* required = std::getenv("ECOSIM_REQUIRE_GPU");
  if (required && std::string_view(required) == "1") FAIL("ECOSIM_REQUIRE_GPU=1 but no GPU (" + a.reason + ")");
  WARN("SKIPPED: no GPU (" + a.reason + ")");
  return false;
}

}  // namespace ecosim::test
