// StreamedJsonObject: the array's elements one per line, the remaining members pretty-printed at the end.
#include "json_stream.hpp"

namespace ecosim::cli {

StreamedJsonObject::StreamedJsonObject(std::ostream& out, std::string_view array_key) : out_(out) {
  out_ << "{\n  " << nlohmann::json(array_key).dump() << ": [";
}

void StreamedJsonObject::item(const nlohmann::json& element) {
  out_ << (first_ ? "\n    " : ",\n    ") << element.dump();
  first_ = false;
}

void StreamedJsonObject::finish(const nlohmann::json& fields) {
  out_ << (first_ ? "]" : "\n  ]");
  const std::string rest = fields.dump(2);  // "{\n  \"key\": ...\n}", or "{}" when there are none
  out_ << (fields.empty() ? "\n}" : ",\n" + rest.substr(2)) << "\n";
}

}  // namespace ecosim::cli
