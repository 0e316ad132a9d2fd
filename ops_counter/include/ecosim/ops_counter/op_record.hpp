// OpRecord, one operation as kernels, the op counter and traces see it, and OpSink, the interface that
// receives them (the op counter and the trace writer are sinks; kernels report to one as they run).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/op_counts.hpp"

namespace ecosim {

/// How counts are attributed: `exact` = every operation the algorithm performs; `paper` = the EcoFormer
/// authors' convention (mmcv MACs for the base network, DESIGN §3 formulas inside attention).
enum class Convention : std::uint8_t { paper, exact };
std::string_view name(Convention c);
Convention parse_convention(std::string_view text);  // throws ecosim::Error

/// The operation classes the accelerator knows how to execute. Shape fields (see traces/README.md):
///   gemm                C[batch][m×n] = A[batch][m×k] · B[batch][k×n]
///   popcount_accumulate same shape, A is b-bit binary codes (±1): products become additions/subtractions
///   eltwise             batch·m·n independent elements (k = 1)
///   reduce              batch·m rows, each reducing n elements
///   memcpy              batch·m·n elements moved, no arithmetic
///   conv                a direct 2-D convolution of batch images, its geometry in params (conv_shape.hpp);
///                       m = output pixels, n = output channels, k = (input channels/groups)·kernel area
enum class OpClass : std::uint8_t { gemm, popcount_accumulate, eltwise, reduce, memcpy, conv };
std::string_view name(OpClass c);
std::optional<OpClass> parse_op_class(std::string_view text);

struct OpRecord {
  std::string name;  // layer path, e.g. "stage1.block0.attn.scores"
  OpClass kind = OpClass::gemm;
  std::string func;  // what an eltwise/reduce computes: "softmax", "gelu", "rbf_kernel", ...
  std::uint64_t batch = 1, m = 1, n = 1, k = 1;
  DType a_dtype = DType::fp32;                  // first operand (codes for popcount_accumulate)
  DType b_dtype = DType::fp32;                  // second operand (equal to a_dtype for single-operand ops)
  std::map<std::string, std::uint64_t> params;  // kind-specific extras
  /// Fusion group, a layer path like `name` ("" = none): consecutive records with one group form a unit the
  /// accelerator may map as one (softmax attention: its scores, scale, softmax and context records).
  std::string group;
  OpCounts counts;

  /// params[key], 0 where the record has none.
  std::uint64_t param(std::string_view key) const;

  friend bool operator==(const OpRecord&, const OpRecord&) = default;
};

class OpSink {
 public:
  virtual ~OpSink() = default;
  virtual void record(const OpRecord& op) = 0;
};

}  // namespace ecosim
