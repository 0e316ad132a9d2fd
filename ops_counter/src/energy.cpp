// TechTable: parsing of the per-op energy data file and the energy of counts.
#include "ecosim/ops_counter/energy.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"
#include "ecosim/ops_counter/text_file.hpp"

namespace ecosim {

namespace embedded {
std::string_view tech_45nm_json();
}

namespace {
// One operation above a microjoule is no digital operation; the bound also keeps energy sums finite.
constexpr double kMaxOpEnergyPj = 1e6;
// A complex operation of more basic operations than this is no single vector-unit operation.
constexpr std::uint64_t kMaxDecomposedOps = 1000;
// A derived energy is rounded to 1e-9 pJ (far finer than any table entry's digits), so that it is the value its
// inputs define (7 × 3.7 + 2 × 0.9 is 27.7, not 27.700000000000003) and reports print it so. Rounded as a whole
// number of steps divided by the steps per pJ: the division is correctly rounded, a multiplication by 1e-9 not.
constexpr double kDerivedEnergyStepsPerPj = 1e9;

// The keys of the table, of a decomposition and of an ops entry: any other is an error.
constexpr std::string_view kTableKeys[] = {"name", "description", "decompositions", "ops"};
constexpr std::string_view kDecompositionKeys[] = {"ops", "derivation"};
constexpr std::string_view kOpKeys[] = {"op", "dtype", "pj", "decomposed_at", "source", "estimated"};

OpKind op_named(const nlohmann::json& text, const std::string& where) {
  const auto op = text.is_string() ? parse_op_kind(text.get<std::string>()) : std::nullopt;
  if (!op) throw Error(where + ": unknown op " + text.dump());
  return *op;
}

/// The "decompositions" object: {"exp": {"ops": {"mul": 6, "add": 6}, "derivation": "..."}, ...}.
std::map<OpKind, Decomposition> parse_decompositions(const nlohmann::json& doc, const std::string& origin) {
  std::map<OpKind, Decomposition> out;
  if (!doc.contains("decompositions")) return out;
  const nlohmann::json& all = doc["decompositions"];
  if (!all.is_object()) throw Error(origin + ": 'decompositions' must be an object");
  for (const auto& [key, e] : all.items()) {
    const std::string where = origin + ": decompositions." + key;
    const OpKind op = op_named(key, where);
    if (!e.is_object() || !e.contains("ops") || !e["ops"].is_object() || e["ops"].empty() ||
        !e.contains("derivation") || !e["derivation"].is_string())
      throw Error(where + " needs a non-empty object 'ops' and a string 'derivation'");
    reject_unknown_keys(e, kDecompositionKeys, origin, "decompositions." + key);
    Decomposition d{{}, e["derivation"].get<std::string>()};
    std::uint64_t total = 0;
    for (const auto& [part, count] : e["ops"].items()) {
      if (!count.is_number_unsigned() || count.get<std::uint64_t>() == 0)
        throw Error(where + ".ops." + part + " must be a positive integer");
      d.ops[static_cast<std::size_t>(op_named(part, where + ".ops"))] = count.get<std::uint64_t>();
      total += std::min(count.get<std::uint64_t>(), kMaxDecomposedOps + 1);
    }
    if (total > kMaxDecomposedOps)
      throw Error(fmt::format("{}: more than {} basic operations", where, kMaxDecomposedOps));
    out.emplace(op, std::move(d));
  }
  for (const auto& [op, d] : out)
    for (OpKind part : kAllOpKinds)
      if (d.ops[static_cast<std::size_t>(part)] && out.contains(part))
        throw Error(
            fmt::format("{}: decompositions.{} uses {}, which is itself decomposed", origin, name(op), name(part)));
  return out;
}

/// Σ count × pJ of the decomposition's basic operations at `dtype`, with the derivation as its source.
OpEnergy decomposed_energy(const Decomposition& d, DType dtype, const TechTable& basic, const std::string& where) {
  double pj = 0;
  std::string parts;
  for (OpKind part : kAllOpKinds) {
    const std::uint64_t count = d.ops[static_cast<std::size_t>(part)];
    if (count == 0) continue;
    const OpEnergy* e = basic.find(part, dtype);
    if (!e)
      throw Error(fmt::format("{}: its decomposition needs the energy of {} on {}", where, name(part), name(dtype)));
    pj += static_cast<double>(count) * e->pj;
    parts += fmt::format("{}{} {} {}", parts.empty() ? "" : " + ", count, name(dtype), name(part));
  }
  return {std::round(pj * kDerivedEnergyStepsPerPj) / kDerivedEnergyStepsPerPj, d.derivation + ": " + parts};
}
}  // namespace

TechTable TechTable::parse(std::string_view json_text, const std::string& origin) {
  const nlohmann::json doc = parse_json(json_text, origin);
  if (!doc.is_object() || !doc.contains("name") || !doc["name"].is_string() || !doc.contains("ops") ||
      !doc["ops"].is_array())
    throw Error(origin + ": a technology table needs a string 'name' and an array 'ops'");
  reject_unknown_keys(doc, kTableKeys, origin);
  TechTable t;
  t.name_ = doc["name"].get<std::string>();
  t.decompositions_ = parse_decompositions(doc, origin);
  struct Decomposed {
    std::pair<OpKind, DType> key;
    DType at;
    std::string note, where;
  };
  std::vector<Decomposed> decomposed;  // derived once every measured entry is known
  const auto add = [&t](std::pair<OpKind, DType> key, OpEnergy e, const std::string& where) {
    if (!(e.pj >= 0 && e.pj <= kMaxOpEnergyPj))
      throw Error(fmt::format("{}: pj {} is out of range [0, {:g}]", where, e.pj, kMaxOpEnergyPj));
    if (!t.ops_.emplace(key, std::move(e)).second)
      throw Error(where + ": duplicate entry for " + std::string(ecosim::name(key.first)) + "/" +
                  std::string(ecosim::name(key.second)));
  };
  std::size_t i = 0;
  for (const auto& e : doc["ops"]) {
    const std::string path = "ops[" + std::to_string(i++) + "]", where = origin + ": " + path;
    const bool measured = e.is_object() && e.contains("pj") && e["pj"].is_number() && !e.contains("decomposed_at");
    const bool derived =
        e.is_object() && e.contains("decomposed_at") && e["decomposed_at"].is_string() && !e.contains("pj");
    if (!e.is_object() || !e.contains("op") || !e["op"].is_string() || !e.contains("dtype") ||
        !e["dtype"].is_string() || !(measured || derived))
      throw Error(where + " needs string 'op', string 'dtype' and either number 'pj' or string 'decomposed_at'");
    reject_unknown_keys(e, kOpKeys, origin, path);
    const auto op = parse_op_kind(e["op"].get<std::string>());
    const auto dtype = parse_dtype(e["dtype"].get<std::string>());
    if (!op) throw Error(where + ": unknown op '" + e["op"].get<std::string>() + "'");
    if (!dtype) throw Error(where + ": unknown dtype '" + e["dtype"].get<std::string>() + "'");
    for (const char* key : {"source", "estimated"})
      if (e.contains(key) && !e[key].is_string()) throw Error(where + ": '" + key + "' must be a string");
    if (derived) {
      const auto at = parse_dtype(e["decomposed_at"].get<std::string>());
      if (!at) throw Error(where + ": unknown dtype '" + e["decomposed_at"].get<std::string>() + "'");
      decomposed.push_back({{*op, *dtype}, *at, e.value("estimated", std::string{}), where});
      continue;
    }
    std::string source = e.value("source", std::string{});
    if (e.contains("estimated")) source = "estimated: " + e["estimated"].get<std::string>();
    add({*op, *dtype}, OpEnergy{e["pj"].get<double>(), source}, where);
  }
  for (const Decomposed& d : decomposed) {  // (a decomposition's parts are never decomposed themselves)
    const Decomposition* how = t.decomposition(d.key.first);
    if (!how)
      throw Error(
          fmt::format("{}: 'decomposed_at' but 'decompositions' has no {}", d.where, ecosim::name(d.key.first)));
    OpEnergy e = decomposed_energy(*how, d.at, t, d.where);
    e.source = "estimated: " + (d.note.empty() ? "" : d.note + "; ") + e.source;
    add(d.key, std::move(e), d.where);
  }
  return t;
}

TechTable TechTable::builtin_45nm() { return parse(embedded::tech_45nm_json(), "builtin tech_45nm.json"); }

TechTable TechTable::load(const std::string& path) { return parse(read_text_file(path, kMaxJsonDocumentBytes), path); }

const OpEnergy* TechTable::find(OpKind k, DType t) const {
  const auto it = ops_.find({k, t});
  return it == ops_.end() ? nullptr : &it->second;
}

const Decomposition* TechTable::decomposition(OpKind k) const {
  const auto it = decompositions_.find(k);
  return it == decompositions_.end() ? nullptr : &it->second;
}

double TechTable::energy_pj(const OpCounts& counts) const {
  double total = 0;
  for (OpKind k : kAllOpKinds)
    for (DType t : kAllDTypes) {
      const std::uint64_t n = counts.ops(k, t);
      if (n == 0) continue;
      const OpEnergy* e = find(k, t);
      if (!e)
        throw Error("technology table '" + name_ + "' has no energy for " + std::string(ecosim::name(k)) + " on " +
                    std::string(ecosim::name(t)));
      total += static_cast<double>(n) * e->pj;
    }
  return total;
}

}  // namespace ecosim
