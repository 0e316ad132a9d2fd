// Parsing and validation of trace formats v2 and v1 (converted to v2 as read, v1_conversion.hpp): every record,
// every field, with line numbers in the errors; the streaming TraceReader, and whole-trace parse/read_file on
// top of it.
#include "ecosim/traces/trace_reader.hpp"

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <set>
#include <span>
#include <sstream>
#include <string_view>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/conv_shape.hpp"
#include "ecosim/ops_counter/input_files.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"
#include "ecosim/ops_counter/primitives.hpp"
#include "ecosim/ops_counter/text_file.hpp"
#include "v1_conversion.hpp"

namespace ecosim::trace {

namespace {

class LineParser {
 public:
  LineParser(const std::string& origin, std::size_t line) : origin_(origin), line_(line) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw Error(origin_ + ":" + std::to_string(line_) + ": " + (field.empty() ? "" : "field '" + field + "': ") +
                problem);
  }

  /// Fails "field 'x': unknown field (did you mean …?)" for a field outside `allowed` (json_reader.hpp).
  void only_fields(const nlohmann::json& j, std::initializer_list<std::string_view> allowed) const {
    for (const auto& [key, value] : j.items())
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        fail(key, unknown_key_problem(key, std::span<const std::string_view>(allowed.begin(), allowed.end()),
                                      "unknown field"));
  }

  const nlohmann::json& field(const nlohmann::json& j, const std::string& key) const {
    const auto it = j.find(key);
    if (it == j.end()) fail(key, "missing");
    return *it;
  }

  std::string string(const nlohmann::json& j, const std::string& key) const {
    const auto& v = field(j, key);
    if (!v.is_string()) fail(key, "must be a string");
    return v.get<std::string>();
  }

  /// An attention's markers as the accelerator and the GPU model read them: `causal` 1 (or 0, not causal),
  /// `window` W >= 1 and `kv_groups` (dividing the record's batch) on causal records only, `packed_heads` dividing
  /// the record's m — anything else would be read as no mask, no band or no grouping, silently.
  void check_attention_params(const std::map<std::string, std::uint64_t>& params, std::uint64_t batch,
                              std::uint64_t rows) const {
    const auto causal = params.find(std::string(ops::kCausalParam));
    if (causal != params.end() && causal->second > 1)
      fail("params." + causal->first, "must be 1 (a causal attention's record) or 0");
    const bool is_causal = causal != params.end() && causal->second == 1;
    const auto window = params.find(std::string(ops::kWindowParam));
    if (window != params.end()) {
      if (window->second == 0) fail("params." + window->first, "must be >= 1 (leave it out for no window)");
      if (!is_causal)
        fail("params." + window->first, "a sliding window bounds a causal attention's keys: needs params.causal 1");
    }
    const auto kv_groups = params.find(std::string(ops::kKvGroupsParam));
    if (kv_groups != params.end()) {
      if (kv_groups->second == 0 || batch % kv_groups->second)
        fail("params." + kv_groups->first, "must divide the record's batch (its K/V heads, >= 1)");
      if (!is_causal)
        fail("params." + kv_groups->first,
             "grouped K/V heads mark a causal attention's records: needs params.causal 1");
    }
    const auto packed = params.find(std::string(ops::kPackedHeadsParam));
    if (packed != params.end() && (packed->second == 0 || rows % packed->second))
      fail("params." + packed->first, "must divide the record's m (the query heads stacked as its rows, >= 1)");
  }

  std::uint64_t count(const nlohmann::json& v, const std::string& key) const {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
      fail(key, "must be a non-negative integer");
    return v.get<std::uint64_t>();
  }

  std::uint64_t shape(const nlohmann::json& j, const std::string& key) const {
    const std::uint64_t v = count(field(j, key), key);
    if (v == 0 || v > kMaxShape) fail(key, "must be an integer in 1..2^40");
    return v;
  }

  DType dtype(const nlohmann::json& j, const std::string& key) const {
    const auto t = parse_dtype(string(j, key));
    if (!t) fail(key, "unknown data type '" + j[key].get<std::string>() + "'");
    return *t;
  }

  /// {"fp32": 12, ...} → calls add(dtype, n) for each entry.
  template <typename Add>
  void by_dtype(const nlohmann::json& v, const std::string& key, Add add) const {
    if (!v.is_object()) fail(key, "must be an object of data type → count");
    for (const auto& [t, n] : v.items()) {
      const auto dt = parse_dtype(t);
      if (!dt) fail(key, "unknown data type '" + t + "'");
      add(*dt, count(n, key + "." + t));
    }
  }

