// The EcoFormer family's token hashing as its component operations, one stage per part (see
// attention_stages.hpp): the analytic counter emits them and the hashed attention kernels report each right
// after its phase, so both describe the hash once. Per (batch, head) group of N tokens of d features, m
// kernel anchors and b code bits:
//   hash_distances   gemm     N×m×d      ‖x − a‖² per token–anchor pair                [kernel hashes]
//   hash_kernel      eltwise  N×m        σ = max(Σ‖x − a‖²/(N·m), tiny), exp(−‖x − a‖²/(2σ))
//   hash_centre      reduce   m rows of N   each anchor's mean over the tokens, subtracted
//   hash_projection  gemm     N×b×(m|d)  the b projections (of the centred kernel values, or of x for lsh)
//   hash_sign        eltwise  N×b        sign of each projection, packed as ±1 codes   [binary codes]
// Kernel hashes: ecoformer (ksh), klsh-ecoformer, fp-ecoformer (no sign); lsh-ecoformer: projection and
// sign; bi-ecoformer: the sign of the d features (b = d). Causal: σ and the anchor means are fixed beforehand (a
// statistic of the tokens would see later ones), so each new token is hashed alone. Formulas in ops_counter/README.md.
#pragma once
#include <span>

#include "ecosim/ops_counter/attention_stages.hpp"

namespace ecosim::stages {

/// The hash function of a hashed variant, from the parameters the registry says it reads: an RBF kernel to
/// anchors (it reads `support`: ecoformer, klsh-, fp-ecoformer), a projection to the code bits (it reads
/// `bits`: all but bi-ecoformer), binary ±1 codes (all but fp-ecoformer, whose codes are the projections).
bool hashes_through_anchors(AttentionVariant v);
bool projects_to_bits(AttentionVariant v);
bool binary_codes(AttentionVariant v);

enum class HashPart : std::uint8_t { distances, kernel, centre, projection, sign };

/// Every part, in execution order.
std::span<const HashPart> all_hash_parts();
/// Whether a variant of the hashed family performs `part`.
bool performs(const AttentionConfig& c, HashPart part);
/// The stage of `part`: one record named "hash_<part>" (c must be a hashed variant performing it); its
/// paper-convention counts are DESIGN §3's (the kernel 2·N·m·d adds and 2·N·m muls, the projection N·m·b
/// MACs, or N·d·b for lsh; nothing else).
Stage hash_part(const AttentionConfig& c, HashPart part);

}  // namespace ecosim::stages
