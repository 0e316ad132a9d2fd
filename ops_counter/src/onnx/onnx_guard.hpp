// Internal: the schema registry ecosim runs ONNX shape inference with — ONNX's own, except that the
// convolution and pooling schemas check the ranks and attribute lengths their inference indexes by before it
// runs (libonnx 1.12 reads past them on hostile input; found by fuzzing). A failed check leaves the node's
// outputs without shapes, as any node-level inference failure does.
#pragma once
#include <onnx/defs/schema.h>

#include <map>
#include <string>
#include <utility>

namespace ecosim::onnx_import {

class GuardedSchemas : public onnx::ISchemaRegistry {
 public:
  const onnx::OpSchema* GetSchema(const std::string& key, const int max_inclusive_version,
                                  const std::string& domain) const override;

 private:
  mutable std::map<std::pair<std::string, int>, onnx::OpSchema> guarded_;
};

}  // namespace ecosim::onnx_import
