// A scheme applied to a training step's saved tensors: the form each saver keeps (rules below, sizes from the
// kernel modules' layouts), copies in the same form stored once, the kernels' compress/decompress records, and
// the memory curve with the stored bytes in place of the fp32 ones.
//   none     every tensor as saved (fp32; int64 indices; bool masks).
//   amp      autocast: conv, linear and matmul operands fp16 (a cast copy when produced in fp32, the weights'
//            too), LayerNorm input and softmax output fp32, the others as produced (training_scheme_roles.cpp).
//   actnn:L  conv and linear inputs (and BN inputs from L2) as ActNN codes, 4 bits (L1, L2) or 2 bits a sample
//            on average (L3, the greedy allocator per sample); ReLU and dropout 1-bit masks (QReLU, QDropout);
//            max pool its indices as int8 (offsets in the window, ActNN's QMaxPool2d); the rest fp32.
//   gact:B   every floating tensor once as ActNN codes at B bits (32: raw), dropout masks at 1 bit; what
//            GACT's quantizer skips as saved: tensors requiring no gradient (norm statistics; a network's input
//            that is data, the images its first convolution takes, and what unrecorded layers make of it: a
//            transpose) and max-pool indices; gact:avgB the same with a width per tensor from GACT's allocator
//            averaging B bits (every element equally sensitive).
//   mesa     over amp: conv, linear, LayerNorm, BatchNorm, softmax, GELU/SiLU and matmul operands as Mesa's 8-bit
//            codes with an (α, β) per attention head (one for other tensors); ReLU a 1-bit mask.
//   fewbit:B the input of GELU/SiLU as B-bit Few-Bit codes, whose backward record (dY × level[code]) replaces the
//            activation's own backward; the rest fp32.
#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "ecosim/kernels/actnn.hpp"
#include "ecosim/kernels/fewbit.hpp"
#include "ecosim/kernels/gact.hpp"
#include "ecosim/kernels/mesa.hpp"
#include "ecosim/kernels/training_schemes.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/primitives.hpp"
#include "training_scheme_roles.hpp"

