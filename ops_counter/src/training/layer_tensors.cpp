// What each layer kind reads, writes and saves for backward, as PyTorch's autograd keeps it (conv, linear:
// the input; BN: the input and per-channel mean and inverse std; LayerNorm: the input and per-row mean and
// inverse std; ReLU, softmax: the output; GELU: the input; max pool: the input and int64 indices; dropout:
// its mask; avg pool, mean: the input; add: nothing; `@` and x·y: each operand the other's gradient needs), and its
// trainable parameters.
#include "ecosim/ops_counter/checked.hpp"
#include "training_rules.hpp"

namespace ecosim::training {

namespace {

struct TensorRules {
  const std::string& name;

  std::string refusal(std::string_view kind) const {
    return "training step: layer '" + name + "' (" + std::string(kind) +
           "): its saved tensors and backward are not modelled";
  }
  [[noreturn]] void refuse(std::string_view kind) const { throw Error(refusal(kind)); }
  /// A parameterless kind without rules, in from `in` elements, out to `out`: refused only where recorded.
  LayerTensors unmodelled(std::string_view kind, std::uint64_t in, std::uint64_t out) const {
    LayerTensors t = pointwise(in, out, {});
    t.unmodelled = refusal(kind);
    return t;
  }

  static LayerTensors pointwise(std::uint64_t in, std::uint64_t out, std::vector<Save> saves) {
    return {.input = in, .output = out, .backward_transient = checked_add(in, out), .saves = std::move(saves)};
  }

  LayerTensors operator()(const Linear& l) const {
    LayerTensors t =
        pointwise(checked_mul(l.tokens, l.in), checked_mul(l.tokens, l.out), {{Save::Of::input, "input", 0}});
    t.matmul_weights = checked_mul(l.in, l.out);
    t.parameters = checked_add(t.matmul_weights, l.bias ? l.out : 0);
    return t;
  }

  LayerTensors operator()(const Conv2d& c) const {
    if (c.groups == 0 || c.in_ch % c.groups) refuse("convolution with channels not divisible by groups");
    LayerTensors t =
        pointwise(checked_product({c.batch, c.in_ch, c.in_h, c.in_w}),
                  checked_product({c.batch, c.out_ch, c.out_h(), c.out_w()}), {{Save::Of::input, "input", 0}});
    t.matmul_weights = checked_product({c.out_ch, c.in_ch / c.groups, c.kernel, c.kernel});
    t.parameters = checked_add(t.matmul_weights, c.bias ? c.out_ch : 0);
    return t;
  }

  LayerTensors operator()(const BatchNorm2d& b) const {
    const std::uint64_t elements = checked_product({b.batch, b.channels, b.h, b.w});
    LayerTensors t = pointwise(elements, elements,
                               {{Save::Of::input, "input", 0}, {Save::Of::own, "stats", checked_mul(2, b.channels)}});
    t.parameters = b.affine ? checked_mul(2, b.channels) : 0;  // γ, β
    // running mean and variance (fp32), and num_batches_tracked (one int64)
    t.buffer_bytes = checked_add(storage_bytes(DType::fp32, checked_mul(2, b.channels)), 8);
    return t;
  }

  LayerTensors operator()(const LayerNorm& l) const {
    const std::uint64_t elements = checked_mul(l.rows, l.width);
    LayerTensors t = pointwise(elements, elements,
                               {{Save::Of::input, "input", 0}, {Save::Of::own, "stats", checked_mul(2, l.rows)}});
    t.parameters = l.affine ? checked_mul(2, l.width) : 0;  // γ, β
    return t;
  }

  LayerTensors operator()(const Activation& a) const {
    return pointwise(
        a.elements, a.elements,
        {a.func == ActivationFunc::relu ? Save{Save::Of::output, "output", 0} : Save{Save::Of::input, "input", 0}});
  }

  LayerTensors operator()(const ResidualAdd& r) const { return pointwise(r.elements, r.elements, {}); }

