// The activation schemes' names: parsing "none", "amp", "actnn:L1|L2|L3", "gact:B", "gact:avgB", "mesa", "fewbit:B"
// (bits checked by the kernel modules themselves), their canonical text, and the default list for a network.
#include <fmt/core.h>

#include <charconv>
#include <cstdlib>

#include "ecosim/kernels/fewbit_solver.hpp"
#include "ecosim/kernels/gact.hpp"
#include "ecosim/kernels/training_schemes.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::kernels::schemes {

namespace {

constexpr std::string_view kValid = "none, amp, actnn:L1|L2|L3, gact:B, gact:avgB, mesa, fewbit:B";

unsigned parse_number(std::string_view scheme, std::string_view text) {
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    throw Error("scheme '" + std::string(scheme) + "': '" + std::string(text) + "' is not a bit width");
  return value;
}

}  // namespace

std::string Scheme::name() const {
  switch (kind) {
    case SchemeKind::none: return "none";
    case SchemeKind::amp: return "amp";
    case SchemeKind::actnn: return "actnn:L" + std::to_string(level);
    case SchemeKind::gact:
      return average_bits > 0 ? fmt::format("gact:avg{}", average_bits) : "gact:" + std::to_string(bits);
    case SchemeKind::mesa: return "mesa";
    case SchemeKind::fewbit: return "fewbit:" + std::to_string(bits);
  }
  return "none";
}

Scheme parse_scheme(std::string_view text) {
  if (text == "none") return {};
  if (text == "amp") return {.kind = SchemeKind::amp};
  if (text == "mesa") return {.kind = SchemeKind::mesa};
  const std::size_t colon = text.find(':');
  const std::string_view family = text.substr(0, colon), arg = colon == text.npos ? "" : text.substr(colon + 1);
  if (colon == text.npos && (family == "actnn" || family == "gact" || family == "fewbit"))
    throw Error(
        "scheme '" + std::string(text) + "' needs " +
        (family == "actnn" ? "a level: actnn:L1, actnn:L2 or actnn:L3" : "bits, e.g. " + std::string(family) + ":2"));
  if (family == "actnn") {
    if (arg == "L1" || arg == "L2" || arg == "L3") return {.kind = SchemeKind::actnn, .level = unsigned(arg[1] - '0')};
    throw Error("scheme '" + std::string(text) + "': unknown ActNN level '" + std::string(arg) +
                "' (valid: L1, L2, L3)");
  }
  if (family == "gact" && arg.starts_with("avg")) {  // an average budget, allocated per tensor
    const std::string budget(arg.substr(3));
    char* end = nullptr;
    const double average = std::strtod(budget.c_str(), &end);
    if (budget.empty() || end != budget.c_str() + budget.size() || !(average >= 1.0) || !(average <= 32.0))
      throw Error("scheme '" + std::string(text) + "': the average budget must be a number of bits in [1, 32]");
    return {.kind = SchemeKind::gact, .average_bits = average};
  }
  if (family == "gact") {
    const unsigned bits = parse_number(text, arg);
    (void)gact::variance_factor(bits);  // GACT's own widths; throws for any other
    return {.kind = SchemeKind::gact, .bits = bits};
  }
  if (family == "fewbit") {
    const unsigned bits = parse_number(text, arg);
    (void)fewbit::solve(fewbit::Activation::gelu, bits, {.grid = 64});  // the solver's own range check
    return {.kind = SchemeKind::fewbit, .bits = bits};
  }
  throw Error("unknown scheme '" + std::string(text) + "' (valid: " + std::string(kValid) + ")");
}

std::vector<Scheme> default_schemes(const std::vector<Layer>& layers) {
  bool gemm = false, smooth_activation = false, transformer = false;
  for (const Layer& l : layers) {
    transformer =
        transformer || std::holds_alternative<AttentionConfig>(l.op) || std::holds_alternative<LayerNorm>(l.op);
    gemm = gemm || std::holds_alternative<Conv2d>(l.op) || std::holds_alternative<Linear>(l.op) ||
           std::holds_alternative<AttentionConfig>(l.op);
    const auto* a = std::get_if<Activation>(&l.op);
    smooth_activation = smooth_activation || (a && a->func != ActivationFunc::relu);
  }
  std::vector<Scheme> list{parse_scheme("none"), parse_scheme("amp")};
  if (gemm) list.push_back(parse_scheme("actnn:L3"));
  list.push_back(parse_scheme("gact:4"));
  if (transformer) list.push_back(parse_scheme("mesa"));
  if (smooth_activation) list.push_back(parse_scheme("fewbit:2"));
  return list;
}

}  // namespace ecosim::kernels::schemes
