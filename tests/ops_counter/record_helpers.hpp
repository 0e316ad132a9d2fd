// Test helpers: a sink that keeps every record, and the total counts of one layer in one convention.
#pragma once
#include <vector>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/layers.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "ecosim/ops_counter/sinks.hpp"

namespace ecosim::test {

using ecosim::RecordingSink;

inline OpCounts count(const Layer& layer, Convention convention) {
  OpCounter c;
  emit(layer, convention, c);
  return c.total();
}

}  // namespace ecosim::test
