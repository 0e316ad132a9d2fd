// The compression scheme table (name → function) of `ecosim compress`, and what a result keeps in all.
#include "compress_schemes.hpp"

#include <array>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cli {

namespace {
constexpr std::array kSchemes = {
    CompressScheme{"actnn", &compress_actnn},
    CompressScheme{"gact", &compress_gact},
    CompressScheme{"mesa", &compress_mesa},
    CompressScheme{"fewbit", &compress_fewbit},
};
}  // namespace

std::uint64_t CompressResult::storage_bytes() const {
  std::uint64_t total = 0;
  for (const auto& [type, bytes] : kept_bytes) total = checked_add(total, bytes);
  return total;
}

std::map<DType, std::uint64_t> written_bytes(const OpRecord& pass) {
  std::map<DType, std::uint64_t> bytes;
  for (DType t : kAllDTypes)
    if (const std::uint64_t n = pass.counts.written_bytes(t)) bytes[t] = n;
  return bytes;
}

std::span<const CompressScheme> compress_schemes() { return kSchemes; }

const CompressScheme& find_scheme(const std::string& name) {
  std::string valid;
  for (const CompressScheme& s : kSchemes) {
    if (s.name == name) return s;
    valid.append(valid.empty() ? "" : ", ").append(s.name);
  }
  throw Error("unknown compression scheme '" + name + "' (available in this build: " + valid + ")");
}

}  // namespace ecosim::cli
