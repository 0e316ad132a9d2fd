// The distinct tensors a network saves for backward: each recorded layer's saves (gradient_flow) resolved to the
// tensors it reads (layer_reads: an earlier layer's output or a network input), a tensor
// saved by several layers (a ReLU's output the next conv saves as its input, a sigmoid's output a product keeps
// as its other operand: Layer::other) stored once; a network input named by a layer is one tensor however many
// layers read it. A layer whose input
// has fewer elements than that output reads a part of it (a view: a ViT head's class token), which it saves as
// that part. A tensor requires a gradient unless it is input data or an unrecorded layer's output (a transpose of
// input data).
#include <algorithm>
#include <map>

#include "ecosim/ops_counter/checked.hpp"
#include "training_rules.hpp"

namespace ecosim::training {

std::vector<SavedTensor> saved_tensors(const std::vector<Layer>& layers, const std::vector<LayerReads>& reads,
                                       const std::vector<GradientFlow>& flow,
                                       const std::vector<LayerTensors>& tensors) {
  std::vector<std::uint64_t> elements;                // per tensor id
  std::vector<std::size_t> producer;                  // per tensor id
  std::vector<bool> requires_gradient;                // per tensor id
  std::vector<std::size_t> output_of(layers.size());  // per layer: its output's tensor id
  std::map<std::string, std::size_t> network_input;   // a network input's name ("": the first layer's) → id
  std::map<std::size_t, std::size_t> saved_index;     // tensor id → its entry in `saved`
  std::vector<SavedTensor> saved;
  auto new_tensor = [&](std::uint64_t n, std::size_t layer, bool needs_gradient) {
    elements.push_back(n);
    producer.push_back(layer);
    requires_gradient.push_back(needs_gradient);
    return elements.size() - 1;
  };
  // an operand of layer `i` read from `source` (layer_reads): an earlier layer's output, or a network input by name
  // (a new tensor of `n` elements where first read: data, reads_input_data, requires no gradient)
  const auto tensor_read = [&](std::size_t i, std::size_t source, const std::string& name, std::uint64_t n) {
    if (source != LayerReads::kNetworkInput) return output_of[source];
    const auto [known, is_new] = network_input.try_emplace(name, 0);
    if (is_new)
      known->second = new_tensor(n, SavedTensor::kNetworkInput, name.empty() && !reads_input_data(layers, reads, i));
    return known->second;
  };
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Layer& layer = layers[i];
    const LayerTensors& t = tensors[i];
    const std::size_t input = tensor_read(i, reads[i].input, layer.input, t.input);
    const std::size_t output = output_of[i] = t.view ? input : new_tensor(t.output, i, flow[i].recorded);
    if (!flow[i].recorded) continue;  // autograd keeps nothing for it
    for (const Save& s : t.saves) {
      if ((s.kept_for == Save::For::input_gradient && !flow[i].input_gradient) ||
          (s.kept_for == Save::For::other_gradient && !flow[i].other_gradient) ||
          (s.kept_for == Save::For::either_gradient && !flow[i].input_gradient && !flow[i].other_gradient))
        continue;  // needed for a gradient nobody computes
      const bool read_other = s.of == Save::Of::other && !layer.other.empty();
      const bool read_value = s.of == Save::Of::value && !layer.value.empty();
      std::size_t id = s.of == Save::Of::input    ? input
                       : s.of == Save::Of::output ? output
                       : read_other               ? tensor_read(i, reads[i].other, layer.other, s.elements)
                       : read_value               ? tensor_read(i, reads[i].value, layer.value, s.elements)
                                                  : new_tensor(s.elements, i, true);
      if (s.whole_only && elements[id] != s.elements && checked_mul(elements[id], s.repeats) != s.elements)
        id = new_tensor(s.elements, i, true);  // a part: a copy
      const std::uint64_t part = s.of == Save::Of::input ? t.input
                                 : s.of == Save::Of::other || s.of == Save::Of::value
                                     ? std::min(s.elements, elements[id])
                                     : elements[id];
      if (const auto known = saved_index.find(id); known != saved_index.end()) {
        saved[known->second].last_saver = i;
        saved[known->second].savers.push_back({i, s.what, part});
        continue;
      }
      saved_index[id] = saved.size();
      saved.push_back({.layer = layer.name,
                       .what = s.what,
                       .dtype = std::string(s.type.name),
                       .elements = elements[id],
                       .bytes = checked_mul(elements[id], s.type.bytes),
                       .first_saver = i,
                       .last_saver = i,
                       .producer = producer[id],
                       .savers = {{i, s.what, part}},
                       .requires_gradient = requires_gradient[id]});
    }
  }
  return saved;
}

}  // namespace ecosim::training

namespace ecosim {

std::vector<SavedTensor> saved_tensors(const std::vector<Layer>& layers) {
  std::vector<training::LayerTensors> tensors;
  for (const Layer& layer : layers) tensors.push_back(training::layer_rules(layer));
  const std::vector<LayerReads> reads = layer_reads(layers);
  return training::saved_tensors(layers, reads, training::gradient_flow(layers, reads, tensors), tensors);
}

}  // namespace ecosim
