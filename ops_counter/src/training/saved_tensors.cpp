// The distinct tensors a network saves for backward: each layer's saves resolved to tensors (its input is the
// output of Layer::input or of the layer before it; the first layer's input is the network's input), a tensor
// saved by several layers (a ReLU's output the next conv saves as its input, a sigmoid's output a product keeps
// as its other operand: Layer::other) stored once; a network input named by a layer is one tensor however many
// layers read it. A layer whose input
// has fewer elements than that output reads a part of it (a view: a ViT head's class token), which it saves as
// that part.
#include <algorithm>
#include <map>

#include "ecosim/ops_counter/checked.hpp"
#include "training_rules.hpp"

namespace ecosim::training {

std::vector<SavedTensor> saved_tensors(const std::vector<Layer>& layers, const std::vector<LayerTensors>& tensors) {
  std::vector<std::uint64_t> elements;             // per tensor id
  std::vector<std::size_t> producer;               // per tensor id
  std::map<std::string, std::size_t> output_of;    // layer name → its output's tensor id
  std::map<std::size_t, std::size_t> saved_index;  // tensor id → its entry in `saved`
  std::vector<SavedTensor> saved;
  auto new_tensor = [&](std::uint64_t n, std::size_t layer) {
    elements.push_back(n);
    producer.push_back(layer);
    return elements.size() - 1;
  };
  // an operand named by Layer::input or Layer::other: an earlier layer's output, or a network input by name (a
  // new tensor of `n` elements where first read)
  const auto named = [&](const Layer& layer, const std::string& name, std::uint64_t n) {
    if (const auto source = output_of.find(name); source != output_of.end()) return source->second;
    if (!is_network_input_name(name))
      throw Error("training step: layer '" + layer.name + "' reads '" + name + "', no layer before it");
    return output_of[name] = new_tensor(n, SavedTensor::kNetworkInput);
  };
  std::size_t previous_output = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Layer& layer = layers[i];
    const LayerTensors& t = tensors[i];
    std::size_t input = previous_output;
    if (!layer.input.empty())
      input = named(layer, layer.input, t.input);
    else if (i == 0)
      input = new_tensor(t.input, SavedTensor::kNetworkInput);  // the network's input
    const std::size_t output = t.view ? input : new_tensor(t.output, i);
    output_of[layer.name] = output;
    previous_output = output;
    for (const Save& s : t.saves) {
      const std::size_t id = s.of == Save::Of::input                           ? input
                             : s.of == Save::Of::output                        ? output
                             : s.of == Save::Of::other && !layer.other.empty() ? named(layer, layer.other, s.elements)
                                                                               : new_tensor(s.elements, i);
      const std::uint64_t part = s.of == Save::Of::input   ? t.input
                                 : s.of == Save::Of::other ? std::min(s.elements, elements[id])
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
                       .savers = {{i, s.what, part}}});
    }
  }
  return saved;
}

}  // namespace ecosim::training

namespace ecosim {

std::vector<SavedTensor> saved_tensors(const std::vector<Layer>& layers) {
  std::vector<training::LayerTensors> tensors;
  for (const Layer& layer : layers) tensors.push_back(training::layer_tensors(layer));
  return training::saved_tensors(layers, tensors);
}

}  // namespace ecosim
