// TechTable: parsing of the per-op energy data file and the energy of counts.
#include "ecosim/ops_counter/energy.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/text_file.hpp"

namespace ecosim {

namespace embedded {
std::string_view tech_45nm_json();
}

namespace {
// One operation above a microjoule is no digital operation; the bound also keeps energy sums finite.
constexpr double kMaxOpEnergyPj = 1e6;
}  // namespace

TechTable TechTable::parse(std::string_view json_text, const std::string& origin) {
  const nlohmann::json doc = parse_json(json_text, origin);
  if (!doc.is_object() || !doc.contains("name") || !doc["name"].is_string() || !doc.contains("ops") ||
      !doc["ops"].is_array())
    throw Error(origin + ": a technology table needs a string 'name' and an array 'ops'");
  TechTable t;
  t.name_ = doc["name"].get<std::string>();
  std::size_t i = 0;
  for (const auto& e : doc["ops"]) {
    const std::string where = origin + ": ops[" + std::to_string(i++) + "]";
    if (!e.is_object() || !e.contains("op") || !e["op"].is_string() || !e.contains("dtype") ||
        !e["dtype"].is_string() || !e.contains("pj") || !e["pj"].is_number())
      throw Error(where + " needs string 'op', string 'dtype' and number 'pj'");
    const auto op = parse_op_kind(e["op"].get<std::string>());
    const auto dtype = parse_dtype(e["dtype"].get<std::string>());
    if (!op) throw Error(where + ": unknown op '" + e["op"].get<std::string>() + "'");
    if (!dtype) throw Error(where + ": unknown dtype '" + e["dtype"].get<std::string>() + "'");
    const double pj = e["pj"].get<double>();
    if (!(pj >= 0 && pj <= kMaxOpEnergyPj))
      throw Error(fmt::format("{}: pj {} is out of range [0, {:g}]", where, pj, kMaxOpEnergyPj));
    for (const char* key : {"source", "estimated"})
      if (e.contains(key) && !e[key].is_string()) throw Error(where + ": '" + key + "' must be a string");
    std::string source = e.value("source", std::string{});
    if (e.contains("estimated")) source = "estimated: " + e["estimated"].get<std::string>();
    if (!t.ops_.emplace(std::pair{*op, *dtype}, OpEnergy{pj, source}).second)
      throw Error(where + ": duplicate entry for " + std::string(ecosim::name(*op)) + "/" + std::string(ecosim::name(*dtype)));
  }
  return t;
}

TechTable TechTable::builtin_45nm() { return parse(embedded::tech_45nm_json(), "builtin tech_45nm.json"); }

TechTable TechTable::load(const std::string& path) { return parse(read_text_file(path, kMaxJsonDocumentBytes), path); }

const OpEnergy* TechTable::find(OpKind k, DType t) const {
  const auto it = ops_.find({k, t});
  return it == ops_.end() ? nullptr : &it->second;
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
