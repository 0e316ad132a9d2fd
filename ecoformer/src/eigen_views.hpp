// Internal: Eigen views of one (batch, head) group of a [batch][heads][seq][dim] tensor, for the CPU references.
#pragma once
#include <Eigen/Dense>
#include <cstdint>

#include "ecosim/ecoformer/run.hpp"

namespace ecosim::ecoformer::detail {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using MatrixMap = Eigen::Map<RowMatrix>;

inline std::uint64_t groups(const Tensor& t) { return t.batch * t.heads; }

inline ConstMatrixMap group(const Tensor& t, std::uint64_t g) {
  return ConstMatrixMap(t.data.data() + g * t.seq * t.dim, static_cast<Eigen::Index>(t.seq),
                        static_cast<Eigen::Index>(t.dim));
}

inline MatrixMap group(Tensor& t, std::uint64_t g) {
  return MatrixMap(t.data.data() + g * t.seq * t.dim, static_cast<Eigen::Index>(t.seq),
                   static_cast<Eigen::Index>(t.dim));
}

}  // namespace ecosim::ecoformer::detail
