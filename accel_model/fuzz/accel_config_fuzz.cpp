// libFuzzer target: an accelerator configuration is accepted or rejected with ecosim::Error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/ops_counter/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    ecosim::accel::parse_config(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const ecosim::Error&) {}
  return 0;
}
