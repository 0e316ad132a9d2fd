// libFuzzer target: the .npy reader accepts or rejects any bytes with ecosim::Error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ecosim/ecoformer/npy.hpp"
#include "ecosim/ops_counter/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    ecosim::ecoformer::parse_npy(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const ecosim::Error&) {}
  return 0;
}
