// libFuzzer target: the trace reader must accept or reject any input with ecosim::Error, never crash.
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
