// The training step assembled: forward records (with BN's batch statistics), backward records in reverse
// layer order, the optimizer update, the saved tensors, and the memory curve — parameters, gradients,
// optimizer state and buffers throughout, the saved tensors first saved up to a layer after its forward and
// still held during its backward, plus the activation gradients alive during that backward.
#include <algorithm>
#include <map>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/primitives.hpp"
#include "training_rules.hpp"

namespace ecosim {

namespace training {

namespace {

struct RecordList : OpSink {
  std::vector<OpRecord>& records;
  explicit RecordList(std::vector<OpRecord>& r) : records(r) {}
  void record(const OpRecord& op) override { records.push_back(op); }
};

/// Per channel of M elements: mean (M−1 adds, 1 mul), centring (M adds), variance (M muls, M−1 adds, 1 mul),
/// 1/√(var + ε) (1 add, 1 sqrt, 1 div).
ops::OpMix batch_statistics_row(std::uint64_t len) {
  return {.mul = checked_add(len, 2), .add = checked_sub(checked_mul(3, len), 1), .div = 1, .sqrt = 1};
}

/// f(), its error (a count overflowing 64 bits, an invalid shape) naming `layer` unless it already names one.
template <class F>
void naming_layer(const Layer& layer, F&& f) {
  try {
    f();
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.starts_with("training step:")) throw;
    throw Error("training step: layer '" + layer.name + "': " + what);
  }
}

/// A dropout in training over batch·m·n elements: one compare per element (a uniform draw against p; drawing
/// it is not counted) making the mask, one multiply applying it scaled by 1/(1 − p). Paper: 0 (no mmcv rule).
OpRecord dropout(std::string name, std::uint64_t batch, std::uint64_t m, std::uint64_t n, Convention convention) {
  return ops::in_convention(ops::eltwise(std::move(name), "dropout", batch, m, n, DType::fp32, {.mul = 1, .cmp = 1}),
                            convention, {});
}

}  // namespace

void emit_training_forward(const Layer& layer, Convention convention, OpSink& sink) {
  if (layer.batch_statistics) return;  // the BatchNorm's own statistics record counts it
  if (const auto* b = std::get_if<BatchNorm2d>(&layer.op)) {
    const std::uint64_t len = checked_product({b->batch, b->h, b->w});
    OpRecord stats = ops::reduce(layer.name + ".batch_stats", "batchnorm_stats", 1, b->channels, len, DType::fp32,
                                 batch_statistics_row(len), 2);
    sink.record(ops::in_convention(std::move(stats), convention, {}));  // mmcv: the affine MACs only
  }
  emit(layer, convention, sink);
  if (const auto* d = std::get_if<Dropout>(&layer.op))
    sink.record(dropout(layer.name + ".dropout", 1, 1, d->elements, convention));
  if (const auto* a = std::get_if<AttentionConfig>(&layer.op); a && a->probs_dropout) {
    const AttentionShape s = attention_shape(layer.name, *a);
    sink.record(dropout(layer.name + ".probs_dropout", s.groups, s.tokens, s.tokens, convention));
  }
  if (const auto* a = std::get_if<SoftmaxAttention>(&layer.op); a && a->probs_dropout)  // an ONNX import's block
    sink.record(
        dropout(layer.name + ".probs_dropout", checked_mul(a->batch, a->heads), a->queries, a->keys, convention));
}

std::vector<GradientFlow> gradient_flow(const std::vector<Layer>& layers, const std::vector<LayerReads>& reads,
                                        const std::vector<LayerTensors>& tensors) {
  std::vector<GradientFlow> flow(layers.size());
  const auto requires_gradient = [&](std::size_t source) {
    return source != LayerReads::kNetworkInput && source != LayerReads::kNone && flow[source].recorded;
  };
  for (std::size_t i = 0; i < layers.size(); ++i) {
    flow[i].input_gradient = reads[i].input == LayerReads::kNetworkInput ? !reads_input_data(layers, reads, i)
                                                                         : requires_gradient(reads[i].input);
    flow[i].other_gradient = layers[i].other.empty() || requires_gradient(reads[i].other);
    flow[i].recorded = !layers[i].batch_statistics && (flow[i].input_gradient || requires_gradient(reads[i].other) ||
                                                       requires_gradient(reads[i].value) || tensors[i].parameters > 0 ||
                                                       layers[i].table_parameters > 0);
    if (flow[i].recorded && !tensors[i].unmodelled.empty()) throw Error(tensors[i].unmodelled);
  }
  return flow;
}

}  // namespace training

