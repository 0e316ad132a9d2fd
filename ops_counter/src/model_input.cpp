// The input of a zoo model: an image side for image families, a token count for sequence families (each
// refuses the other's option), and the convolutions that read the image grid (patch embedding, depthwise 3×3).
#include <fmt/format.h>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "model_entry.hpp"

namespace ecosim::detail {

std::uint64_t image_size(const ModelEntry& e, const ModelOptions& o, std::uint64_t total_stride) {
  if (o.seq_len)
    throw Error("model '" + e.model() + "' takes an image: a sequence length does not apply (give a resolution)");
  const std::uint64_t size = o.resolution ? o.resolution : e.uint("image_size");
  if (total_stride == 0 || size % total_stride || size > 16384)
    throw Error("resolution " + std::to_string(size) + " must be a multiple of " + std::to_string(total_stride) +
                " (the total patch stride of " + e.model() + ") and at most 16384");
  return size;
}

Conv2d patch_embedding(const ModelEntry& e, const ModelOptions& o, std::uint64_t size, std::uint64_t patch,
                       std::uint64_t width) {
  return {.batch = o.batch,
          .in_ch = e.uint("in_chans"),
          .out_ch = width,
          .in_h = size,
          .in_w = size,
          .kernel = patch,
          .stride = patch};
}

Conv2d depthwise_3x3(std::uint64_t batch, std::uint64_t channels, std::uint64_t h, std::uint64_t w) {
  return {.batch = batch,
          .in_ch = channels,
          .out_ch = channels,
          .in_h = h,
          .in_w = w,
          .kernel = 3,
          .stride = 1,
          .pad = 1,
          .groups = channels};
}

std::uint64_t sequence_length(const ModelEntry& e, const ModelOptions& o) {
  if (o.resolution)
    throw Error("model '" + e.model() + "' takes a sequence: a resolution does not apply (give a sequence length)");
  return o.seq_len ? o.seq_len : e.uint("seq_len");
}

std::uint64_t learned_sequence_length(const ModelEntry& e, const ModelOptions& o) {
  const std::uint64_t n = sequence_length(e, o);
  if (n > e.uint("seq_len"))
    throw Error(fmt::format("model '{}': a sequence of {} tokens exceeds its {} learned positions ('seq_len')",
                            e.model(), n, e.uint("seq_len")));
  return n;
}

std::uint64_t token_and_position_tables(const ModelEntry& e, std::uint64_t width) {
  return checked_mul(checked_add(e.uint("vocab_size"), e.uint("seq_len")), width);
}

}  // namespace ecosim::detail
