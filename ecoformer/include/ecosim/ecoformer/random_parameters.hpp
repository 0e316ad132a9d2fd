// The random parameters of the baseline attention variants, drawn on the host from a seed with Philox so
// the CPU reference and the CUDA kernel use bit-identical values (the device receives a copy).
#pragma once
#include <cstdint>
#include <vector>

namespace ecosim::ecoformer {

/// Performer FAVOR+ projection ω, F×d row-major (row f is ω_f): orthogonal random features — blocks of
/// d Gaussian rows orthogonalised by Gram–Schmidt, each row rescaled to the norm of an independent
/// d-dimensional Gaussian vector (so every ω_f is marginally N(0, I_d)); the last block is truncated.
std::vector<float> performer_omega(std::uint64_t head_dim, std::uint64_t features, std::uint64_t seed);

/// Linformer length projection E, k×n row-major, entries N(0, 1/k); one E shared by K and V.
std::vector<float> linformer_projection(std::uint64_t proj_k, std::uint64_t seq, std::uint64_t seed);

/// Reformer random rotations, d×(rounds·buckets/2) row-major, standard normal; round r uses the
/// columns r·buckets/2 .. (r+1)·buckets/2 − 1.
std::vector<float> reformer_rotations(std::uint64_t head_dim, std::uint64_t rounds, std::uint64_t buckets,
                                      std::uint64_t seed);

}  // namespace ecosim::ecoformer