namespace ecosim::kernels::schemes {

namespace {

inline constexpr unsigned kActnnLowBits = 4, kActnnL3AverageBits = 2, kMaskBits = 1;
/// ActNN L3 allocates bits sample by sample (memory and time grow with the batch): larger batches are refused.
inline constexpr std::uint64_t kActnnL3MaxSamples = std::uint64_t{1} << 20;

/// The form one saver keeps a tensor in, its bytes, and the kernel passes making and restoring it. A form of
/// the saver's own (`own`: a layer quantizing or casting its input itself) is never shared with another saver.
struct Form {
  std::string key;
  std::uint64_t bytes = 0;
  std::vector<OpRecord> compress = {}, decompress = {};
  bool own = false;
  std::map<DType, std::uint64_t> kept = {};  // StoredTensor::kept; empty: `bytes` as kept_type(key)
  bool replaces_backward = false;            // its decompress record is the saving layer's backward (Few-Bit's)
};

/// The type a form without a kernel record is kept as in DRAM: floats as themselves, integers and packed bits
/// as bytes (an int64 index as two int32s).
DType kept_type(const std::string& key) {
  return key == "fp32" ? DType::fp32 : key == "fp16" ? DType::fp16 : key == "int64" ? DType::int32 : DType::int8;
}

/// The bytes by type a quantize record writes: the codes and the metadata (as `compress` keeps them).
std::map<DType, std::uint64_t> written(const OpRecord& r) {
  std::map<DType, std::uint64_t> bytes;
  for (DType t : kAllDTypes)
    if (const std::uint64_t n = r.counts.written_bytes(t)) bytes[t] = n;
  return bytes;
}

Form raw(const SavedTensor& s) { return {s.dtype, s.bytes}; }
Form raw(const SavedTensor& s, DType t) { return {std::string(name(t)), storage_bytes(t, s.elements)}; }

/// An ActNN layer's (own) or GACT's (shared) codes.
Form actnn_form(const std::string& key, const actnn::Layout& layout, bool own) {
  layout.check();
  const OpRecord quantize = actnn::quantize_record(layout, DType::fp32);
  return {key, layout.storage_bytes(), {quantize}, {actnn::dequantize_record(layout)}, own, written(quantize)};
}

/// ActNN L3: `batch` samples, bits from the greedy at an average of 2 (equal sensitivities: ecosim sees no data).
actnn::Layout per_sample_layout(std::uint64_t elements, std::uint64_t batch) {
  if (batch < 2 || elements % batch) return actnn::Layout::uniform(elements, kActnnL3AverageBits);
  if (batch > kActnnL3MaxSamples)
    throw Error("actnn:L3 allocates bits to each of the batch's samples: a batch of " + std::to_string(batch) +
                " is above its limit of " + std::to_string(kActnnL3MaxSamples) +
                " samples; actnn:L2 (one width for every sample) takes any batch");
  const std::vector<double> weights(batch, 1.0);
  return {batch, elements / batch, actnn::allocate_bits(weights, checked_mul(batch, kActnnL3AverageBits))};
}

Form mesa_form(const SavedTensor& s, std::uint64_t heads, DType input) {
  const std::uint64_t h = s.elements % heads == 0 ? heads : 1;
  const mesa::Layout layout{.outer = 1, .heads = h, .inner = s.elements / h};
  layout.check();
  const OpRecord quantize = mesa::quantize_record(layout, input);
  return {"mesa8", layout.storage_bytes(), {quantize}, {mesa::dequantize_record(layout)}, true, written(quantize)};
}

Form fewbit_form(const SavedTensor& s, const Activation& a, unsigned bits) {
  const fewbit::Activation f = a.func == ActivationFunc::silu ? fewbit::Activation::silu : fewbit::Activation::gelu;
  // the records depend on the codebook's size only: a coarse grid solves it at once
  const fewbit::Codebook book = fewbit::Codebook::from(fewbit::solve(f, bits, {.grid = 64}));
  const std::uint64_t codes = fewbit::code_bytes(s.elements, bits);
  return {"fewbit" + std::to_string(bits),
          codes,
          {fewbit::forward_record(book, s.elements, DType::fp32)},
          {fewbit::backward_record(book, s.elements, DType::fp32)},
          true,
          {{code_dtype(bits), codes}},  // the codes only: f(x), which the forward record also writes, is not kept
          true};                        // dY × level[code]: the activation's gradient
}

bool floating(const SavedTensor& s) { return s.dtype == "fp32"; }

/// A 0/1 tensor packed one bit an element (ActNN's ReLU, GACT's dropout masks), in Few-Bit's 1-bit layout.
Form mask_form(const SavedTensor& s) { return {"mask1", fewbit::code_bytes(s.elements, kMaskBits), {}, {}, true}; }

struct Rules {
  const Scheme& scheme;
  const std::vector<Layer>& layers;
  std::uint64_t batch;
  std::vector<unsigned> gact_bits = {};  // gact:avgB: the width of each saved tensor (its index in step.saved)

  /// fp16 or fp32 as autocast runs the saver: the tensor itself when produced so, else the saver's own cast.
  static Form cast(const SavedTensor& s, DType to, DType produced) {
    Form f = raw(s, to);
    f.own = to != produced;
    return f;
  }

  Form amp(const SavedTensor& s, Role r, DType produced) const {
    switch (r) {
      case Role::conv_input:
      case Role::linear_input:
      case Role::matmul_operand: return cast(s, DType::fp16, produced);
      case Role::ln_input:
      case Role::softmax_output: return cast(s, DType::fp32, produced);
      case Role::stats: return raw(s, DType::fp32);
      case Role::indices:
      case Role::mask:
      case Role::lookup_ids: return raw(s);
      default: return raw(s, produced);
    }
  }

  Form actnn(const SavedTensor& s, Role r) const {
    const bool quantized =
        r == Role::conv_input || r == Role::linear_input || (r == Role::bn_input && scheme.level >= 2);
    if (quantized && scheme.level == 3) return actnn_form("actnn_l3", per_sample_layout(s.elements, batch), true);
    if (quantized) return actnn_form("actnn4", actnn::Layout::uniform(s.elements, kActnnLowBits), true);
    if (r == Role::relu_output || r == Role::mask) return mask_form(s);  // ActNN's QReLU and QDropout: 1 bit
    if (r == Role::maxpool_input) return {"none", 0};
    if (r == Role::indices) return raw(s, DType::int8);
    return raw(s);
  }