  /// x·y: dx = dz·y keeps y, dy = dz·x keeps x (each only where that gradient is computed).
  LayerTensors operator()(const ElementwiseMul& m) const {
    return pointwise(m.elements, m.elements,
                     {{Save::Of::input, "input", 0, kFp32, Save::For::other_gradient},
                      {Save::Of::other, "other", m.elements, kFp32, Save::For::input_gradient}});
  }

  /// torch 1.13's mean over dims keeps its input (for its sizes); the whole tensor's mean keeps nothing.
  LayerTensors operator()(const MeanPool& p) const {
    const std::uint64_t in = checked_product({p.batch, p.tokens, p.width}), out = checked_mul(p.batch, p.width);
    if (p.whole_tensor) return pointwise(in, out, {});
    return pointwise(in, out, {{Save::Of::input, "input", 0}});
  }

  LayerTensors operator()(const AvgPool2d& p) const {
    const std::uint64_t out_h = conv_output_size(p.in_h, p.kernel, p.stride, 0),
                        out_w = conv_output_size(p.in_w, p.kernel, p.stride, 0);
    return pointwise(checked_product({p.batch, p.channels, p.in_h, p.in_w}),
                     checked_product({p.batch, p.channels, out_h, out_w}), {{Save::Of::input, "input", 0}});
  }

  LayerTensors operator()(const MaxPool2d& p) const {
    const std::uint64_t out = checked_product({p.batch, p.channels, p.out_h(), p.out_w()});
    return pointwise(checked_product({p.batch, p.channels, p.in_h, p.in_w}), out,
                     {{Save::Of::input, "input", 0}, {Save::Of::own, "indices", out, kInt64}});
  }

  LayerTensors operator()(const Dropout& d) const {  // its output: a new tensor
    return pointwise(d.elements, d.elements, {{Save::Of::own, "mask", d.elements, kBool}});
  }

  LayerTensors operator()(const Softmax& s) const {
    const std::uint64_t elements = checked_product({s.batch, s.rows, s.len});
    return pointwise(elements, elements, {{Save::Of::output, "output", 0}});
  }

  /// A·B: dA = dC·Bᵀ keeps B, dB = Aᵀ·dC keeps A (each only where that gradient is computed).
  LayerTensors operator()(const Matmul& m) const {
    return pointwise(checked_product({m.batch, m.m, m.k}), checked_product({m.batch, m.m, m.n}),
                     {{Save::Of::input, "input", 0, kFp32, Save::For::other_gradient},
                      {Save::Of::other, "b", checked_product({m.batch, m.k, m.n}), kFp32, Save::For::input_gradient}});
  }

  LayerTensors operator()(const AttentionConfig& a) const {
    const AttentionShape s = attention_shape(name, a);
    const std::uint64_t tokens = checked_mul(a.batch, a.seq), inner = checked_mul(a.heads, a.head_dim);
    const std::uint64_t per_operand = checked_product({s.groups, s.tokens, a.head_dim});
    const std::uint64_t scores = checked_product({s.groups, s.tokens, s.tokens});
    const ProjectionTokens projected = projection_tokens(a);
    // the q/k/v projections' input: the layer's, or over a padded grid a padded copy of it (F.pad: a new tensor)
    const Save input = projected.qkv == tokens ? Save{Save::Of::input, "input", 0}
                                               : Save{Save::Of::own, "input", checked_mul(projected.qkv, a.width())};
    LayerTensors t = pointwise(checked_mul(tokens, a.width()), checked_mul(tokens, a.width()),
                               {input,
                                {Save::Of::own, "q", per_operand},
                                {Save::Of::own, "k", per_operand},
                                {Save::Of::own, "probs", scores},
                                {Save::Of::own, "v", per_operand},
                                {Save::Of::own, "context", checked_mul(projected.proj, inner)}});  // the output
                                                                                                   // projection's
    if (a.probs_dropout)  // the mask, and the dropped probabilities the context matmul keeps
      t.saves.insert(t.saves.begin() + 4, {Save{Save::Of::own, "probs_dropout_mask", scores, kBool},
                                           Save{Save::Of::own, "dropped_probs", scores}});
    t.backward_transient = checked_add(t.backward_transient, checked_mul(2, scores));  // d(probs), d(scores)
    t.matmul_weights = checked_add(checked_product({a.width(), 3, inner}), checked_mul(inner, a.width()));  // qkv, proj
    t.parameters = checked_add(t.matmul_weights, checked_add(checked_mul(3, inner), a.width()));  // + their biases
    return t;
  }

