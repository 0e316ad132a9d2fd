// The input size of a zoo model: an image side for image families, a token count for sequence families; each
// refuses the other's option.
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

std::uint64_t sequence_length(const ModelEntry& e, const ModelOptions& o) {
  if (o.resolution)
    throw Error("model '" + e.model() + "' takes a sequence: a resolution does not apply (give a sequence length)");
  return o.seq_len ? o.seq_len : e.uint("seq_len");
}

}  // namespace ecosim::detail
