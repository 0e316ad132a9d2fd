// Validation of convolution geometry and its conv-record params.
#include "ecosim/ops_counter/conv_shape.hpp"

#include <array>
#include <string_view>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim {

namespace {

constexpr std::uint64_t kMaxConvField = std::uint64_t{1} << 40;

/// The params and the fields they name, in the order they are written (three to a line).
// clang-format off
constexpr std::array<std::pair<std::string_view, std::uint64_t ConvShape::*>, 9> kParams = {{
    {"in_channels", &ConvShape::in_channels}, {"in_h", &ConvShape::in_h}, {"in_w", &ConvShape::in_w},
    {"out_channels", &ConvShape::out_channels}, {"kernel_h", &ConvShape::kernel_h}, {"kernel_w", &ConvShape::kernel_w},
    {"stride", &ConvShape::stride}, {"padding", &ConvShape::padding}, {"groups", &ConvShape::groups}}};
// clang-format on

}  // namespace

std::uint64_t conv_output_size(std::uint64_t in, std::uint64_t kernel, std::uint64_t stride, std::uint64_t pad) {
  if (stride == 0 || kernel == 0) throw Error("convolution with zero kernel or stride");
  if (in + 2 * pad < kernel) throw Error("convolution kernel larger than its padded input");
  return (in + 2 * pad - kernel) / stride + 1;
}

std::uint64_t ConvShape::m() const { return checked_mul(out_h(), out_w()); }
std::uint64_t ConvShape::k() const { return checked_product({group_in_channels(), kernel_h, kernel_w}); }

void ConvShape::validate() const {
  if (batch == 0 || batch > kMaxConvField) throw Error("convolution batch must be in 1..2^40");
  for (const auto& [key, field] : kParams) {
    const std::uint64_t v = this->*field;
    if (v > kMaxConvField || (v == 0 && key != "padding"))
      throw Error("convolution " + std::string(key) + " must be in " + (key == "padding" ? "0" : "1") + "..2^40");
  }
  if (in_channels % groups || out_channels % groups)
    throw Error("convolution groups (" + std::to_string(groups) + ") must divide the input and output channels");
  try {
    checked_product({batch, in_channels, in_h, in_w});
    checked_product({batch, out_channels, m()});
    checked_product({batch, m(), n(), k()});
  } catch (const Error& e) {
    if (std::string_view(e.what()).starts_with("convolution")) throw;
    throw Error("convolution tensors overflow 64 bits");
  }
}

std::map<std::string, std::uint64_t> ConvShape::params() const {
  std::map<std::string, std::uint64_t> p;
  for (const auto& [key, field] : kParams) p[std::string(key)] = this->*field;
  return p;
}

ConvShape conv_shape(const OpRecord& r) {
  ConvShape s;
  s.batch = r.batch;
  for (const auto& [key, field] : kParams) {
    const auto it = r.params.find(std::string(key));
    if (it == r.params.end()) throw Error("a conv record needs params." + std::string(key));
    s.*field = it->second;
  }
  if (r.params.size() != kParams.size())
    for (const auto& [key, value] : r.params)
      if (!s.params().contains(key)) throw Error("unknown conv param '" + key + "'");
  s.validate();
  if (r.m != s.m() || r.n != s.n() || r.k != s.k())
    throw Error(
        "a conv record's m, n, k must be out_h·out_w, out_channels and (in_channels/groups)·kernel_h·kernel_w (" +
        std::to_string(s.m()) + ", " + std::to_string(s.n()) + ", " + std::to_string(s.k()) + ")");
  return s;
}

}  // namespace ecosim
