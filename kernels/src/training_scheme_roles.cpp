// Roles of saved tensors per layer kind (an imported attention block's core as the zoo's), and autocast's output
// dtypes: conv, linear, `@` and attention (its projections, an imported block's context product) give fp16; LayerNorm
// and softmax run in fp32 (autocast's fp32 list); a residual add in a network with LayerNorms is fp32 (its stream
// starts from fp32 embeddings and position embeddings, and fp32 + fp16 promotes), else its input's dtype; every other
// layer keeps its input's dtype.

#include "training_scheme_roles.hpp"

namespace ecosim::kernels::schemes {

namespace {

struct RoleOf {
  const std::string& what;

  std::vector<Role> operator()(const Linear&) const { return {Role::linear_input}; }
  std::vector<Role> operator()(const Conv2d&) const { return {Role::conv_input}; }
  std::vector<Role> operator()(const BatchNorm2d&) const { return {what == "stats" ? Role::stats : Role::bn_input}; }
  std::vector<Role> operator()(const LayerNorm&) const { return {what == "stats" ? Role::stats : Role::ln_input}; }
  std::vector<Role> operator()(const Activation& a) const {
    return {a.func == ActivationFunc::relu ? Role::relu_output : Role::act_input};
  }
  std::vector<Role> operator()(const ElementwiseMul&) const { return {Role::mul_operand}; }
  std::vector<Role> operator()(const MeanPool&) const { return {Role::pool_input}; }
  std::vector<Role> operator()(const AvgPool2d&) const { return {Role::pool_input}; }
  std::vector<Role> operator()(const MaxPool2d&) const {
    return {what == "indices" ? Role::indices : Role::maxpool_input};
  }
  std::vector<Role> operator()(const Dropout&) const { return {Role::mask}; }
  /// An imported pool: max keeps its input and argmax as MaxPool2d does, average its input as AvgPool2d.
  std::vector<Role> operator()(const Reduction& r) const {
    if (r.func == "MaxPool") return {what == "indices" ? Role::indices : Role::maxpool_input};
    return {Role::pool_input};
  }
  std::vector<Role> operator()(const DataMovement&) const { return {Role::lookup_ids}; }  // the only tensor it keeps
  std::vector<Role> operator()(const Softmax&) const { return {Role::softmax_output}; }
  std::vector<Role> operator()(const Matmul&) const { return {Role::matmul_operand}; }
  std::vector<Role> operator()(const AttentionConfig& a) const {
    if (what == "input" || what == "context") return {Role::linear_input};
    return core(a.probs_dropout);
  }
  /// An imported attention block: the same core (its projections are the graph's own Linear layers).
  std::vector<Role> operator()(const SoftmaxAttention& a) const { return core(a.probs_dropout); }
  /// The softmax-attention core's tensors: the probabilities a softmax's output (and the context product's operand
  /// unless a dropout's output is that), the dropout's mask, q, k, v and the dropped probabilities the products'.
  std::vector<Role> core(bool probs_dropout) const {
    if (what == "probs")
      return probs_dropout ? std::vector{Role::softmax_output}
                           : std::vector{Role::softmax_output, Role::matmul_operand};
    if (what == "probs_dropout_mask") return {Role::mask};
    return {Role::matmul_operand};  // q, k, v, dropped_probs
  }
  template <class Other>
  std::vector<Role> operator()(const Other&) const {  // kinds the training step refuses before a scheme sees them
    return {Role::mul_operand};
  }
};

}  // namespace

std::vector<Role> roles(const Layer& layer, const std::string& what) { return std::visit(RoleOf{what}, layer.op); }

std::uint64_t heads_of(const Layer& layer, const std::string& what) {
  const bool split = what == "q" || what == "k" || what == "v" || what == "probs" || what == "dropped_probs";
  if (!split) return 1;
  if (const auto* a = std::get_if<AttentionConfig>(&layer.op)) return a->heads;
  if (const auto* a = std::get_if<SoftmaxAttention>(&layer.op)) return a->heads;
  return 1;
}

std::vector<DType> autocast_dtypes(const std::vector<Layer>& layers, const std::vector<LayerReads>& reads,
                                   const TrainingStep& step) {
  bool has_layernorm = false;
  for (const Layer& l : layers) has_layernorm = has_layernorm || std::holds_alternative<LayerNorm>(l.op);
  std::vector<DType> output(layers.size());
  const auto produced = [&](std::size_t source) {
    return source == LayerReads::kNetworkInput ? DType::fp32 : output[source];
  };
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    // an op of two activations (an Add, a Mul, a Concat) promotes fp16 with fp32 to fp32, whichever comes first
    DType input = produced(reads[i].input);
    if (reads[i].other != LayerReads::kNone && produced(reads[i].other) == DType::fp32) input = DType::fp32;
    if (std::holds_alternative<Linear>(l.op) || std::holds_alternative<Conv2d>(l.op) ||
        std::holds_alternative<Matmul>(l.op) || std::holds_alternative<AttentionConfig>(l.op) ||
        std::holds_alternative<SoftmaxAttention>(l.op))
      output[i] = DType::fp16;
    else if (std::holds_alternative<LayerNorm>(l.op) || std::holds_alternative<Softmax>(l.op))
      output[i] = DType::fp32;
    else if (std::holds_alternative<ResidualAdd>(l.op) && has_layernorm)
      output[i] = DType::fp32;
    else
      output[i] = input;
  }
  // own tensors: norm statistics fp32, attention's q, k, v and context fp16 (projection and matmul outputs),
  // its probabilities fp32 (softmax, then dropout); masks and indices keep their integer types (not floating)
  std::vector<DType> saved;
  for (const SavedTensor& s : step.saved) {
    const std::string& what = s.savers.front().what;
    if (s.producer == SavedTensor::kNetworkInput)
      saved.push_back(DType::fp32);
    else if (what == "input" || what == "output")
      saved.push_back(output[s.producer]);
    else if (what == "stats" || what == "probs" || what == "dropped_probs")
      saved.push_back(DType::fp32);
    else
      saved.push_back(DType::fp16);
  }
  return saved;
}

}  // namespace ecosim::kernels::schemes
