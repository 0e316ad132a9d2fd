// The compression scheme table (name → function) shared by `ecosim compress` and the validate suite.
#include "compress_schemes.hpp"

#include <array>

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