  /// An exact trace's matrix product or convolution multiplies batch·m·n·k times (the accelerator and the GPU model
  /// time it by its shape, `count --trace` adds its ops: they must agree), a causal one's attended pairs only (at
  /// most that).
  void check_product_ops(const OpRecord& r) const {
    std::uint64_t muls = 0;
    for (DType t : kAllDTypes) muls = checked_add(muls, r.counts.ops(OpKind::mul, t));
    const std::uint64_t product = checked_product({r.batch, r.m, r.n, r.k});
    const auto causal = r.params.find(std::string(ops::kCausalParam));
    const bool attended_only = causal != r.params.end() && causal->second == 1;  // 0: not causal
    if (attended_only ? muls > product : muls != product)
      fail("ops.mul", std::to_string(muls) +
                          " multiplications where its shape multiplies batch·m·n·k = " + std::to_string(product) +
                          " times (" + (attended_only ? "at most that, as causal" : "a product's count") +
                          "): its counts and its shape disagree");
  }

  /// Appends the op record of `j` to `out`; a version-1 hash record as its components (v1_conversion.hpp).
  void op(const nlohmann::json& j, int version, Convention convention, std::vector<OpRecord>& out) const {
    only_fields(j, {"record", "name", "kind", "func", "batch", "m", "n", "k", "a_dtype", "b_dtype", "params", "group",
                    "ops", "bytes_read", "bytes_written"});
    if (version == 1 && j.contains("group")) fail("group", "unknown field (version 1 has no groups)");
    OpRecord r;
    r.name = string(j, "name");
    if (r.name.empty()) fail("name", "must not be empty");
    const std::string kind_name = string(j, "kind");
    const bool v1_hash = version == 1 && kind_name == v1::kHashKind;
    const auto kind = parse_op_class(kind_name);
    if (!kind && !v1_hash) fail("kind", "unsupported operation kind '" + kind_name + "'");
    if (kind) r.kind = *kind;
    if (j.contains("func")) r.func = string(j, "func");
    if (j.contains("group")) {
      r.group = string(j, "group");
      if (r.group.empty()) fail("group", "must not be empty (leave the field out for no group)");
    }
    r.batch = shape(j, "batch");
    r.m = shape(j, "m");
    r.n = shape(j, "n");
    r.k = shape(j, "k");
    try {
      checked_product({r.batch, r.m, r.n, r.k});
    } catch (const Error&) {
      fail("batch", "batch·m·n·k overflows 64 bits");
    }
    r.a_dtype = dtype(j, "a_dtype");
    r.b_dtype = dtype(j, "b_dtype");
    if (r.kind == OpClass::popcount_accumulate && r.a_dtype != DType::binary)
      fail("a_dtype", "popcount_accumulate needs binary codes as its first operand");
    if (j.contains("params")) {
      const auto& p = j["params"];
      if (!p.is_object()) fail("params", "must be an object of name → non-negative integer");
      for (const auto& [key, value] : p.items()) {
        // a conv record's geometry is checked whole below; a version-1 hash record's anchors on conversion
        if (r.kind != OpClass::conv && !(v1_hash && key == "support") &&
            std::find(std::begin(ops::kRecordParams), std::end(ops::kRecordParams), key) ==
                std::end(ops::kRecordParams))
          fail("params." + key, unknown_key_problem(key, ops::kRecordParams, "unknown param"));
        r.params[key] = count(value, "params." + key);
      }
      check_attention_params(r.params, r.batch, r.m);
      // sequential passes: a kernel each; a product's batch holds them
      const auto passes = r.params.find(std::string(ops::kPassesParam));
      const bool product = r.kind == OpClass::gemm || r.kind == OpClass::popcount_accumulate || r.kind == OpClass::conv;
      if (passes != r.params.end() && (passes->second == 0 || (product && r.batch % passes->second)))
        fail("params." + passes->first, product ? "must divide the record's batch (its sequential passes, >= 1)"
                                                : "must be >= 1 (the record's sequential passes)");
    }
    if (r.kind == OpClass::conv) {
      if (version == 1) fail("kind", "version 1 has no conv kind");
      try {
        conv_shape(r);
      } catch (const Error& e) {
        fail("params", e.what());
      }
    }
    if (v1_hash && r.params.contains("support") && (r.params["support"] == 0 || r.params["support"] > kMaxShape))
      fail("params.support", "must be an integer in 1..2^40");
    const auto& ops = field(j, "ops");
    if (!ops.is_object()) fail("ops", "must be an object of op kind → {data type → count}");
    try {
      for (const auto& [kind_name, per_type] : ops.items()) {
        const auto k = parse_op_kind(kind_name);
        if (!k) fail("ops", "unknown op kind '" + kind_name + "'");
        by_dtype(per_type, "ops." + kind_name, [&](DType t, std::uint64_t n) { r.counts.add(*k, t, n); });
      }
      by_dtype(field(j, "bytes_read"), "bytes_read", [&](DType t, std::uint64_t n) { r.counts.add_read_bytes(t, n); });
      by_dtype(field(j, "bytes_written"), "bytes_written",
               [&](DType t, std::uint64_t n) { r.counts.add_written_bytes(t, n); });
    } catch (const Error& e) {
      if (std::string_view(e.what()).starts_with(origin_)) throw;
      fail("ops", e.what());
    }
    if (convention == Convention::exact && !v1_hash && (r.kind == OpClass::gemm || r.kind == OpClass::conv))
      check_product_ops(r);
    if (!v1_hash) {
      out.push_back(std::move(r));
      return;
    }
    try {
      std::vector<OpRecord> parts = v1::hash_components(r);
      std::move(parts.begin(), parts.end(), std::back_inserter(out));
    } catch (const Error& e) {
      fail("params", std::string("the hash's components: ") + e.what());
    }
  }