  Form of(const Layer& saver, const SavedTensor& s, std::size_t index, const std::string& what, Role r,
          DType produced) const {
    switch (scheme.kind) {
      case SchemeKind::none: return raw(s);
      case SchemeKind::amp: return amp(s, r, produced);
      case SchemeKind::actnn: return actnn(s, r);
      case SchemeKind::gact: {  // GACT's quantizer: 1-bit dropout masks; nothing that requires no gradient
        if (r == Role::mask) return mask_form(s);
        const unsigned bits = gact_bits.empty() ? scheme.bits : gact_bits[index];
        if (!floating(s) || r == Role::stats || !s.requires_gradient || bits == 32) return raw(s);
        return actnn_form("gact" + std::to_string(bits), actnn::Layout::uniform(s.elements, bits), false);
      }
      case SchemeKind::mesa: {  // Mesa's custom layers; its ReLU keeps a packed 1-bit mask, as ActNN's
        if (r == Role::relu_output) return mask_form(s);
        const bool wrapped = r == Role::conv_input || r == Role::linear_input || r == Role::ln_input ||
                             r == Role::bn_input || r == Role::softmax_output || r == Role::act_input ||
                             r == Role::matmul_operand;
        return wrapped ? mesa_form(s, heads_of(saver, what), produced) : amp(s, r, produced);
      }
      case SchemeKind::fewbit:
        if (r == Role::act_input) return fewbit_form(s, std::get<Activation>(saver.op), scheme.bits);
        return raw(s);
    }
    return raw(s);
  }
};

/// gact:avgB: a width per saved tensor from GACT's allocator under an average of B bits over the tensors it
/// quantizes (floating, requiring a gradient: not norm statistics, not input data), every element equally sensitive
/// (ecosim sees no gradients: the sensitivity of a tensor is its element count); the others keep B (unused).
std::vector<unsigned> gact_allocation(const Scheme& scheme, const std::vector<Layer>& layers,
                                      const TrainingStep& step) {
  std::vector<std::size_t> quantized;
  std::vector<double> sensitivity;
  std::vector<std::uint64_t> elements;
  for (std::size_t i = 0; i < step.saved.size(); ++i) {
    const SavedTensor& s = step.saved[i];
    bool stats = false;
    for (const Saver& saver : s.savers)
      for (Role r : roles(layers[saver.layer], saver.what)) stats = stats || r == Role::stats;
    if (!floating(s) || stats || !s.requires_gradient) continue;
    quantized.push_back(i);
    sensitivity.push_back(static_cast<double>(s.elements));
    elements.push_back(s.elements);
  }
  std::vector<unsigned> bits(step.saved.size(), 32);
  if (quantized.empty()) return bits;
  const std::vector<unsigned> chosen = gact::allocate_bits(sensitivity, elements, scheme.average_bits);
  for (std::size_t k = 0; k < quantized.size(); ++k) bits[quantized[k]] = chosen[k];
  return bits;
}

/// The part of `s` a saver keeps (a ViT head's class token of the final norm's output): what a scheme compresses.
SavedTensor part_saved(const SavedTensor& s, const Saver& saver) {
  if (saver.elements >= s.elements) return s;
  SavedTensor part = s;
  part.elements = saver.elements;
  part.bytes = checked_mul(saver.elements, s.bytes / s.elements);
  return part;
}

void add_records(std::vector<OpRecord>& to, const std::vector<OpRecord>& records, const std::string& prefix) {
  for (const OpRecord& r : records) to.push_back(ops::prefixed(r, prefix));
}

}  // namespace

bool runs_under_autocast(const Scheme& scheme) {
  return scheme.kind == SchemeKind::amp || scheme.kind == SchemeKind::mesa;
}

SchemeStep apply_scheme(const Scheme& scheme, const std::vector<Layer>& layers, const TrainingStep& step,
                        std::uint64_t batch) {
  SchemeStep out;
  out.scheme = scheme;
  const std::vector<LayerReads> reads = layer_reads(layers);
  const Rules rules{scheme, layers, batch,
                    scheme.average_bits > 0 ? gact_allocation(scheme, layers, step) : std::vector<unsigned>{}};
  const std::vector<DType> produced = autocast_dtypes(layers, reads, step);
  std::set<std::string> replaced;  // "<layer>.backward.": the records a decompress record computes instead
  // per layer, the full-precision copies its backward restores from codes (ActNN's dequantize_activation, GACT's
  // unpack hook, Mesa's): alive beside the gradients while that layer's backward runs
  std::vector<std::uint64_t> restored(layers.size(), 0);
  for (std::size_t i = 0; i < step.saved.size(); ++i) {
    const SavedTensor& s = step.saved[i];
    std::set<std::string> shared;  // the shared forms stored so far
    for (const Saver& saver : s.savers) {
      const Layer& layer = layers[saver.layer];
      for (Role r : roles(layer, saver.what)) {
        Form f = rules.of(layer, part_saved(s, saver), i, saver.what, r, produced[i]);
        // kept as saved, or as autocast produced it (no cast of the saver's own): the whole storage, shared with
        // every saver keeping it so — a view of it (a chunk, a slice) keeps all of it alive
        if (f.compress.empty() && f.key == s.dtype)
          f = raw(s);
        else if (f.compress.empty() && !f.own && f.key == name(produced[i]))
          f = raw(s, produced[i]);
        else if (saver.elements < s.elements)
          f.own = true;  // a part compressed: apart from the others
        if (f.bytes == 0 || (!f.own && !shared.insert(f.key).second)) continue;
        if (f.kept.empty()) f.kept = {{kept_type(f.key), f.bytes}};
        out.stored.push_back({i, saver.layer, f.key, f.bytes, f.kept});
        out.activation_bytes = checked_add(out.activation_bytes, f.bytes);
        add_records(out.compress, f.compress, layer.name + ".compress");
        add_records(out.decompress, f.decompress, layer.name + ".decompress");
        if (f.replaces_backward)  // Few-Bit's backward reads the codes themselves: nothing restored
          replaced.insert(layer.name + ".backward.");
        else if (!f.decompress.empty())  // at the width the layer computes in: under autocast (Mesa's), else as saved
          restored[saver.layer] =
              checked_add(restored[saver.layer], runs_under_autocast(scheme) && s.dtype == "fp32"
                                                     ? storage_bytes(produced[i], part_saved(s, saver).elements)
                                                     : part_saved(s, saver).bytes);
      }
    }
  }
  // autocast's fp16 copy of each weight a matmul reads, saved by autograd as the matmul's operand (Mesa's layers
  // keep the fp32 weight and cast inside)
  if (scheme.kind == SchemeKind::amp)
    for (std::size_t layer = 0; layer < step.matmul_weights.size(); ++layer)
      if (const std::uint64_t bytes = storage_bytes(DType::fp16, step.matmul_weights[layer])) {
        out.stored.push_back({StoredTensor::kWeightCopy, layer, "fp16", bytes, {{DType::fp16, bytes}}});
        out.activation_bytes = checked_add(out.activation_bytes, bytes);
      }
  std::copy_if(step.backward.begin(), step.backward.end(), std::back_inserter(out.backward), [&](const OpRecord& r) {
    return std::none_of(replaced.begin(), replaced.end(), [&](const std::string& p) { return r.name.starts_with(p); });
  });
  // the curve of `none` with each layer's held saved bytes replaced by the scheme's, and in a layer's backward its
  // restored copies
  std::vector<std::uint64_t> held_none(layers.size(), 0), held(layers.size(), 0);
  for (const SavedTensor& s : step.saved) held_none[s.first_saver] += s.bytes;
  for (const StoredTensor& s : out.stored) held[s.first_saver] += s.bytes;
  for (std::size_t i = 1; i < layers.size(); ++i) {
    held_none[i] = checked_add(held_none[i], held_none[i - 1]);
    held[i] = checked_add(held[i], held[i - 1]);
  }
  const std::size_t n = layers.size();
  for (std::size_t p = 0; p < step.memory_curve.size(); ++p) {
    const std::size_t layer = p < n ? p : 2 * n - 1 - p;  // forward in order, backward in reverse
    MemoryPoint point = step.memory_curve[p];
    point.bytes = checked_add(point.bytes - held_none[layer], held[layer]);
    if (p >= n) point.bytes = checked_add(point.bytes, restored[layer]);
    out.peak_bytes = std::max(out.peak_bytes, point.bytes);
    out.memory_curve.push_back(std::move(point));
  }
  return out;
}

}  // namespace ecosim::kernels::schemes
