// The one way ecosim reads JSON: strict and bounded. Nesting depth and document size are limited, duplicate
// object keys are rejected, and every failure is an ecosim::Error carrying origin and line (and column for
// syntax errors). The parser never recurses and stops at the first violation, so hostile input (100,000
// nested brackets, megabytes of '[') fails fast without building the structure.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ecosim {

inline constexpr std::size_t kMaxJsonDepth = 64;
inline constexpr std::size_t kMaxJsonDocumentBytes = std::size_t{16} << 20;  // 16 MiB

struct JsonLimits {
  std::size_t max_depth = kMaxJsonDepth;  // arrays and objects open at once
  std::size_t max_bytes = kMaxJsonDocumentBytes;
};

/// Parses one JSON document. Errors read "<origin>:<line>: JSON nested deeper than 64 levels",
/// "<origin>:<line>: duplicate key 'x'", "<origin>:<line>:<column>: not valid JSON: <reason>" and
/// "<origin>: JSON text of N bytes is above the limit of M bytes". `first_line` is the line number of the
/// text's first line in its file (a trace record is one line of a larger file).
nlohmann::json parse_json(std::string_view text, const std::string& origin, JsonLimits limits = {},
                          std::size_t first_line = 1);

}  // namespace ecosim
