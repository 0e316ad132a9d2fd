// Tests of the ONNX importer skip (CTest: "SKIPPED:") when ecosim was built without ONNX support.
#pragma once
#include <catch2/catch.hpp>

#include "ecosim/ops_counter/onnx_model.hpp"

#define ECOSIM_ONNX_OR_SKIP()                                        \
  do {                                                               \
    if (!ecosim::onnx_supported()) {                                 \
      WARN("SKIPPED: built without ONNX support (ECOSIM_ONNX=OFF)"); \
      return;                                                        \
    }                                                                \
  } while (false)
