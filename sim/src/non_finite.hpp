// Internal: how many values of an output are NaN or ±Inf (a kernel's output or a user's array is checked for them
// before any error is measured against it).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ecosim::cli {

inline std::uint64_t count_non_finite(const std::vector<float>& x) {
  return static_cast<std::uint64_t>(std::count_if(x.begin(), x.end(), [](float v) { return !std::isfinite(v); }));
}

}  // namespace ecosim::cli
