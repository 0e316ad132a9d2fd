// TechTable: energy per operation by (op kind, data type) from a data file (default: 45 nm, Horowitz ISSCC
// 2014, ops_counter/data/tech_45nm.json), and the energy of a set of counts.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/op_counts.hpp"

namespace ecosim {

struct OpEnergy {
  double pj = 0;
  std::string source;  // citation, or "estimated: <derivation>"
};

class TechTable {
 public:
  /// Parses a table in the JSON format of tech_45nm.json; throws ecosim::Error naming the bad entry.
  static TechTable parse(std::string_view json_text, const std::string& origin);
  static TechTable builtin_45nm();
  static TechTable load(const std::string& path);

  const std::string& name() const { return name_; }
  const OpEnergy* find(OpKind k, DType t) const;
  /// Σ count × pJ over every non-zero count; throws ecosim::Error when a counted op has no entry.
  double energy_pj(const OpCounts& counts) const;

 private:
  std::string name_;
  std::map<std::pair<OpKind, DType>, OpEnergy> ops_;
};

}  // namespace ecosim
