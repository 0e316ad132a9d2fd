// Internal: the tolerance of an attention kernel's output against its CPU reference, one value per variant,
// shared by `validate --suite attention` (GPU against CPU) and `validate --output` (a user's own output).
#pragma once
#include "ecosim/ops_counter/attention.hpp"

namespace ecosim::cli {

/// The largest accepted max |out − ref| / max |ref| (and ‖out − ref‖_F / ‖ref‖_F for `validate --output`).
double kernel_tolerance(AttentionVariant variant);

}  // namespace ecosim::cli
