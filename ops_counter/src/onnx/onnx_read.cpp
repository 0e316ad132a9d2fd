// Reading an ONNX model from protobuf into an onnx_import::Graph: a recursion-limited parse, the checks that
// make the graph countable (defined inputs, no cycle, dims in range), ONNX shape inference and the tensors'
// shapes. Externally stored tensors contribute their dims; their files are never opened.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/stubs/logging.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <Eigen/Core>

#include <climits>
#include <cstring>
#include <deque>
#include <functional>
#include <set>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/variant_registry.hpp"
#include "onnx_graph.hpp"
#include "onnx_guard.hpp"
#include "onnx_shape_eval.hpp"
#include "onnx_tied.hpp"

namespace ecosim::onnx_import {

namespace {

/// Nesting of protobuf messages allowed (graphs inside If/Loop attributes nest); ONNX models need a handful.
constexpr int kMaxMessageNesting = 64;
/// Rounds of shape inference and evaluation (each round resolves at least one more tensor's shape).
constexpr int kMaxInferenceRounds = 16;

struct Reader {
  const std::string& origin;
  Graph graph;

  [[noreturn]] void fail(const std::string& what) const { throw Error("ONNX model '" + origin + "': " + what); }

  std::uint64_t dimension(std::int64_t v, const std::string& tensor) const {
    if (v < 0) fail("tensor '" + tensor + "' has a negative dimension " + std::to_string(v));
    if (static_cast<std::uint64_t>(v) > kMaxDimension)
      fail("tensor '" + tensor + "' has dimension " + std::to_string(v) + " above " + std::to_string(kMaxDimension));
    return static_cast<std::uint64_t>(v);
  }

  /// The dims, checked: each in range and their product representable.
  std::vector<std::uint64_t> checked_dims(const std::vector<std::int64_t>& raw, const std::string& tensor) const {
    std::vector<std::uint64_t> dims;
    std::uint64_t elements = 1;
    for (std::int64_t v : raw) {
      dims.push_back(dimension(v, tensor));
      if (__builtin_mul_overflow(elements, dims.back(), &elements))
        fail("tensor '" + tensor + "' has more elements than 64 bits count");
    }
    return dims;
  }

  void value_info(const onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().elem_type() == onnx::TensorProto::BOOL)
      graph.tensors[v.name()].boolean = true;
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
    std::vector<std::int64_t> raw;
    for (const auto& d : v.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value()) return;  // symbolic or unknown: the shape stays unknown
      raw.push_back(d.dim_value());
    }
    Tensor& t = graph.tensors[v.name()];
    if (!t.dims) t.dims = checked_dims(raw, v.name());
  }

