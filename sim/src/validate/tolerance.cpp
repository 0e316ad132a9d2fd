// The tolerances of an attention kernel's output: the fp32 one of each variant and the precision-aware default.
#include "tolerance.hpp"

#include <cmath>
#include <map>
#include <string>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cli {

// fp32 throughout; Performer and the hashed family accumulate over N and F, Reformer's buckets can flip on
// rounding ties; LSA is MSA over its windows.
double kernel_tolerance(AttentionVariant variant) {
  static const std::map<AttentionVariant, double> kTolerance = {
      {AttentionVariant::msa, 1e-5},           {AttentionVariant::linformer, 1e-5},
      {AttentionVariant::lsa, 1e-5},           {AttentionVariant::performer, 1e-4},
      {AttentionVariant::reformer, 1e-4},      {AttentionVariant::ecoformer, 1e-4},
      {AttentionVariant::fp_ecoformer, 1e-4},  {AttentionVariant::bi_ecoformer, 1e-4},
      {AttentionVariant::lsh_ecoformer, 1e-4}, {AttentionVariant::klsh_ecoformer, 1e-4}};
  const auto it = kTolerance.find(variant);
  if (it == kTolerance.end()) throw Error(std::string("no kernel tolerance for ") + std::string(name(variant)));
  return it->second;
}

double unit_roundoff(ecoformer::NpyDtype precision) {
  switch (precision) {
    case ecoformer::NpyDtype::float32: return std::ldexp(1.0, -24);
    case ecoformer::NpyDtype::float16: return std::ldexp(1.0, -11);
    case ecoformer::NpyDtype::bfloat16: return std::ldexp(1.0, -8);
  }
  throw Error("unknown precision");
}

std::uint64_t reduction_length(const AttentionConfig& c) {
  return c.seq + c.head_dim + (c.variant == AttentionVariant::performer ? c.features : 0);
}

double default_rtol(const AttentionConfig& c, ecoformer::NpyDtype precision) {
  return kernel_tolerance(c.variant) +
         unit_roundoff(precision) * (1.0 + std::sqrt(static_cast<double>(reduction_length(c))));
}

}  // namespace ecosim::cli
