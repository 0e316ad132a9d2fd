// libFuzzer target: a model zoo file parses or fails with ecosim::Error, and so does building every model it
// defines, with the default attention and with the models' own; the zoo's limits keep each build small.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const ecosim::ModelZoo zoo =
        ecosim::ModelZoo::parse(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    for (const std::string& model : zoo.names())
      for (const bool native : {false, true}) {
        ecosim::ModelOptions options;
        options.native_attention = native;
        try {
          zoo.build(model, options);
        } catch (const ecosim::Error&) {}
      }
  } catch (const ecosim::Error&) {}
  return 0;
}
