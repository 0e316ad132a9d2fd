// Conversion of version-1 records on read (v1_conversion.hpp): the hash as its components, the v1 name rule
// for softmax-attention groups.
#include "v1_conversion.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::trace::v1 {

namespace {

/// A component of `hash`: its name with `suffix`, the given class, shape and function, no counts yet.
OpRecord component(const OpRecord& hash, std::string_view suffix, OpClass kind, std::uint64_t n, std::uint64_t k,
                   std::string func) {
  OpRecord r;
  r.name = hash.name + std::string(suffix);
  r.kind = kind;
  r.func = std::move(func);
  r.batch = hash.batch, r.m = hash.m, r.n = n, r.k = k;
  r.a_dtype = hash.a_dtype;
  r.b_dtype = kind == OpClass::gemm ? hash.b_dtype : hash.a_dtype;
  checked_product({r.batch, r.m, r.n, r.k});
  return r;
}

/// Gives `gemm` the multiplications and additions of its products (per output k multiplications and
/// `adds_per_output` additions), each at most what `rest` still holds of it, and takes them from `rest`.
void take_products(OpRecord& gemm, std::uint64_t adds_per_output, OpCounts& rest, const OpRecord& hash) {
  const std::uint64_t outputs = checked_product({gemm.batch, gemm.m, gemm.n});
  const std::uint64_t wanted[] = {checked_mul(outputs, gemm.k), checked_mul(outputs, adds_per_output)};
  const OpKind kinds[] = {OpKind::mul, OpKind::add};
  const DType t = hash.a_dtype;
  OpCounts left;
  for (std::size_t i = 0; i < 2; ++i) {
    const std::uint64_t taken = std::min(wanted[i], rest.ops(kinds[i], t));
    gemm.counts.add(kinds[i], t, taken);
  }
  for (OpKind k : kAllOpKinds)
    for (DType d : kAllDTypes)
      if (auto n = rest.ops(k, d) - gemm.counts.ops(k, d)) left.add(k, d, n);
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
  const auto support = hash.params.find("support");
  const bool sign_only = hash.func == "sign" || hash.func == "bi";
  const bool kernel = !sign_only && support != hash.params.end();
  OpCounts rest;  // operations not yet given to a component; the bytes go to the last record whole
  for (OpKind k : kAllOpKinds)
    for (DType t : kAllDTypes) rest.add(k, t, hash.counts.ops(k, t));

  std::vector<OpRecord> out;
  if (kernel) {  // ‖x − a‖²: per pair k subtractions, k squares, k − 1 additions
    OpRecord distances = component(hash, "_distances", OpClass::gemm, support->second, hash.k, "");
    take_products(distances, checked_mul(2, hash.k) - 1, rest, hash);
    out.push_back(std::move(distances));
  }
  if (!sign_only) {  // b projections of the m kernel values, or of the k features
    const std::uint64_t inputs = kernel ? support->second : hash.k;
    OpRecord projection = component(hash, "_projection", OpClass::gemm, hash.n, inputs, "");
    take_products(projection, inputs - 1, rest, hash);
    out.push_back(std::move(projection));
  }
  OpRecord last = kernel ? component(hash, "_elementwise", OpClass::eltwise, support->second, 1, hash.func)
                         : component(hash, "_sign", OpClass::eltwise, hash.n, 1, "sign");
  last.counts = rest;
  last.counts += hash.counts.bytes_only();
  out.push_back(std::move(last));
  return out;
}

bool may_start_attention(const OpRecord& op) {
  return op.kind == kKinds[0] && split_name(op.name).part == kParts[0];
}

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
