// The optimizer step per parameter, as PyTorch's SGD (momentum, weight decay, no dampening) and AdamW compute
// it, and the state each keeps per parameter.
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/primitives.hpp"
#include "training_rules.hpp"

namespace ecosim {

std::string_view name(Optimizer o) { return o == Optimizer::sgd ? "sgd" : "adamw"; }

Optimizer parse_optimizer(std::string_view text) {
  if (text == "sgd") return Optimizer::sgd;
  if (text == "adamw") return Optimizer::adamw;
  throw Error("unknown optimizer '" + std::string(text) + "' (valid: sgd, adamw)");
}

namespace training {

namespace {

struct UpdateRule {
  ops::OpMix per_parameter;
  unsigned tensors;              // read per parameter: the parameter, its gradient and the state
  std::uint64_t state_elements;  // fp32 state per parameter
};

UpdateRule rule(Optimizer o) {
  if (o == Optimizer::sgd)
    // g += wd·p; buf = μ·buf + g; p −= lr·buf
    return {{.mul = 3, .add = 3}, 3, 1};
  // p ·= 1 − lr·wd; m = β1·m + (1−β1)·g; v = β2·v + (1−β2)·g²; p −= (lr/bc1)·m / (√v·(1/√bc2) + ε)
  return {{.mul = 8, .add = 4, .div = 1, .sqrt = 1}, 4, 2};
}

}  // namespace

OpRecord update_record(Optimizer optimizer, std::uint64_t parameters) {
  const UpdateRule r = rule(optimizer);
  OpRecord u = ops::eltwise("optimizer." + std::string(name(optimizer)), std::string(name(optimizer)) + "_update", 1, 1,
                            parameters, DType::fp32, r.per_parameter, r.tensors);
  u.counts.add_written_bytes(DType::fp32, checked_mul(storage_bytes(DType::fp32, parameters), r.state_elements));
  return u;
}

std::uint64_t state_bytes_per_parameter(Optimizer optimizer) {
  return storage_bytes(DType::fp32, rule(optimizer).state_elements);
}

}  // namespace training

}  // namespace ecosim
