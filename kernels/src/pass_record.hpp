// Internal: the op-record shell of one compression pass (an eltwise record over n elements) and the
// arithmetic of per-group affine dequantization, shared by the ActNN and Mesa record builders.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::kernels {

inline OpRecord pass_record(std::string name, std::string func, std::uint64_t n, DType input,
                            std::map<std::string, std::uint64_t> params) {
  OpRecord r;
  r.name = std::move(name);
  r.kind = OpClass::eltwise;
  r.func = std::move(func);
  r.n = n;
  r.a_dtype = r.b_dtype = input;
  r.params = std::move(params);
  return r;
}

/// code·(range/B) + offset: one multiplication and one addition per element, one division per group.
inline OpCounts affine_dequantize_counts(std::uint64_t n, std::uint64_t groups) {
  OpCounts c;
  c.add(OpKind::mul, DType::fp32, n).add(OpKind::add, DType::fp32, n).add(OpKind::div, DType::fp32, groups);
  return c;
}

}  // namespace ecosim::kernels
