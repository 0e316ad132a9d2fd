// Weights an exporter stored twice: a tied table (an embedding the LM head reuses) written again, transposed, as
// a separate initializer by constant folding (torch's F.linear(x, embed.weight) becomes x @ a folded Wᵀ).
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <string>

namespace ecosim::onnx_import {

/// copy → source for each 2-D floating initializer of at least 4,096 elements whose stored bytes are exactly
/// another's transposed (both with raw data; a tensor whose elements are all equal — zeros, a stripped weight —
/// proves nothing and is left), comparing at most 2^28 elements in all (a hostile file stays linear in its size).
std::map<std::string, std::string> transposed_copies(const onnx::GraphProto& g);

}  // namespace ecosim::onnx_import