  // The kinds an ONNX import adds (ecosim train --onnx), as autograd keeps the PyTorch ops they export from.

  /// An imported attention block (scores → scale, mask → softmax → context): `q @ kᵀ` keeps q and k, softmax
  /// its output (the probabilities, which `probs @ v` keeps too) and v; q, k and v are the tensors the block
  /// reads (views of one qkv projection's output in PyTorch: the same bytes).
  LayerTensors operator()(const SoftmaxAttention& a) const {
    const std::uint64_t groups = checked_mul(a.batch, a.heads);
    const std::uint64_t queries = checked_product({groups, a.queries, a.head_dim});
    const std::uint64_t keys = checked_product({groups, a.keys, a.head_dim});
    const std::uint64_t scores = checked_product({groups, a.queries, a.keys});
    // q, Kᵀ, v the graph's tensors themselves where whole, else copies of the block's own
    const bool views = a.operand_views;
    // (the scores' product keeps q for Kᵀ's gradient and Kᵀ for q's, as torch's bmm, the context's v for the
    // probabilities' gradient, wanted where q's or Kᵀ's is; one K/V head repeated to
    // every query head stays a view of stride 0, a grouped one is copied)
    const std::uint64_t kv_repeats = a.kv_heads == 1 ? a.heads : 1;
    const auto operand = [&](Save::Of of, const char* what, std::uint64_t n, Save::For kept_for) {
      return Save{views ? of : Save::Of::own, what, n, kFp32, kept_for, views, of == Save::Of::input ? 1 : kv_repeats};
    };
    LayerTensors t = pointwise(queries, queries,
                               {operand(Save::Of::input, "q", queries, Save::For::other_gradient),
                                operand(Save::Of::other, "k", keys, Save::For::input_gradient),
                                {Save::Of::own, "probs", scores},
                                operand(Save::Of::value, "v", keys, Save::For::either_gradient)});
    if (a.probs_dropout)  // the mask, and the dropped probabilities `probs @ v` keeps instead
      t.saves.insert(t.saves.begin() + 3, {Save{Save::Of::own, "probs_dropout_mask", scores, kBool},
                                           Save{Save::Of::own, "dropped_probs", scores}});
    t.backward_transient = checked_add(t.backward_transient, checked_mul(2, scores));  // d(probs), d(scores)
    return t;
  }

  /// Elementwise ops as autograd keeps them: Add, Sub, Neg, and Mul or Div by a constant keep nothing, by a
  /// learned table (a LayerScale's γ) the activation, for the table's gradient; Mul and Div of two activations
  /// what each gradient computed needs; Pow by a constant exponent, Erf and Clip (ReLU6) their input; Exp, Sqrt,
  /// Tanh, Sigmoid and Reciprocal their output.
  LayerTensors operator()(const Elementwise& e) const {
    const std::uint64_t n = e.elements;
    const bool constant_divisor = (e.constant_operands & 2u) && !(e.constant_operands & 1u);
    if ((e.func == "Mul" && e.constant_operands) || (e.func == "Div" && constant_divisor)) {
      const bool learned = e.func == "Mul" ? e.learned_operands != 0 : (e.learned_operands & 2u) != 0;
      return pointwise(n, n, learned ? std::vector<Save>{{Save::Of::input, "input", 0}} : std::vector<Save>{});
    }
    if (e.func == "Add" || e.func == "Sub" || e.func == "Neg") return pointwise(n, n, {});
    if ((e.func == "Mul" || e.func == "Div") && !e.constant_operands) {  // x·y as ElementwiseMul; x/y: dx = dz/y
      // keeps y, dy = −dz·x/y² keeps both
      const auto own = [&](std::size_t i) { return e.operand_elements[i] ? e.operand_elements[i] : n; };
      const Save::For y_kept_for = e.func == "Mul" ? Save::For::input_gradient : Save::For::always;
      return pointwise(own(0), n,
                       {{Save::Of::input, "input", 0, kFp32, Save::For::other_gradient},
                        {Save::Of::other, "other", own(1), kFp32, y_kept_for}});
    }
    if ((e.func == "Pow" && e.constant_operands == 2u) || e.func == "Erf")
      return pointwise(n, n, {{Save::Of::input, "input", 0}});
    for (const char* f : {"Exp", "Sqrt", "Tanh", "Sigmoid", "Reciprocal"})
      if (e.func == f) return pointwise(n, n, {{Save::Of::output, "output", 0}});
    // ReLU6 (Clip between constants): hardtanh keeps its input (in place, a copy of the same size)
    if (e.func == "Clip") return pointwise(n, n, {{Save::Of::input, "input", 0}});
    return unmodelled("elementwise " + e.func + (e.constant_operands ? " with a constant operand" : ""), n, n);
  }

