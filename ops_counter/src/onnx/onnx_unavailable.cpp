// import_onnx / parse_onnx when ecosim is built without ONNX (ECOSIM_ONNX=OFF, or AUTO without libonnx-dev).
#include "ecosim/ops_counter/onnx_model.hpp"

namespace ecosim {

namespace {
[[noreturn]] void unavailable() {
  throw Error(
      "ecosim was built without ONNX support (install libonnx-dev and libprotobuf-dev, configure with "
      "-DECOSIM_ONNX=ON)");
}
}  // namespace

bool onnx_supported() { return false; }
OnnxModel parse_onnx(std::string_view, const std::string&, const OnnxImportOptions&) { unavailable(); }
OnnxModel import_onnx(const std::string&, const OnnxImportOptions&) { unavailable(); }

}  // namespace ecosim
