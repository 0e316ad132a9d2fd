// Provenance of reports: the remembered command line and the common fields.
#include "provenance.hpp"

#include <algorithm>
#include <cctype>

namespace ecosim::cli {

namespace {

std::vector<std::string>& command_line_args() {
  static std::vector<std::string> args;
  return args;
}

/// Single-quotes an argument unless it is made only of characters no shell treats specially.
std::string quoted(const std::string& arg) {
  const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("_./=,:+-@%").find(char(c)) != std::string_view::npos;
  });
  if (plain) return arg;
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// A string without control characters prints bare; anything else as JSON (escaped, on one line).
bool is_printable(const nlohmann::ordered_json& value) {
  if (!value.is_string()) return false;
  const auto& s = value.get_ref<const std::string&>();
  return std::none_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

}  // namespace

void set_command_line(const std::vector<std::string>& args) { command_line_args() = args; }

nlohmann::ordered_json provenance() {
  std::string line = "ecosim";
  for (const std::string& a : command_line_args()) line += " " + quoted(a);
  return {{"ecosim_version", ECOSIM_VERSION}, {"command_line", line}};
}

nlohmann::ordered_json describe(const TechTable& tech) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::object();
  for (OpKind k : kAllOpKinds)
    for (DType t : kAllDTypes)
      if (const OpEnergy* e = tech.find(k, t)) entries[std::string(name(k)) + "." + std::string(name(t))] = e->pj;
  return {{"name", tech.name()}, {"pj_per_op", entries}};
}

nlohmann::ordered_json provenance(const TechTable& tech) {
  nlohmann::ordered_json p = provenance();
  p["tech_table"] = describe(tech);
  return p;
}

nlohmann::ordered_json provenance(const accel::AccelConfig& accel, accel::Engine engine, const TechTable& tech) {
  nlohmann::ordered_json p = provenance();
  p["engine"] = name(engine);
  p["fuse_attention"] = accel.fuse_attention;
  p["accelerator"] = accel.effective;
  p["tech_table"] = describe(tech);
  return p;
}

std::string provenance_lines(const nlohmann::ordered_json& provenance) {
  std::string out;
  for (const auto& [key, value] : provenance.items())
    out += "# " + key + ": " + (is_printable(value) ? value.get<std::string>() : value.dump()) + "\n";
  return out;
}

std::string provenance_footer(const nlohmann::ordered_json& provenance, std::string_view full_in) {
  nlohmann::ordered_json short_form = nlohmann::ordered_json::object();
  for (const auto& [key, value] : provenance.items()) {
    if (!value.is_structured()) {
      short_form[key] = value;
      continue;
    }
    const bool named = value.is_object() && value.contains("name") && value["name"].is_string();
    short_form[key] =
        (named ? value["name"].get<std::string>() + " " : std::string()) + "(in full: " + std::string(full_in) + ")";
  }
  return provenance_lines(short_form);
}

}  // namespace ecosim::cli
