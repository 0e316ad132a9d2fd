// Conversion of version-1 records on read (v1_conversion.hpp): the hash as its components, the v1 name rule
// for softmax-attention groups.
#include "v1_conversion.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/hash_stages.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::trace::v1 {

namespace {

/// v1's hash functions (`func`) and the variants that wrote them.
constexpr std::array<std::pair<std::string_view, AttentionVariant>, 5> kHashFunctions = {{
    {"ksh", AttentionVariant::ecoformer},
    {"klsh", AttentionVariant::klsh_ecoformer},
    {"ksh_real", AttentionVariant::fp_ecoformer},
    {"lsh", AttentionVariant::lsh_ecoformer},
    {"sign", AttentionVariant::bi_ecoformer},
}};

/// The hashed layer a v1 hash record describes: G = batch groups of m tokens of k features, n bits.
AttentionConfig hashed_layer(const OpRecord& hash) {
  const auto f = std::find_if(kHashFunctions.begin(), kHashFunctions.end(),
                              [&](const auto& entry) { return entry.first == hash.func; });
  if (f == kHashFunctions.end())
    throw Error("func '" + hash.func + "' is not a version-1 hash function (ksh, klsh, ksh_real, lsh, sign)");
  AttentionConfig c;
  c.variant = f->second;
  c.batch = hash.batch, c.heads = 1, c.seq = hash.m, c.head_dim = hash.k, c.bits = hash.n;
  if (stages::performs(c, stages::HashPart::distances)) {
    const auto support = hash.params.find("support");
    if (support == hash.params.end()) throw Error("a kernel hash ('" + hash.func + "') needs params.support");
    c.support = support->second;
  }
  return c;
}

/// The operations of `counts`, without its bytes.
OpCounts operations_of(const OpCounts& counts) {
  OpCounts ops;
  for (OpKind k : kAllOpKinds)
    for (DType t : kAllDTypes) ops.add(k, t, counts.ops(k, t));
  return ops;
}

/// Moves into `to` each of `wanted`'s operations, at most what `rest` still holds of it.
void take(const OpCounts& wanted, OpCounts& rest, OpCounts& to) {
  OpCounts left;
  for (OpKind k : kAllOpKinds)
    for (DType t : kAllDTypes) {
      const std::uint64_t taken = std::min(wanted.ops(k, t), rest.ops(k, t));
      to.add(k, t, taken);
      left.add(k, t, rest.ops(k, t) - taken);
    }
  rest = left;
}

/// A record name as prefix, part and shape suffix: "stage1.block0.attn.scores" → ("stage1.block0.attn.",
/// "scores", ""); Reformer's "attention.chunk_scores.1" → ("attention.", "scores", ".1"), chunk.
struct NameParts {
  std::string_view prefix, part, suffix;
  bool chunk = false;
};
NameParts split_name(std::string_view name) {
  NameParts p;
  std::size_t dot = name.rfind('.');
  if (dot != std::string_view::npos && dot + 1 < name.size() &&
      name.find_first_not_of("0123456789", dot + 1) == std::string_view::npos) {
    p.suffix = name.substr(dot);
    name = name.substr(0, dot);
    dot = name.rfind('.');
  }
  p.prefix = dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot + 1);
  p.part = dot == std::string_view::npos ? name : name.substr(dot + 1);
  constexpr std::string_view kChunkStem = "chunk_";
  p.chunk = p.part.starts_with(kChunkStem);
  if (p.chunk) p.part.remove_prefix(kChunkStem.size());
  return p;
}

constexpr std::array<std::string_view, kAttentionRecords> kParts = {"scores", "scale", "softmax", "context"};
constexpr std::array<OpClass, kAttentionRecords> kKinds = {OpClass::gemm, OpClass::eltwise, OpClass::reduce,
                                                           OpClass::gemm};

}  // namespace

std::vector<OpRecord> hash_components(const OpRecord& hash) {
  const AttentionConfig layer = hashed_layer(hash);
  const bool kernel = stages::performs(layer, stages::HashPart::distances);
  OpCounts rest = operations_of(hash.counts);  // not yet given to a record
  std::vector<OpRecord> out;
  for (stages::HashPart part : stages::all_hash_parts()) {
    if (!stages::performs(layer, part)) continue;
    OpRecord today = stages::hash_part(layer, part).front().exact;
    if (today.kind != OpClass::gemm) continue;  // in the eltwise record below
    OpRecord gemm = today;
    gemm.name = hash.name + today.name.substr(today.name.find('_'));  // "<h>_distances", "<h>_projection"
    gemm.a_dtype = hash.a_dtype, gemm.b_dtype = hash.b_dtype;
    gemm.counts = {};
    take(today.counts, rest, gemm.counts);
    out.push_back(std::move(gemm));
  }
  OpRecord last;
  last.name = hash.name + (kernel ? "_elementwise" : "_sign");
  last.kind = OpClass::eltwise;
  last.func = kernel ? hash.func : "sign";
  last.batch = hash.batch, last.m = hash.m, last.n = kernel ? layer.support : hash.n;
  last.a_dtype = last.b_dtype = hash.a_dtype;
  last.counts = rest;
  last.counts += hash.counts.bytes_only();
  out.push_back(std::move(last));
  return out;
}

bool may_start_attention(const OpRecord& op) { return op.kind == kKinds[0] && split_name(op.name).part == kParts[0]; }

void group_attention(std::vector<OpRecord>& ops) {
  if (ops.size() < kAttentionRecords) return;
  const NameParts first = split_name(ops[0].name);
  for (std::size_t i = 0; i < kAttentionRecords; ++i) {
    const NameParts p = split_name(ops[i].name);
    if (p.prefix != first.prefix || p.suffix != first.suffix || p.chunk != first.chunk || p.part != kParts[i] ||
        ops[i].kind != kKinds[i])
      return;
  }
  const std::string group = std::string(first.prefix) +
                            std::string(first.chunk ? ops::kChunkAttentionGroup : ops::kSoftmaxAttentionGroup) +
                            std::string(first.suffix);
  ops::join_group(std::span(ops).first(kAttentionRecords), group);
}

}  // namespace ecosim::trace::v1
