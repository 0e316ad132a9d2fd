// Stages of the hashed family's hashing parts (see hash_stages.hpp).
#include "ecosim/ops_counter/hash_stages.hpp"

#include <array>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/primitives.hpp"
#include "ecosim/ops_counter/variant_registry.hpp"

namespace ecosim::stages {

namespace {

constexpr std::array<HashPart, 5> kParts = {HashPart::distances, HashPart::kernel, HashPart::centre,
                                            HashPart::projection, HashPart::sign};

/// Inputs of each projection: the m centred kernel values, or the d features (lsh).
std::uint64_t projection_inputs(const AttentionConfig& c) {
  return hashes_through_anchors(c.variant) ? c.support : c.head_dim;
}

/// fp32 elements read and written, per group unless `shared` (read once per head).
void fp32_traffic(OpRecord& r, std::uint64_t groups, std::uint64_t read_per_group, std::uint64_t shared,
                  std::uint64_t written_per_group) {
  r.counts.add_read_bytes(DType::fp32,
                          storage_bytes(DType::fp32, checked_add(checked_mul(groups, read_per_group), shared)));
  if (written_per_group)
    r.counts.add_written_bytes(DType::fp32, storage_bytes(DType::fp32, checked_mul(groups, written_per_group)));
}

OpRecord exact_record(const AttentionConfig& c, HashPart part) {
  const std::uint64_t g = checked_mul(c.batch, c.heads), n = c.seq, d = c.head_dim, b = c.code_bits(), m = c.support,
                      nm = checked_mul(n, m);
  OpRecord r;
  switch (part) {
    case HashPart::distances:  // per pair: d subtractions, d squares, d − 1 additions
      r = ops::gemm("hash_distances", {.batch = g, .m = n, .n = m, .k = d});
      r.counts = ops::scaled({.mul = checked_mul(nm, d), .add = checked_mul(nm, 2 * d - 1)}, g, DType::fp32);
      fp32_traffic(r, g, checked_mul(n, d), checked_product({c.heads, m, d}), nm);
      break;
    case HashPart::kernel:  // Σ of the distances, σ, 2σ, max(σ, tiny), 1/(2σ); per pair −d/(2σ) and exp
      r = ops::eltwise("hash_kernel", "rbf_kernel", g, n, m, DType::fp32, {});
      r.counts =
          c.causal  // causal: σ fixed beforehand (no statistic of later tokens), per pair only
              ? ops::scaled({.mul = nm, .exp = nm}, g, DType::fp32)
              : ops::scaled({.mul = checked_add(nm, 2), .add = nm - 1, .cmp = 1, .exp = nm, .div = 1}, g, DType::fp32);
      fp32_traffic(r, g, nm, 0, nm);
      break;
    case HashPart::centre:  // m means (N − 1 additions, ·1/N), N·m subtractions; causal: fixed means, subtractions
      r = ops::reduce("hash_centre", "centre", g, m, n, DType::fp32, {}, n);
      r.counts = c.causal ? ops::scaled({.add = nm}, g, DType::fp32)
                          : ops::scaled({.mul = m, .add = checked_add(checked_mul(m, n - 1), nm)}, g, DType::fp32);
      fp32_traffic(r, g, nm, 0, nm);
      break;
    case HashPart::projection: {
      const std::uint64_t in = projection_inputs(c);
      r = ops::gemm("hash_projection", {.batch = g, .m = n, .n = b, .k = in});
      r.counts =
          ops::scaled({.mul = checked_product({n, b, in}), .add = checked_product({n, b, in - 1})}, g, DType::fp32);
      fp32_traffic(r, g, checked_mul(n, in), checked_product({c.heads, b, in}), checked_mul(n, b));
      break;
    }
    case HashPart::sign:
      r = ops::eltwise("hash_sign", "sign", g, n, b, DType::fp32, {});
      r.counts = ops::scaled({.cmp = checked_mul(n, b)}, g, DType::fp32);
      fp32_traffic(r, g, checked_mul(n, b), 0, 0);
      r.counts.add_written_bytes(DType::binary, storage_bytes(DType::binary, checked_product({g, n, b})));
      break;
  }
  return r;
}

OpCounts paper_counts(const AttentionConfig& c, HashPart part) {
  const std::uint64_t g = checked_mul(c.batch, c.heads), n = c.seq, d = c.head_dim, m = c.support;
  switch (part) {
    case HashPart::distances: return ops::adds(checked_product({2, g, n, m, d}));
    case HashPart::kernel: return ops::muls(checked_product({2, g, n, m}));
    case HashPart::projection: return ops::macs(checked_product({g, n, projection_inputs(c), c.code_bits()}));
    case HashPart::centre:
    case HashPart::sign: return {};
  }
  return {};
}

}  // namespace

std::span<const HashPart> all_hash_parts() { return kParts; }

bool hashes_through_anchors(AttentionVariant v) {
  return variant_info(v).parameters.contains(VariantParameterId::support);
}
bool projects_to_bits(AttentionVariant v) { return variant_info(v).parameters.contains(VariantParameterId::bits); }
bool binary_codes(AttentionVariant v) { return is_hashed(v) && v != AttentionVariant::fp_ecoformer; }

bool performs(const AttentionConfig& c, HashPart part) {
  switch (part) {
    case HashPart::distances:
    case HashPart::kernel:
    case HashPart::centre: return hashes_through_anchors(c.variant);
    case HashPart::projection: return projects_to_bits(c.variant);
    case HashPart::sign: return binary_codes(c.variant);
  }
  return false;
}

Stage hash_part(const AttentionConfig& c, HashPart part) { return {{exact_record(c, part), paper_counts(c, part)}}; }

}  // namespace ecosim::stages