std::vector<LayerReads> layer_reads(const std::vector<Layer>& layers) {
  std::map<std::string, std::size_t, std::less<>> last_of;  // layer name → the last layer so far of that name
  const auto source = [&](const Layer& layer, const std::string& name) {
    if (is_network_input_name(name)) return LayerReads::kNetworkInput;
    const auto found = last_of.find(name);
    if (found == last_of.end())
      throw Error("training step: layer '" + layer.name + "' reads '" + name + "', no layer before it");
    return found->second;
  };
  std::vector<LayerReads> reads(layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Layer& layer = layers[i];
    reads[i].input = !layer.input.empty() ? source(layer, layer.input) : i == 0 ? LayerReads::kNetworkInput : i - 1;
    if (!layer.other.empty()) reads[i].other = source(layer, layer.other);
    if (!layer.value.empty()) reads[i].value = source(layer, layer.value);
    last_of[layer.name] = i;
  }
  return reads;
}

bool reads_input_data(const std::vector<Layer>& layers, const std::vector<LayerReads>& reads, std::size_t i) {
  if (reads[i].input != LayerReads::kNetworkInput) return false;
  // an imported graph's input (named): a tensor fed in; unnamed, a zoo model's images (its first convolution)
  return !layers[i].input.empty() || std::holds_alternative<Conv2d>(layers[i].op);
}

TrainingStep training_step(const std::vector<Layer>& layers, Optimizer optimizer, Convention convention) {
  if (layers.empty()) throw Error("training step: the model has no layers");
  TrainingStep step;
  std::vector<training::LayerTensors> tensors;
  for (const Layer& layer : layers)
    training::naming_layer(layer, [&] { tensors.push_back(training::layer_rules(layer)); });

  const std::vector<LayerReads> reads = layer_reads(layers);
  const std::vector<training::GradientFlow> flow = training::gradient_flow(layers, reads, tensors);
  training::RecordList forward(step.forward), backward(step.backward);
  for (const Layer& layer : layers)
    training::naming_layer(layer, [&] { training::emit_training_forward(layer, convention, forward); });
  for (std::size_t i = layers.size(); i-- > 0;)
    if (flow[i].recorded)
      training::naming_layer(layers[i], [&] { training::emit_backward(layers[i], convention, backward, flow[i]); });

  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::uint64_t own = tensors[i].parameters - std::min(tensors[i].parameters, layers[i].shared_parameters);
    step.parameters = checked_add(step.parameters, checked_add(own, layers[i].table_parameters));
    step.buffer_bytes = checked_add(step.buffer_bytes, tensors[i].buffer_bytes);
    step.matmul_weights.push_back(tensors[i].matmul_weights -
                                  std::min(tensors[i].matmul_weights, layers[i].shared_parameters));
  }
  step.update.push_back(training::update_record(optimizer, step.parameters));
  step.parameter_bytes = step.gradient_bytes = storage_bytes(DType::fp32, step.parameters);
  step.optimizer_state_bytes = checked_mul(step.parameters, training::state_bytes_per_parameter(optimizer));

  step.saved = training::saved_tensors(layers, reads, flow, tensors);
  for (const SavedTensor& s : step.saved) step.activation_bytes = checked_add(step.activation_bytes, s.bytes);

  // held[i]: the saved bytes first saved at layers ≤ i (allocated by then in forward, not yet freed in backward)
  std::vector<std::uint64_t> held(layers.size(), 0);
  for (const SavedTensor& s : step.saved) held[s.first_saver] = checked_add(held[s.first_saver], s.bytes);
  for (std::size_t i = 1; i < held.size(); ++i) held[i] = checked_add(held[i], held[i - 1]);
  const std::uint64_t base = checked_add(checked_add(step.parameter_bytes, step.gradient_bytes),
                                         checked_add(step.optimizer_state_bytes, step.buffer_bytes));
  for (std::size_t i = 0; i < layers.size(); ++i)
    step.memory_curve.push_back({"forward", layers[i].name, checked_add(base, held[i])});
  for (std::size_t i = layers.size(); i-- > 0;) {
    // its gradients alive: dY, the dX it computes (none for an input requiring none) and any of its own
    const training::LayerTensors& t = tensors[i];
    const std::uint64_t transient =
        !flow[i].recorded
            ? 0
            : storage_bytes(DType::fp32,
                            flow[i].input_gradient ? t.backward_transient : checked_sub(t.backward_transient, t.input));
    step.memory_curve.push_back({"backward", layers[i].name, checked_add(checked_add(base, held[i]), transient)});
  }
  for (const MemoryPoint& p : step.memory_curve) step.peak_bytes = std::max(step.peak_bytes, p.bytes);
  return step;
}

}  // namespace ecosim
