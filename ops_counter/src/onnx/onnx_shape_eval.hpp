// Internal: the shape evaluator — a partial evaluator over an ONNX graph that gives every tensor it can a static
// shape, folding the small tensors an export computes its shapes with (Shape, Gather, Concat, Slice, Range, ...)
// from static shapes and inline constants. ops_counter/README.md, "ONNX import", lists its ops and limits.
#pragma once
#include <set>
#include <string>

#include "onnx_graph.hpp"

namespace ecosim::onnx_import {

/// Walks graph.nodes (topologically sorted) once: every output whose shape follows from its inputs' shapes and
/// values gets it (graph.tensors[·].dims), every output whose value follows from constants is folded (added to
/// graph.folded: computing it costs the network nothing), and every output left unknown records in
/// graph.blocked_by the input that kept it so. Returns the tensors given a shape they did not have before.
/// Throws ecosim::Error naming `origin` and the node for a shape computation that is wrong whatever the inputs (a
/// Range of more than kMaxDimension elements, an index out of range, a division by zero, a shape contradicting
/// the one the file declares).
std::set<std::string> evaluate_shapes(Graph& graph, const std::string& origin);

/// Why `tensor` has no static shape: the chain of ops that feeds it back to the first unknown, e.g.
/// "Slice ← Concat ← Unsqueeze ← Gather ← Shape ← 'x': a graph input without a static shape".
std::string unknown_shape_chain(const Graph& graph, const std::string& tensor);

}  // namespace ecosim::onnx_import