  /// One line as a JSON object.
  nlohmann::json record(std::string_view line) const {
    if (line.empty()) fail("", "blank line");
    nlohmann::json j = parse_json(line, origin_, {}, line_);
    if (!j.is_object()) fail("", "a record must be a JSON object");
    return j;
  }

  Header header(const nlohmann::json& j) const {
    only_fields(j,
                {"record", "format", "version", "producer", "convention", "workload", "float_storage", "alternatives"});
    if (string(j, "format") != kFormatName) fail("format", "not an ecosim trace (expected 'ecosim-trace')");
    const auto& v = field(j, "version");
    if (!v.is_number_integer()) fail("version", "must be an integer");
    if (v.get<std::int64_t>() < kOldestFormatVersion || v.get<std::int64_t>() > kFormatVersion)
      fail("version", "unsupported trace version " + v.dump() + " (this build reads versions " +
                          std::to_string(kOldestFormatVersion) + " to " + std::to_string(kFormatVersion) + ")");
    Header h;
    h.version = v.get<int>();
    h.producer = string(j, "producer");
    const std::string convention = string(j, "convention");
    if (convention != "paper" && convention != "exact") fail("convention", "must be 'paper' or 'exact'");
    h.convention = parse_convention(convention);
    if (j.contains("workload")) {
      if (!j["workload"].is_object()) fail("workload", "must be an object");
      h.workload = j["workload"];
    }
    if (h.version == 1)
      for (const char* key : {"float_storage", "alternatives"})
        if (j.contains(key)) fail(key, "unknown field (version 1 has none)");
    if (j.contains("float_storage")) {
      const std::string storage = string(j, "float_storage");
      if (storage != "operand" && storage != "recorded") fail("float_storage", "must be 'operand' or 'recorded'");
      h.float_storage = storage == "operand" ? FloatStorage::operand : FloatStorage::recorded;
    }
    if (j.contains("alternatives")) h.alternatives = alternatives(j["alternatives"]);
    return h;
  }

  /// [{"name": "uncompressed", "ops": 2}, ...]: two or more, names non-empty and distinct, each ≥ 1 op.
  std::vector<Alternative> alternatives(const nlohmann::json& v) const {
    if (!v.is_array() || v.size() < 2) fail("alternatives", "must be an array of two or more {name, ops}");
    std::vector<Alternative> out;
    std::set<std::string> names;
    for (const nlohmann::json& a : v) {
      if (!a.is_object()) fail("alternatives", "each must be an object {name, ops}");
      only_fields(a, {"name", "ops"});
      Alternative alt{string(a, "name"), count(field(a, "ops"), "ops")};
      if (alt.name.empty()) fail("alternatives", "a name must not be empty");
      if (!names.insert(alt.name).second) fail("alternatives", "the name '" + alt.name + "' is given twice");
      if (alt.ops == 0) fail("alternatives", "'" + alt.name + "' holds no op records");
      out.push_back(std::move(alt));
    }
    return out;
  }

