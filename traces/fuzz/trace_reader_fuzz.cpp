// libFuzzer target: the trace reader (versions 1 and 2) must accept or reject any input with ecosim::Error,
// never crash. Seeds: one-record traces the build writes, and seeds/ (v1 hash and attention, v2 groups).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ecosim/traces/trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    ecosim::trace::parse(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const ecosim::Error&) {}
  return 0;
}
