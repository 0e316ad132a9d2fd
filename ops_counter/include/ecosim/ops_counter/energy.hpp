// TechTable: energy per operation by (op kind, data type) from a data file (default: 45 nm, Horowitz ISSCC
// 2014, ops_counter/data/tech_45nm.json), the decompositions of complex operations (exp, div, sqrt) into basic
// ones that estimated entries are derived from, and the energy of a set of counts.
#pragma once
#include <array>
#include <cstdint>
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

/// A complex operation as the basic operations it is estimated to take (the table's "decompositions").
struct Decomposition {
  std::array<std::uint64_t, kOpKindCount> ops{};  // count of each basic operation, by OpKind
  std::string derivation;
};

class TechTable {
 public:
  /// Parses a table in the JSON format of tech_45nm.json; throws ecosim::Error naming the bad entry.
  static TechTable parse(std::string_view json_text, const std::string& origin);
  static TechTable builtin_45nm();
  static TechTable load(const std::string& path);

  const std::string& name() const { return name_; }
  const OpEnergy* find(OpKind k, DType t) const;
  /// How the table decomposes `k` into basic operations, or nullptr when it does not.
  const Decomposition* decomposition(OpKind k) const;
  /// Σ count × pJ over every non-zero count; throws ecosim::Error when a counted op has no entry.
  double energy_pj(const OpCounts& counts) const;

 private:
  std::string name_;
  std::map<std::pair<OpKind, DType>, OpEnergy> ops_;
  std::map<OpKind, Decomposition> decompositions_;
};

}  // namespace ecosim