  /// A 16-bit float's value from its bits (ONNX stores them in raw data, or each in an int32_data entry).
  static float half_value(std::uint32_t bits, bool bfloat16) {
    const auto b = static_cast<std::uint16_t>(bits);
    return bfloat16 ? static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(b))
                    : static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(b));
  }

  static bool is_half(const onnx::TensorProto& p) {
    return p.data_type() == onnx::TensorProto::FLOAT16 || p.data_type() == onnx::TensorProto::BFLOAT16;
  }

  static std::optional<double> scalar_of(const onnx::TensorProto& p) {
    if (p.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
    const std::string& raw = p.raw_data();
    auto from_raw = [&raw]<typename T>(T) -> std::optional<double> {
      if (raw.size() != sizeof(T)) return std::nullopt;
      T v;
      std::memcpy(&v, raw.data(), sizeof v);
      return static_cast<double>(v);
    };
    switch (p.data_type()) {
      case onnx::TensorProto::FLOAT: return p.float_data_size() == 1 ? p.float_data(0) : from_raw(float{});
      case onnx::TensorProto::DOUBLE: return p.double_data_size() == 1 ? p.double_data(0) : from_raw(double{});
      case onnx::TensorProto::INT64:
        return p.int64_data_size() == 1 ? static_cast<double>(p.int64_data(0)) : from_raw(std::int64_t{});
      case onnx::TensorProto::INT32:
        return p.int32_data_size() == 1 ? static_cast<double>(p.int32_data(0)) : from_raw(std::int32_t{});
      case onnx::TensorProto::FLOAT16:
      case onnx::TensorProto::BFLOAT16: {
        const bool brain = p.data_type() == onnx::TensorProto::BFLOAT16;
        if (p.int32_data_size() == 1) return half_value(static_cast<std::uint32_t>(p.int32_data(0)), brain);
        const std::optional<double> bits = from_raw(std::uint16_t{});
        return bits ? std::optional<double>(half_value(static_cast<std::uint32_t>(*bits), brain)) : std::nullopt;
      }
      default: return std::nullopt;
    }
  }

  /// The values of a small inline tensor: integers and booleans exactly, float and double as double.
  static std::optional<Values> values_of(const onnx::TensorProto& p, std::uint64_t elements) {
    if (p.data_location() == onnx::TensorProto::EXTERNAL || elements > kMaxFoldedElements) return std::nullopt;
    const std::string& raw = p.raw_data();
    Values v;
    auto from_raw = [&]<typename T>(T, auto& out) {
      if (!out.empty() || raw.size() != elements * sizeof(T)) return;
      std::vector<T> narrow(elements);
      if (elements) std::memcpy(narrow.data(), raw.data(), raw.size());
      out.assign(narrow.begin(), narrow.end());
    };
    switch (p.data_type()) {
      case onnx::TensorProto::INT64:
        v.ints.assign(p.int64_data().begin(), p.int64_data().end());
        from_raw(std::int64_t{}, v.ints);
        break;
      case onnx::TensorProto::INT32:
      case onnx::TensorProto::INT16:
      case onnx::TensorProto::INT8:
      case onnx::TensorProto::UINT8:
      case onnx::TensorProto::UINT16:
      case onnx::TensorProto::BOOL:
        v.ints.assign(p.int32_data().begin(), p.int32_data().end());
        if (p.data_type() == onnx::TensorProto::INT32) from_raw(std::int32_t{}, v.ints);
        if (p.data_type() == onnx::TensorProto::INT16) from_raw(std::int16_t{}, v.ints);
        if (p.data_type() == onnx::TensorProto::INT8) from_raw(std::int8_t{}, v.ints);
        if (p.data_type() == onnx::TensorProto::UINT8 || p.data_type() == onnx::TensorProto::BOOL)
          from_raw(std::uint8_t{}, v.ints);
        if (p.data_type() == onnx::TensorProto::UINT16) from_raw(std::uint16_t{}, v.ints);
        if (p.data_type() == onnx::TensorProto::BOOL)
          for (auto& b : v.ints) b = b != 0;
        break;
      case onnx::TensorProto::FLOAT:
        v.real = true;
        v.reals.assign(p.float_data().begin(), p.float_data().end());
        from_raw(float{}, v.reals);
        break;
      case onnx::TensorProto::DOUBLE:
        v.real = true;
        v.reals.assign(p.double_data().begin(), p.double_data().end());
        from_raw(double{}, v.reals);
        break;
      case onnx::TensorProto::FLOAT16:
      case onnx::TensorProto::BFLOAT16: {
        std::vector<std::int64_t> bits(p.int32_data().begin(), p.int32_data().end());
        from_raw(std::uint16_t{}, bits);
        v.real = true;
        for (const std::int64_t b : bits)
          v.reals.push_back(half_value(static_cast<std::uint32_t>(b), p.data_type() == onnx::TensorProto::BFLOAT16));
        break;
      }
      default: return std::nullopt;
    }
    if (v.size() != elements) return std::nullopt;
    return v;
  }

  /// Element e of an inline float or bool tensor of `elements` elements (floats as stored, bools as 0/1), read in
  /// place; none when the tensor is of another type, external or inconsistent.
  static std::optional<std::function<float(std::uint64_t)>> mask_values_of(const onnx::TensorProto& p,
                                                                           std::uint64_t elements) {
    if (p.data_location() == onnx::TensorProto::EXTERNAL || elements > INT_MAX) return std::nullopt;
    const std::string& raw = p.raw_data();
    if (p.data_type() == onnx::TensorProto::FLOAT) {
      if (static_cast<std::uint64_t>(p.float_data_size()) == elements)
        return [&p](std::uint64_t e) { return p.float_data(static_cast<int>(e)); };
      if (raw.size() == elements * sizeof(float))
        return [&raw](std::uint64_t e) {
          float v;
          std::memcpy(&v, raw.data() + e * sizeof v, sizeof v);
          return v;
        };
    } else if (is_half(p)) {
      const bool brain = p.data_type() == onnx::TensorProto::BFLOAT16;
      if (static_cast<std::uint64_t>(p.int32_data_size()) == elements)
        return [&p, brain](std::uint64_t e) {
          return half_value(static_cast<std::uint32_t>(p.int32_data(static_cast<int>(e))), brain);
        };
      if (raw.size() == elements * sizeof(std::uint16_t))
        return [&raw, brain](std::uint64_t e) {
          std::uint16_t v;
          std::memcpy(&v, raw.data() + e * sizeof v, sizeof v);
          return half_value(v, brain);
        };
    } else if (p.data_type() == onnx::TensorProto::BOOL) {
      if (static_cast<std::uint64_t>(p.int32_data_size()) == elements)
        return [&p](std::uint64_t e) { return p.int32_data(static_cast<int>(e)) != 0 ? 1.0f : 0.0f; };
      if (raw.size() == elements) return [&raw](std::uint64_t e) { return raw[e] != 0 ? 1.0f : 0.0f; };
    }
    return std::nullopt;
  }

  /// An inline float or bool tensor too large to fold whose elements are all equal (a torch.full or torch.ones an
  /// exporter folded), as a uniform Band: what a mask built from it with Trilu is recognised by.
  static std::optional<Band> uniform_band(const onnx::TensorProto& p, std::uint64_t elements) {
    const auto value = mask_values_of(p, elements);
    if (!value || elements == 0) return std::nullopt;
    const float first = (*value)(0);
    for (std::uint64_t e = 1; e < elements; ++e)
      if ((*value)(e) != first) return std::nullopt;
    return Band{p.data_type() != onnx::TensorProto::BOOL, first, first, 0};
  }

  /// Sets the causal_* flags of `t` from its inline float or bool values (see Tensor).
  static void classify_mask(Tensor& t, const onnx::TensorProto& p, std::uint64_t elements) {
    const auto value = mask_values_of(p, elements);
    if (value) classify_causal(t, elements, *value, p.data_type() == onnx::TensorProto::BOOL);
  }

  /// The elements an inline numeric tensor stores (raw bytes by element size, or its typed field); nullopt for
  /// other types (strings) and for raw bytes that are not whole elements.
  static std::optional<std::uint64_t> stored_elements(const onnx::TensorProto& p) {
    using T = onnx::TensorProto;
    std::uint64_t element_bytes = 0, typed = 0;
    switch (p.data_type()) {
      case T::UINT8:
      case T::INT8:
      case T::BOOL: element_bytes = 1, typed = p.int32_data_size(); break;
      case T::UINT16:
      case T::INT16:
      case T::FLOAT16:
      case T::BFLOAT16: element_bytes = 2, typed = p.int32_data_size(); break;
      case T::INT32: element_bytes = 4, typed = p.int32_data_size(); break;
      case T::FLOAT: element_bytes = 4, typed = p.float_data_size(); break;
      case T::UINT32: element_bytes = 4, typed = p.uint64_data_size(); break;
      case T::INT64: element_bytes = 8, typed = p.int64_data_size(); break;
      case T::UINT64: element_bytes = 8, typed = p.uint64_data_size(); break;
      case T::DOUBLE: element_bytes = 8, typed = p.double_data_size(); break;
      default: return std::nullopt;
    }
    if (!p.has_raw_data()) return typed;
    if (p.raw_data().size() % element_bytes) return std::nullopt;
    return p.raw_data().size() / element_bytes;
  }

  void constant(const onnx::TensorProto& p, const std::string& name, bool initializer = false) {
    Tensor& t = graph.tensors[name];
    t.constant = true;
    using T = onnx::TensorProto;
    t.float_initializer = initializer && (p.data_type() == T::FLOAT || p.data_type() == T::FLOAT16 ||
                                          p.data_type() == T::BFLOAT16 || p.data_type() == T::DOUBLE);
    t.external = p.data_location() == onnx::TensorProto::EXTERNAL;
    t.boolean = p.data_type() == onnx::TensorProto::BOOL;
    t.dims = checked_dims({p.dims().begin(), p.dims().end()}, name);
    std::uint64_t elements = 1;
    for (auto d : *t.dims) elements *= d;
    // ONNX's shape inference reads an initializer's values by its dims (libonnx 1.12's Range read past an empty
    // one: found by fuzzing), so inline data must hold exactly the elements its dims say.
    if (const auto stored = stored_elements(p); !t.external && stored && *stored != elements)
      fail("tensor '" + name + "' stores " + std::to_string(*stored) + " values where its dims hold " +
           std::to_string(elements));
    if (elements == 1) t.scalar = scalar_of(p);
    t.values = values_of(p, elements);
    if (!t.values) t.band = uniform_band(p, elements);
    classify_mask(t, p, elements);
  }

  /// Attributes ONNX's shape inference divides by or sizes with (libonnx 1.12 does not check them): positive
  /// and at most kMaxDimension; pads at most kMaxDimension.
  void check_attribute(const onnx::AttributeProto& a, const std::string& node) const {
    static const std::set<std::string> positive = {"strides", "dilations", "kernel_shape", "group", "blocksize"};
    const bool pads = a.name() == "pads" || a.name() == "output_padding" || a.name() == "output_shape";
    if (!positive.contains(a.name()) && !pads) return;
    std::vector<std::int64_t> values(a.ints().begin(), a.ints().end());
    if (a.type() == onnx::AttributeProto::INT) values.push_back(a.i());
    for (std::int64_t v : values)
      if (v < (pads ? 0 : 1) || static_cast<std::uint64_t>(v) > kMaxDimension)
        fail("node '" + node + "': attribute " + a.name() + " = " + std::to_string(v) + " is outside " +
             (pads ? "0" : "1") + ".." + std::to_string(kMaxDimension));
  }

  Node node(const onnx::NodeProto& p, std::size_t index) {
    Node n;
    n.name = p.name().empty() ? p.op_type() + "_" + std::to_string(index) : p.name();
    n.op = p.op_type();
    n.inputs.assign(p.input().begin(), p.input().end());
    n.outputs.assign(p.output().begin(), p.output().end());
    for (const auto& a : p.attribute()) {
      check_attribute(a, n.name);
      if (a.type() == onnx::AttributeProto::INT) n.ints[a.name()] = {a.i()};
      if (a.type() == onnx::AttributeProto::INTS) n.ints[a.name()] = {a.ints().begin(), a.ints().end()};
      if (a.type() == onnx::AttributeProto::STRING) n.strings[a.name()] = a.s();
      if (a.type() == onnx::AttributeProto::FLOAT) n.floats[a.name()] = a.f();
      if (a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS) n.has_subgraph = true;
      if (p.op_type() == "Constant" && a.name() == "value" && a.has_t() && p.output_size() == 1)
        constant(a.t(), p.output(0));
      if (p.op_type() == "ConstantOfShape" && a.name() == "value" && a.has_t()) n.fill = values_of(a.t(), 1);
    }
    return n;
  }

  /// The nodes in an execution order (Kahn); throws for an undefined input, a tensor produced twice or a cycle.
  std::vector<Node> sorted(std::vector<Node> nodes, const std::map<std::string, bool>& given) const {
    std::map<std::string, std::size_t> producer;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (const std::string& out : nodes[i].outputs)
        if (!out.empty() && (given.contains(out) || !producer.emplace(out, i).second))
          fail("tensor '" + out + "' is defined twice (node '" + nodes[i].name + "')");
    std::vector<std::size_t> waiting(nodes.size(), 0);
    std::vector<std::vector<std::size_t>> consumers(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (const std::string& in : nodes[i].inputs) {
        if (in.empty() || given.contains(in)) continue;
        const auto p = producer.find(in);
        if (p == producer.end()) fail("node '" + nodes[i].name + "' reads undefined tensor '" + in + "'");
        ++waiting[i];
        consumers[p->second].push_back(i);
      }
    std::deque<std::size_t> ready;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (!waiting[i]) ready.push_back(i);
    std::vector<Node> order;
    while (!ready.empty()) {
      const std::size_t i = ready.front();
      ready.pop_front();
      for (std::size_t c : consumers[i])
        if (--waiting[c] == 0) ready.push_back(c);
      order.push_back(std::move(nodes[i]));
    }
    if (order.size() != nodes.size())
      for (std::size_t i = 0; i < nodes.size(); ++i)
        if (waiting[i]) fail("the graph has a cycle through node '" + nodes[i].name + "'");
    return order;
  }
};

}  // namespace

