// Twins' locally-grouped attention (LSA) on top of the MSA kernels: the token grid of every (batch, head)
// is zero-padded to whole window × window groups, each window becomes its own batch entry, MSA (CPU
// reference or CUDA kernel) runs over them, and the outputs of the real tokens are scattered back.
// Padded tokens are zero queries, keys and values that take part in the softmax, as in the original Twins
// code (without a mask), which is what the op counter counts. The regrouping is a view in the original
// (a reshape) and is not reported.
#include "lsa_windows.hpp"

#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::ecoformer::detail {

namespace {

struct Grid {
  std::uint64_t height, width, window, across, down;  // across × down windows
  explicit Grid(const AttentionConfig& c)
      : height(token_grid_height(c)),
        width(c.seq / height),
        window(c.window),
        across((width + window - 1) / window),
        down((height + window - 1) / window) {}
  std::uint64_t windows() const { return across * down; }
};

/// Calls f(window entry, row in the window, batch entry, token) for every real token of every batch entry.
template <class F>
void for_each_token(const Grid& g, std::uint64_t batch, F f) {
  for (std::uint64_t b = 0; b < batch; ++b)
    for (std::uint64_t y = 0; y < g.height; ++y)
      for (std::uint64_t x = 0; x < g.width; ++x) {
        const std::uint64_t w = (y / g.window) * g.across + x / g.window;
        f(b * g.windows() + w, (y % g.window) * g.window + x % g.window, b, y * g.width + x);
      }
}

/// Calls copy(image_index, window_index) for every element: its flat index in the image-ordered tensor
/// ([batch][heads][seq][dim]) and in the window-ordered one ([windows·batch][heads][window²][dim]).
template <class Copy>
void for_each_element(const AttentionConfig& c, std::uint64_t window_seq, Copy copy) {
  for_each_token(Grid(c), c.batch, [&](std::uint64_t wb, std::uint64_t row, std::uint64_t b, std::uint64_t token) {
    for (std::uint64_t h = 0; h < c.heads; ++h)
      for (std::uint64_t d = 0; d < c.head_dim; ++d)
        copy(((b * c.heads + h) * c.seq + token) * c.head_dim + d,
             ((wb * c.heads + h) * window_seq + row) * c.head_dim + d);
  });
}

}  // namespace

AttentionConfig lsa_window_config(const AttentionConfig& c) {
  AttentionConfig w = c;
  w.variant = AttentionVariant::msa;
  w.batch = checked_mul(c.batch, lsa_windows(c));
  w.seq = c.window * c.window;
  return w;
}

Tensor lsa_partition(const Tensor& t, const AttentionConfig& c) {
  const AttentionConfig w = lsa_window_config(c);
  Tensor out{w.batch, t.heads, w.seq, t.dim, std::vector<float>(checked_product({w.batch, t.heads, w.seq, t.dim}))};
  for_each_element(c, w.seq, [&](std::uint64_t image, std::uint64_t window) { out.data[window] = t.data[image]; });
  return out;
}

Tensor lsa_merge(const Tensor& windows, const AttentionConfig& c) {
  Tensor out{c.batch, c.heads, c.seq, c.head_dim,
             std::vector<float>(checked_product({c.batch, c.heads, c.seq, c.head_dim}))};
  for_each_element(c, windows.seq,
                   [&](std::uint64_t image, std::uint64_t window) { out.data[image] = windows.data[window]; });
  return out;
}

}  // namespace ecosim::ecoformer::detail
