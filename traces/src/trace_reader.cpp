// Parsing and validation of trace format v1: every record, every field, with line numbers in the errors.
#include <set>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/text_file.hpp"
#include "ecosim/traces/trace.hpp"

namespace ecosim::trace {

namespace {

// Shape fields beyond this are not a real workload (and would overflow products of a few of them).
constexpr std::uint64_t kMaxShape = std::uint64_t{1} << 40;

class LineParser {
 public:
  LineParser(const std::string& origin, std::size_t line) : origin_(origin), line_(line) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw Error(origin_ + ":" + std::to_string(line_) + ": " + (field.empty() ? "" : "field '" + field + "': ") +
                problem);
  }

  void only_fields(const nlohmann::json& j, const std::set<std::string>& allowed) const {
    for (const auto& [key, value] : j.items())
      if (!allowed.contains(key)) fail(key, "unknown field");
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

  OpRecord op(const nlohmann::json& j) const {
    only_fields(j, {"record", "name", "kind", "func", "batch", "m", "n", "k", "a_dtype", "b_dtype", "params", "ops",
                    "bytes_read", "bytes_written"});
    OpRecord r;
    r.name = string(j, "name");
    if (r.name.empty()) fail("name", "must not be empty");
    const auto kind = parse_op_class(string(j, "kind"));
    if (!kind) fail("kind", "unsupported operation kind '" + j["kind"].get<std::string>() + "'");
    r.kind = *kind;
    if (j.contains("func")) r.func = string(j, "func");
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
      for (const auto& [key, value] : p.items()) r.params[key] = count(value, "params." + key);
    }
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
    return r;
  }

  Header header(const nlohmann::json& j) const {
    only_fields(j, {"record", "format", "version", "producer", "convention", "workload"});
    if (string(j, "format") != kFormatName) fail("format", "not an ecosim trace (expected 'ecosim-trace')");
    const auto& v = field(j, "version");
    if (!v.is_number_integer()) fail("version", "must be an integer");
    if (v.get<std::int64_t>() != kFormatVersion)
      fail("version", "unsupported trace version " + v.dump() + " (this build reads version 1)");
    Header h;
    h.producer = string(j, "producer");
    const std::string convention = string(j, "convention");
    if (convention != "paper" && convention != "exact") fail("convention", "must be 'paper' or 'exact'");
    h.convention = parse_convention(convention);
    if (j.contains("workload")) {
      if (!j["workload"].is_object()) fail("workload", "must be an object");
      h.workload = j["workload"];
    }
    return h;
  }

 private:
  const std::string& origin_;
  std::size_t line_;
};

}  // namespace

Trace parse(std::string_view text, const std::string& origin) {
  Trace trace;
  bool have_header = false, ended = false;
  std::size_t line_no = 0, pos = 0;
  if (text.empty()) throw Error(origin + ": empty trace (no header)");
  while (pos < text.size()) {
    const std::size_t eol = text.find('\n', pos);
    const std::string_view line = text.substr(pos, eol == std::string_view::npos ? text.size() - pos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    const LineParser p(origin, ++line_no);
    if (ended) p.fail("", "content after the end record");
    if (line.empty()) p.fail("", "blank line");
    nlohmann::json j = parse_json(line, origin, {}, line_no);
    if (!j.is_object()) p.fail("", "a record must be a JSON object");
    const std::string kind = p.string(j, "record");
    if (!have_header) {
      if (kind != "header") p.fail("record", "the first record must be the header");
      trace.header = p.header(j);
      have_header = true;
    } else if (kind == "op") {
      trace.ops.push_back(p.op(j));
    } else if (kind == "end") {
      p.only_fields(j, {"record", "ops"});
      if (p.count(p.field(j, "ops"), "ops") != trace.ops.size())
        p.fail("ops", "end record counts " + j["ops"].dump() + " ops but the trace holds " +
                          std::to_string(trace.ops.size()));
      ended = true;
    } else {
      p.fail("record", kind == "header" ? "a second header" : "unknown record type '" + kind + "'");
    }
  }
  if (!ended) throw Error(origin + ":" + std::to_string(line_no) + ": trace is truncated (no end record)");
  return trace;
}

Trace read_file(const std::string& path) { return parse(read_text_file(path), path); }

}  // namespace ecosim::trace