  /// Pooling: max keeps its input and int64 indices, average and global average their input.
  LayerTensors operator()(const Reduction& r) const {
    const std::uint64_t in = r.input_elements ? r.input_elements : checked_mul(r.rows, r.len);
    if (r.func == "MaxPool")
      return pointwise(in, r.rows, {{Save::Of::input, "input", 0}, {Save::Of::own, "indices", r.rows, kInt64}});
    if (r.func == "AveragePool" || r.func == "GlobalAveragePool")
      return pointwise(in, r.rows, {{Save::Of::input, "input", 0}});
    return unmodelled("reduction " + r.func, in, r.rows);
  }

  /// Copies and selections (Transpose, Concat, Slice, Split, Gather by constant indices, Expand, Pad, Cast,
  /// Tile) keep nothing: their backward needs shapes only; a table lookup (nn.Embedding) keeps its indices, the
  /// layer's other operand (int64).
  LayerTensors operator()(const DataMovement& d) const {
    if (d.func == "Where") return unmodelled("data movement Where", d.elements, d.elements);
    LayerTensors t = pointwise(d.elements, d.elements, {});
    if (d.saved_indices) t.saves.push_back({Save::Of::other, "indices", d.saved_indices, kInt64});
    t.view = d.view;
    return t;
  }
  LayerTensors operator()(const ConvTranspose2d&) const { refuse("transposed convolution"); }
  LayerTensors operator()(const RmsNorm&) const { refuse("RMSNorm (decoder LLMs)"); }
  LayerTensors operator()(const Rotary&) const { refuse("rotary embedding (decoder LLMs)"); }
};

}  // namespace

AttentionShape attention_shape(const std::string& layer, const AttentionConfig& a) {
  const TensorRules rules{layer};
  a.validate();
  const std::string variant(ecosim::name(a.variant));
  if (!a.projections) rules.refuse("attention without projections");
  if (a.causal) rules.refuse("causal attention");
  if (a.key_count() != a.seq) rules.refuse("attention over another token set");
  const std::uint64_t heads = checked_mul(a.batch, a.heads);
  if (a.variant == AttentionVariant::msa) return {heads, a.seq};
  if (a.variant == AttentionVariant::lsa) {
    const std::uint64_t windows = lsa_windows(a), window_tokens = checked_mul(a.window, a.window);
    if (checked_mul(windows, window_tokens) != a.seq) rules.refuse("lsa attention over a zero-padded grid");
    return {checked_mul(heads, windows), window_tokens};
  }
  rules.refuse(variant + " attention");
}

LayerTensors layer_rules(const Layer& layer) { return std::visit(TensorRules{layer.name}, layer.op); }

LayerTensors layer_tensors(const Layer& layer) {
  LayerTensors t = layer_rules(layer);
  if (!t.unmodelled.empty()) throw Error(t.unmodelled);
  return t;
}

}  // namespace ecosim::training
