// Internal: the window regrouping that runs Twins' locally-grouped attention (LSA) as MSA over windows
// (see lsa_windows.cpp).
#pragma once
#include "ecosim/ecoformer/run.hpp"

namespace ecosim::ecoformer::detail {

/// The MSA config over the windows: batch·windows entries of window² tokens.
AttentionConfig lsa_window_config(const AttentionConfig& c);
/// [batch][heads][seq][dim] on the token grid → [batch·windows][heads][window²][dim], zero-padded.
Tensor lsa_partition(const Tensor& t, const AttentionConfig& c);
/// The inverse for the real tokens: windows' outputs back to [batch][heads][seq][dim].
Tensor lsa_merge(const Tensor& windows, const AttentionConfig& c);

}  // namespace ecosim::ecoformer::detail
