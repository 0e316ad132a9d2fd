// Internal: the trace `ecosim compress --trace` writes (traces/README.md, "Compression traces"): two
// alternatives — the activation kept uncompressed, and kept compressed — with every tensor at its stored width.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::cli {

/// What a compression trace holds: the activation (`input`, `elements`), the scheme's compress and decompress
/// passes and the bytes it keeps between them, by type.
struct CompressedActivation {
  DType input = DType::fp32;
  std::uint64_t elements = 0;
  std::vector<OpRecord> compress_pass, decompress_pass;
  std::map<DType, std::uint64_t> kept_bytes;
};

/// Writes the trace to `path` (atomically): a header with float_storage "recorded" and the alternatives
/// "uncompressed" (store, load of the activation) and "compressed" (the compress pass's work, store and load
/// of what is kept, the decompress pass's work); `workload` describes the run.
void write_compress_trace(const std::string& path, const std::string& producer, const nlohmann::json& workload,
                          const CompressedActivation& activation);

}  // namespace ecosim::cli
