// Internal, CPU: the steps of hashing one (batch, head) group of tokens, shared by the CPU reference
// kernel (which reports each step) and the hash learning (which needs the same kernel features). The
// CUDA kernels perform the same steps in the same summation order where it matters (hashed_attention_cuda.cu).
#pragma once
#include <cstdint>
#include <vector>

namespace ecosim::ecoformer::detail {

/// out_i = x_i / max(‖x_i‖, kNormEps) for `rows` rows of d values (out may alias x).
void l2_normalize_rows(const float* x, float* out, std::uint64_t rows, std::uint64_t d);

/// dist[i·m + a] = ‖x_i − anchor_a‖² (sequential over d).
void squared_distances(const float* x, std::uint64_t n, std::uint64_t d, const float* anchors, std::uint64_t m,
                       float* dist);

/// 1/(2σ), σ = max(Σ dist / count, kMinSigma), the sum accumulated in double.
float inverse_bandwidth(const float* dist, std::uint64_t count);

/// k = exp(−dist·inv) in place.
void rbf_values(float* dist, std::uint64_t count, float inv);
/// Each of the m columns of k (n×m) minus its mean over the n rows (KSH centring; mean summed in double).
void centre_columns(float* k, std::uint64_t n, std::uint64_t m);

/// y[i·b + r] = Σ_c w[r·c_len + c]·f[i·c_len + c] (sequential over c).
void project(const float* f, std::uint64_t n, std::uint64_t c_len, const float* w, std::uint64_t b, float* y);

/// Centred RBF kernel features (n×m) of normalised tokens x to anchors: all the kernel steps above.
std::vector<float> centred_kernel(const float* x, std::uint64_t n, std::uint64_t d, const float* anchors,
                                  std::uint64_t m);

/// The kernel statistics a causal hash fixes beforehand, from the anchors alone (no token, so no later token,
/// enters a code): 1/(2σ) with σ the anchors' mean squared distance to one another, and each column's mean of
/// the anchors' own RBF kernel matrix.
struct AnchorStatistics {
  float inverse_bandwidth = 0;
  std::vector<float> means;  // m
};
AnchorStatistics anchor_statistics(const float* anchors, std::uint64_t m, std::uint64_t d);
/// k (n×m) minus the fixed column means.
void subtract_means(float* k, std::uint64_t n, const std::vector<float>& means);
/// The causal form of centred_kernel: the same steps with the anchors' statistics, each token's row its own.
std::vector<float> causal_kernel(const float* x, std::uint64_t n, std::uint64_t d, const float* anchors,
                                 std::uint64_t m);
/// The same with the anchors' statistics already computed (anchor_statistics of the same anchors).
std::vector<float> causal_kernel(const float* x, std::uint64_t n, std::uint64_t d, const float* anchors,
                                 std::uint64_t m, const AnchorStatistics& fixed);

}  // namespace ecosim::ecoformer::detail
