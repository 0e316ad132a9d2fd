// Internal: reading trace format version 1 as version 2 (traces/README.md, "Reading version 1"). A v1 `hash`
// record becomes its component records (same total counts and bytes), and v1's softmax-attention records,
// recognised by name, get the fusion group v2 writes explicitly.
#pragma once
#include <cstddef>
#include <string_view>
#include <vector>

#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::trace::v1 {

/// The kind string of a v1 hash record (version 2 has no such kind).
inline constexpr std::string_view kHashKind = "hash";

/// The records of a v1 hash `hash` (read with kind ignored; params.support, when present, already checked
/// to be 1..2^40): the GEMM parts version 2 writes for the layer it describes (ops_counter's hash_stages.hpp:
/// hash_distances and hash_projection, as the hash function performs them), then one eltwise record with the
/// rest of the operations and all the bytes. Summed, their operations and bytes equal the v1 record's.
/// Throws ecosim::Error for an unknown func, a kernel hash without params.support, or a component whose
/// shape overflows 64 bits.
std::vector<OpRecord> hash_components(const OpRecord& hash);

/// Records in a v1 attention group: scores, scale, softmax, context.
inline constexpr std::size_t kAttentionRecords = 4;

/// Whether `op` may begin a v1 attention group (a gemm named `<p>.scores` or `<p>.chunk_scores[.i]`).
bool may_start_attention(const OpRecord& op);

/// When the first kAttentionRecords of `ops` are one softmax attention by v1's name rule (consecutive
/// `<p>.scores`, `<p>.scale`, `<p>.softmax`, `<p>.context` of kinds gemm, eltwise, reduce, gemm, or Reformer's
/// `<p>.chunk_scores[.i]` … `<p>.chunk_context[.i]`), puts them in group `<p>.softmax_attention` or
/// `<p>.chunk_attention[.i]`, as version 2 writes them.
void group_attention(std::vector<OpRecord>& ops);

}  // namespace ecosim::trace::v1
