// GuardedSchemas: convolution and pooling shape inference behind checks of the ranks and attribute lengths.
#include "onnx_guard.hpp"

#include <onnx/defs/shape_inference.h>

#include <set>

namespace ecosim::onnx_import {

namespace {

const std::set<std::string> kWeighted = {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv"};
const std::set<std::string> kPooling = {"AveragePool", "MaxPool", "LpPool", "MaxUnpool", "MaxRoundsPool"};

/// Throws onnx::InferenceError unless input 0 (and the weights of a convolution) have a known shape of one rank
/// r ≥ 3, and kernel_shape, strides, dilations, output_padding have r − 2 entries and pads 2(r − 2).
void check_conv_pool(onnx::InferenceContext& ctx, const std::string& op) {
  if (ctx.getNumInputs() < 1 || !onnx::hasInputShape(ctx, 0)) fail_shape_inference(op, ": input without a shape");
  const int rank = onnx::getInputShape(ctx, 0).dim_size();
  if (rank < 3) fail_shape_inference(op, ": input of rank ", rank);
  if (kWeighted.contains(op)) {
    const std::size_t w = op == "QLinearConv" ? 3 : 1;
    if (ctx.getNumInputs() <= w || !onnx::hasInputShape(ctx, w) || onnx::getInputShape(ctx, w).dim_size() != rank)
      fail_shape_inference(op, ": weights without a shape of the input's rank");
  }
  for (const char* name : {"kernel_shape", "strides", "dilations", "output_padding", "pads"}) {
    const onnx::AttributeProto* a = ctx.getAttribute(name);
    const int expected = std::string(name) == "pads" ? 2 * (rank - 2) : rank - 2;
    if (a && a->ints_size() != expected) fail_shape_inference(op, ": ", name, " has ", a->ints_size(), " entries");
  }
}

}  // namespace

const onnx::OpSchema* GuardedSchemas::GetSchema(const std::string& key, const int max_inclusive_version,
                                                const std::string& domain) const {
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(key, max_inclusive_version, domain);
  if (!schema || (!kWeighted.contains(key) && !kPooling.contains(key))) return schema;
  auto it = guarded_.find({key, schema->SinceVersion()});
  if (it == guarded_.end()) {
    onnx::OpSchema guarded = *schema;
    const onnx::InferenceFunction original = schema->GetTypeAndShapeInferenceFunction();
    guarded.TypeAndShapeInferenceFunction([original, key](onnx::InferenceContext& ctx) {
      check_conv_pool(ctx, key);
      if (original) original(ctx);
    });
    it = guarded_.emplace(std::pair{key, schema->SinceVersion()}, std::move(guarded)).first;
  }
  return &it->second;
}

}  // namespace ecosim::onnx_import
