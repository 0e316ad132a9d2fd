// ConvShape: the geometry of a direct 2-D convolution (N, C, H, W, K, R, S, stride, padding, groups) as a
// `conv` record carries it (batch = N, the rest in params; traces/README.md), validated in one place for the
// op counter, the trace reader and the accelerator.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim {

/// Output size of a convolution along one axis: (in + 2·pad − kernel) / stride + 1; throws ecosim::Error for a
/// zero kernel or stride, or a kernel larger than the padded input.
std::uint64_t conv_output_size(std::uint64_t in, std::uint64_t kernel, std::uint64_t stride, std::uint64_t pad);

struct ConvShape {
  std::uint64_t batch = 1;                   // N
  std::uint64_t in_channels = 1;             // C
  std::uint64_t in_h = 1, in_w = 1;          // H, W
  std::uint64_t out_channels = 1;            // K
  std::uint64_t kernel_h = 1, kernel_w = 1;  // R, S
  std::uint64_t stride = 1, padding = 0;     // the same along both axes
  std::uint64_t groups = 1;                  // divides C and K (groups = C = K: depthwise)
  friend bool operator==(const ConvShape&, const ConvShape&) = default;

  std::uint64_t out_h() const { return conv_output_size(in_h, kernel_h, stride, padding); }
  std::uint64_t out_w() const { return conv_output_size(in_w, kernel_w, stride, padding); }
  std::uint64_t group_in_channels() const { return in_channels / groups; }
  std::uint64_t group_out_channels() const { return out_channels / groups; }
  /// The record's shape fields besides batch: m = out_h·out_w, n = K, k = (C/groups)·R·S (so MACs = batch·m·n·k).
  std::uint64_t m() const;
  std::uint64_t n() const { return out_channels; }
  std::uint64_t k() const;
  /// Throws ecosim::Error unless every field is in 1..2^40 (padding in 0..2^40), the output is at least 1×1,
  /// groups divides C and K, and the tensors' element counts fit 64 bits.
  void validate() const;
  /// The record's params: in_channels, in_h, in_w, out_channels, kernel_h, kernel_w, stride, padding, groups.
  std::map<std::string, std::uint64_t> params() const;
};

/// The shape of a conv record, from its batch and params, validated: all nine params present and no others,
/// and the record's m, n, k equal to the shape's; throws ecosim::Error naming the problem.
ConvShape conv_shape(const OpRecord& record);

}  // namespace ecosim
