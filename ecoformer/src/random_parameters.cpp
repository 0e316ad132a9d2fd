// Host draws of the baselines' random parameters (Philox streams 0x100.. keep them apart from the synthetic
// inputs, which use streams 0–2 of the same seed).
#include "ecosim/ecoformer/random_parameters.hpp"

#include <cmath>

#include "ecosim/kernels/philox.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::ecoformer {

namespace {
constexpr std::uint32_t kOmegaStream = 0x100, kOmegaNormStream = 0x101, kLinformerStream = 0x102,
                        kRotationStream = 0x103;

std::vector<float> normals(std::uint64_t count, std::uint64_t seed, std::uint32_t stream, float scale) {
  std::vector<float> values(count);
  for (std::uint64_t i = 0; i < count; ++i) values[i] = scale * rng::normal(seed, stream, i);
  return values;
}
}  // namespace

std::vector<float> performer_omega(std::uint64_t d, std::uint64_t features, std::uint64_t seed) {
  std::vector<float> omega(checked_mul(features, d));
  std::vector<double> block(d * d);
  for (std::uint64_t first = 0; first < features; first += d) {
    // Gaussian d×d block, rows orthonormalised by modified Gram–Schmidt (a zero row stays zero: with
    // continuous draws that has probability 0).
    for (std::uint64_t i = 0; i < d * d; ++i) block[i] = rng::normal(seed, kOmegaStream, first * d + i);
    for (std::uint64_t r = 0; r < d; ++r) {
      double* row = &block[r * d];
      for (std::uint64_t p = 0; p < r; ++p) {
        const double* prev = &block[p * d];
        double dot = 0;
        for (std::uint64_t c = 0; c < d; ++c) dot += row[c] * prev[c];
        for (std::uint64_t c = 0; c < d; ++c) row[c] -= dot * prev[c];
      }
      double norm = 0;
      for (std::uint64_t c = 0; c < d; ++c) norm += row[c] * row[c];
      norm = std::sqrt(norm);
      for (std::uint64_t c = 0; c < d; ++c) row[c] = norm > 0 ? row[c] / norm : 0.0;
    }
    for (std::uint64_t r = 0; r < d && first + r < features; ++r) {
      double length = 0;  // norm of an independent Gaussian vector: the χ_d length of a Gaussian row
      for (std::uint64_t c = 0; c < d; ++c) {
        const double g = rng::normal(seed, kOmegaNormStream, (first + r) * d + c);
        length += g * g;
      }
      length = std::sqrt(length);
      for (std::uint64_t c = 0; c < d; ++c) omega[(first + r) * d + c] = static_cast<float>(length * block[r * d + c]);
    }
  }
  return omega;
}

std::vector<float> linformer_projection(std::uint64_t proj_k, std::uint64_t seq, std::uint64_t seed) {
  return normals(checked_mul(proj_k, seq), seed, kLinformerStream,
                 static_cast<float>(1.0 / std::sqrt(static_cast<double>(proj_k))));
}

std::vector<float> reformer_rotations(std::uint64_t d, std::uint64_t rounds, std::uint64_t buckets,
                                      std::uint64_t seed) {
  return normals(checked_product({d, rounds, buckets / 2}), seed, kRotationStream, 1.0f);
}

}  // namespace ecosim::ecoformer