 private:
  const std::string& origin_;
  std::size_t line_;
};

}  // namespace

TraceReader::TraceReader(const std::string& path)
    : file_(std::make_unique<std::ifstream>(open_text_file(path))), in_(*file_), origin_(path) {
  remember_input_file(path);
  read_header();
}

TraceReader::TraceReader(std::istream& in, std::string origin) : in_(in), origin_(std::move(origin)) { read_header(); }

void TraceReader::read_header() {
  if (!read_line()) throw Error(origin_ + ": empty trace (no header)");
  const LineParser p(origin_, line_no_);
  const nlohmann::json j = p.record(line_);
  if (p.string(j, "record") != "header") p.fail("record", "the first record must be the header");
  header_ = p.header(j);
}

bool TraceReader::read_line() {
  constexpr std::size_t kFirstBufferBytes = 4096;
  if (buffer_.empty()) buffer_.resize(kFirstBufferBytes);
  std::size_t length = 0;
  for (;;) {
    // Stores up to the buffer's free space less one (for the NUL); extracts a '\n' without storing it.
    in_.getline(buffer_.data() + length, static_cast<std::streamsize>(buffer_.size() - length));
    const auto got = static_cast<std::size_t>(in_.gcount());
    if (!in_.fail()) {  // a whole line, ended by '\n' (counted in gcount) or by the end of the input
      length += in_.eof() ? got : got - 1;
      break;
    }
    if (in_.eof()) {  // nothing more: the line so far (if any) was the last, without a '\n'
      if (length == 0) return false;
      break;
    }
    length += got;  // the buffer is full and the line goes on
    if (buffer_.size() > kMaxLineBytes)
      LineParser(origin_, line_no_ + 1).fail("", "line longer than " + std::to_string(kMaxLineBytes) + " bytes");
    in_.clear();
    buffer_.resize(std::min(2 * buffer_.size(), kMaxLineBytes + 1));
  }
  line_ = std::string_view(buffer_.data(), length);
  ++line_no_;
  return true;
}

bool TraceReader::read_op() {
  if (ended_) return false;
  if (!read_line()) throw Error(origin_ + ":" + std::to_string(line_no_) + ": trace is truncated (no end record)");
  const LineParser p(origin_, line_no_);
  const nlohmann::json j = p.record(line_);
  const std::string kind = p.string(j, "record");
  if (kind == "op") {
    p.op(j, header_.version, header_.convention, pending_);
    ++ops_;
    return true;
  }
  if (kind != "end") p.fail("record", kind == "header" ? "a second header" : "unknown record type '" + kind + "'");
  p.only_fields(j, {"record", "ops"});
  if (p.count(p.field(j, "ops"), "ops") != ops_)
    p.fail("ops", "end record counts " + j["ops"].dump() + " ops but the trace holds " + std::to_string(ops_));
  if (!header_.alternatives.empty()) {
    std::uint64_t declared = 0;
    for (const Alternative& a : header_.alternatives) declared = checked_add(declared, a.ops);
    if (declared != ops_)
      p.fail("ops", "the header's alternatives hold " + std::to_string(declared) + " ops but the trace holds " +
                        std::to_string(ops_));
  }
  ended_ = true;
  if (read_line()) LineParser(origin_, line_no_).fail("", "content after the end record");
  return false;
}

bool TraceReader::next(OpRecord& op) {
  if (pending_.empty() && !read_op()) return false;
  if (header_.version == 1 && pending_.front().group.empty() && v1::may_start_attention(pending_.front())) {
    while (pending_.size() < v1::kAttentionRecords && read_op()) {}
    v1::group_attention(pending_);
  }
  op = std::move(pending_.front());
  pending_.erase(pending_.begin());
  return true;
}

namespace {
Trace read_all(TraceReader& reader) {
  Trace trace{reader.header(), {}};
  OpRecord op;
  while (reader.next(op)) trace.ops.push_back(op);
  return trace;
}
}  // namespace

Trace parse(std::string_view text, const std::string& origin) {
  std::istringstream in{std::string(text)};
  TraceReader reader(in, origin);
  return read_all(reader);
}

Trace read_file(const std::string& path) {
  TraceReader reader(path);
  return read_all(reader);
}

}  // namespace ecosim::trace