Graph read_onnx_graph(std::string_view bytes, const std::string& origin) {
  Reader r{origin, {}};
  if (bytes.size() > INT_MAX) r.fail("larger than protobuf's 2 GiB message limit");
  onnx::ModelProto model;
  {
    google::protobuf::LogSilencer quiet;  // a refused message is reported below, once
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                              static_cast<int>(bytes.size()));
    in.SetRecursionLimit(kMaxMessageNesting);
    if (!model.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
      r.fail("not a valid ONNX protobuf (truncated, corrupt or nested deeper than " +
             std::to_string(kMaxMessageNesting) + " messages)");
  }
  if (!model.has_graph() || model.graph().node_size() == 0) r.fail("has no graph nodes");
  const onnx::GraphProto& g = model.graph();
  // Everything the graph declares, checked before shape inference sees it.
  std::map<std::string, bool> given;  // graph inputs and initializers
  for (const auto& t : g.initializer()) {
    r.constant(t, t.name(), true);
    given[t.name()] = true;
  }
  for (const auto& [copy, source] : transposed_copies(g)) {
    r.graph.tensors[copy].transposed_twin = source;
    r.graph.tensors[source].transposed_twin = copy;
  }
  for (const auto& v : g.input()) {
    r.value_info(v);
    if (!given.contains(v.name())) r.graph.inputs.push_back(v.name());  // (older exports list initializers too)
    given[v.name()] = true;
  }
  for (const auto& v : g.value_info()) r.value_info(v);
  for (const auto& v : g.output()) r.value_info(v);
  std::vector<Node> nodes;
  for (int i = 0; i < g.node_size(); ++i) nodes.push_back(r.node(g.node(i), static_cast<std::size_t>(i)));
  r.graph.nodes = r.sorted(std::move(nodes), given);
  // Subgraphs (If/Loop/Scan bodies) are not counted: removed, so that shape inference never sees their nodes.
  for (auto& node : *model.mutable_graph()->mutable_node()) {
    auto* attributes = node.mutable_attribute();
    for (int i = attributes->size() - 1; i >= 0; --i)
      if (attributes->Get(i).type() == onnx::AttributeProto::GRAPH ||
          attributes->Get(i).type() == onnx::AttributeProto::GRAPHS)
        attributes->DeleteSubrange(i, 1);
  }

  // Shape inference fills the gaps in value_info (node-level failures leave their outputs without shapes); the
  // shapes the evaluator finds (onnx_shape_eval.cpp) are then given to it, and it runs again, until nothing new is
  // found (ONNX's rules reach the ops the evaluator has none for). ONNX's own data propagation stays off: the
  // evaluator does that work, and libonnx 1.12's crashed on the Shape of a tensor without a type.
  const GuardedSchemas schemas;
  for (int round = 0; round < kMaxInferenceRounds; ++round) {
    try {
      onnx::shape_inference::InferShapes(model, &schemas, onnx::ShapeInferenceOptions(false, 0, false));
    } catch (const std::exception& e) {
      r.fail(std::string("ONNX shape inference failed: ") + e.what());
    }
    for (const auto& v : model.graph().value_info()) r.value_info(v);
    for (const auto& v : model.graph().output()) r.value_info(v);
    const std::set<std::string> evaluated = evaluate_shapes(r.graph, origin);
    bool found = false;
    for (auto& v : *model.mutable_graph()->mutable_value_info()) {
      if (!evaluated.contains(v.name()) || !v.type().has_tensor_type()) continue;
      auto* shape = v.mutable_type()->mutable_tensor_type()->mutable_shape();
      shape->clear_dim();
      for (std::uint64_t d : *r.graph.tensors[v.name()].dims)
        shape->add_dim()->set_dim_value(static_cast<std::int64_t>(d));
      found = true;
    }
    if (!found) break;
  }
  return std::move(r.graph);
}

}  // namespace ecosim::onnx_import
