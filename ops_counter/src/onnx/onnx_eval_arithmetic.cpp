// The shape evaluator's rules for the ops that compute shape arithmetic (onnx_eval.hpp): Shape, Size, Cast,
// ConstantOfShape, Range, Where, comparisons, logic and arithmetic — each output's shape (elementwise ops
// broadcast) and, where its inputs' values are known, its value (integers exactly and checked, floating point as
// double).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ecosim/ops_counter/variant_registry.hpp"
#include "onnx_eval.hpp"

namespace ecosim::onnx_import {

namespace {

using Ints = std::vector<std::int64_t>;

Values ints_value(Ints v) { return Values{.real = false, .ints = std::move(v), .reals = {}}; }

/// An integer band value (held as double) as the integer, where it is one exactly (|x| < 2^53).
std::optional<std::int64_t> exact_int(double x) {
  if (!(std::abs(x) < 9007199254740992.0) || x != std::trunc(x)) return std::nullopt;
  return static_cast<std::int64_t>(x);
}

/// A real cast to ONNX type `to` as it is stored: FLOAT rounds to float; FLOAT16 and BFLOAT16 to the nearest of
/// their values (ties to even; past their largest, ±∞); DOUBLE as is — so a value too small for fp16 becomes 0, as
/// the graph computes it.
double stored_as(double x, std::int64_t to) {
  if (std::isnan(x) || std::isinf(x) || to == 11) return x;
  if (to == 1) return static_cast<double>(static_cast<float>(x));
  // FLOAT16: 10 fraction bits, exponents down to −14, then subnormals in steps of 2^−24; BFLOAT16: float's range,
  // 7 fraction bits
  const int fraction_bits = to == 10 ? 10 : 7, min_exponent = to == 10 ? -14 : -126;
  const double largest = to == 10 ? 65504.0 : static_cast<double>(std::numeric_limits<float>::max());
  int exponent = 0;
  std::frexp(x, &exponent);                                               // x = m · 2^exponent, 0.5 ≤ |m| < 1
  const int step = std::max(exponent - 1, min_exponent) - fraction_bits;  // the spacing of values near x: 2^step
  const double rounded = std::ldexp(std::nearbyint(std::ldexp(x, -step)), step);
  if (std::abs(rounded) <= largest) return rounded;
  return std::copysign(std::numeric_limits<double>::infinity(), x);
}

void cast(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  if (!d) return;
  const Values* in = e.values(n, 0);
  const std::int64_t to = int_attribute(n, "to", 1);
  const bool real = to == 1 || to == 10 || to == 11 || to == 16;  // FLOAT, FLOAT16, DOUBLE, BFLOAT16
  // The integer types' ranges (INT8, UINT8, INT16, UINT16, INT32, UINT32; INT64 and UINT64 as int64): a value
  // outside its target's range has no value here (the runtimes wrap or saturate it differently).
  const std::pair<double, double> range = [to]() -> std::pair<double, double> {
    switch (to) {
      case 3: return {-128.0, 127.0};
      case 2: return {0.0, 255.0};
      case 5: return {-32768.0, 32767.0};
      case 4: return {0.0, 65535.0};
      case 6: return {-2147483648.0, 2147483647.0};
      case 12: return {0.0, 4294967295.0};
      default: return {-9.0e18, 9.0e18};
    }
  }();
  const double lowest = range.first, highest = range.second;  // (not a structured binding: lambdas capture these)
  const bool narrow = to == 2 || to == 3 || to == 4 || to == 5 || to == 6 || to == 12;
  // An integer from a real (truncated toward zero) or an integer, where the target holds it; none for NaN and ±inf.
  auto integer = [&](double x) {
    const double t = std::trunc(x);
    return t >= lowest && t <= highest ? std::optional{static_cast<std::int64_t>(t)} : std::nullopt;
  };
  if (!in) {
    const auto band = elementwise_band(e, n, *d, real, [&](const std::vector<double>& x) -> std::optional<double> {
      if (real || to == 9) return real ? stored_as(x[0], to) : double(x[0] != 0);
      const auto i = integer(x[0]);
      return i ? std::optional{double(*i)} : std::nullopt;
    });
    return band ? e.set_band(n, 0, *d, *band) : e.set_dims(n, 0, *d);
  }
  Values v;
  v.real = real;
  for (std::size_t k = 0; k < in->size(); ++k) {
    const double x = in->at(k);
    if (v.real) {
      v.reals.push_back(stored_as(x, to));
    } else if (to == 9) {  // BOOL
      v.ints.push_back(in->real ? x != 0 : in->ints[k] != 0);
    } else if (!in->real && (!narrow || (double(in->ints[k]) >= lowest && double(in->ints[k]) <= highest))) {
      v.ints.push_back(in->ints[k]);  // exact (an int64's 2^63 − 1 slice end too)
    } else {
      const auto i = in->real ? integer(x) : std::nullopt;
      if (!i) return e.set_dims(n, 0, *d);
      v.ints.push_back(*i);
    }
  }
  e.set_values(n, 0, *d, std::move(v));
}

void shape(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  if (!d) return;
  const auto rank = static_cast<std::int64_t>(d->size());
  auto clamp = [rank](std::int64_t i) { return std::clamp(i < 0 ? i + rank : i, std::int64_t{0}, rank); };
  const std::int64_t start = clamp(int_attribute(n, "start", 0)), end = clamp(int_attribute(n, "end", rank));
  Ints v;
  for (std::int64_t i = start; i < end; ++i) v.push_back(static_cast<std::int64_t>((*d)[static_cast<std::size_t>(i)]));
  const Dims out{v.size()};
  e.set_values(n, 0, out, ints_value(std::move(v)));
}

void size(Evaluator& e, const Node& n) {
  if (const Dims* d = e.dims(n, 0)) e.set_values(n, 0, {}, ints_value({static_cast<std::int64_t>(element_count(*d))}));
}

void constant_of_shape(Evaluator& e, const Node& n) {
  const auto target = e.ints(n, 0);
  if (!target) return;
  const Dims out = dims_from(e, n, *target, "dimension");
  const Values fill = n.fill.value_or(Values{.real = true, .ints = {}, .reals = {0.0}});
  const std::uint64_t count = element_count(out);
  if (count > kMaxFoldedElements) return e.set_band(n, 0, out, Band{fill.real, fill.at(0), fill.at(0), 0});
  Values v;
  v.real = fill.real;
  if (fill.real)
    v.reals.assign(count, fill.reals.at(0));
  else
    v.ints.assign(count, fill.ints.at(0));
  e.set_values(n, 0, out, std::move(v));
}

void range(Evaluator& e, const Node& n) {
  const Values *start = e.values(n, 0), *limit = e.values(n, 1), *delta = e.values(n, 2);
  if (!start || !limit || !delta) return;
  if (start->size() != 1 || limit->size() != 1 || delta->size() != 1)
    e.fail(n, "start, limit and delta must be scalars");
  const bool real = start->real || limit->real || delta->real;
  if (delta->at(0) == 0) e.fail(n, "delta 0");
  double count;  // max(ceil((limit − start) / delta), 0)
  if (real) {
    count = std::ceil((limit->at(0) - start->at(0)) / delta->at(0));
  } else {
    std::int64_t span;
    if (__builtin_sub_overflow(limit->ints[0], start->ints[0], &span)) e.fail(n, "limit − start overflows 64 bits");
    const std::int64_t step = delta->ints[0];
    const std::int64_t q = step == -1 && span == INT64_MIN ? INT64_MAX : span / step;
    const std::int64_t remainder = step == -1 ? 0 : span % step;
    count = static_cast<double>(q) + ((remainder != 0) && ((span > 0) == (step > 0)));
  }
  if (!(count > 0)) count = 0;  // (NaN too)
  if (count > static_cast<double>(kMaxDimension))
    e.fail(n, fmt::format("Range of {:.0f} elements is above the limit of {}", count, kMaxDimension));
  const auto elements = static_cast<std::uint64_t>(count);
  if (elements > kMaxFoldedElements) return e.set_dims(n, 0, {elements});
  Values v;
  v.real = real;
  for (std::uint64_t i = 0; i < elements; ++i) {
    if (real)
      v.reals.push_back(start->at(0) + static_cast<double>(i) * delta->at(0));
    else
      v.ints.push_back(start->ints[0] + static_cast<std::int64_t>(i) * delta->ints[0]);
  }
  e.set_values(n, 0, {elements}, std::move(v));
}

// ---- elementwise: broadcasting shapes; values when every input's is known ----

using IntOp = std::optional<std::int64_t> (*)(std::int64_t, std::int64_t);  // none: overflow
using RealOp = double (*)(double, double);

struct Arithmetic {
  IntOp ints;
  RealOp reals;
  bool boolean = false;  // a comparison or logic op: the result is 0/1
};

std::optional<std::int64_t> checked(bool overflow, std::int64_t r) {
  return overflow ? std::nullopt : std::optional{r};
}

const std::map<std::string, Arithmetic>& arithmetic() {
  static const std::map<std::string, Arithmetic> table = {
      {"Add",
       {[](std::int64_t a, std::int64_t b) {
          std::int64_t r;
          const bool overflow = __builtin_add_overflow(a, b, &r);
          return checked(overflow, r);
        },
        [](double a, double b) { return a + b; }}},
      {"Sub",
       {[](std::int64_t a, std::int64_t b) {
          std::int64_t r;
          const bool overflow = __builtin_sub_overflow(a, b, &r);
          return checked(overflow, r);
        },
        [](double a, double b) { return a - b; }}},
      {"Mul",
       {[](std::int64_t a, std::int64_t b) {
          std::int64_t r;
          const bool overflow = __builtin_mul_overflow(a, b, &r);
          return checked(overflow, r);
        },
        [](double a, double b) { return a * b; }}},
      {"Div",
       {[](std::int64_t a, std::int64_t b) { return checked(b == -1 && a == INT64_MIN, b == -1 ? -a : a / b); },
        [](double a, double b) { return a / b; }}},
      {"Mod",
       {[](std::int64_t a, std::int64_t b) {  // fmod = 0: the sign of the divisor (Python's %)
          if (b == -1) return std::optional<std::int64_t>{0};
          const std::int64_t r = a % b;
          return std::optional<std::int64_t>{r != 0 && ((r < 0) != (b < 0)) ? r + b : r};
        },
        [](double a, double b) { return a - b * std::floor(a / b); }}},
      {"Max",
       {[](std::int64_t a, std::int64_t b) { return std::optional{std::max(a, b)}; },
        [](double a, double b) { return std::max(a, b); }}},
      {"Min",
       {[](std::int64_t a, std::int64_t b) { return std::optional{std::min(a, b)}; },
        [](double a, double b) { return std::min(a, b); }}},
      {"Pow", {nullptr, [](double a, double b) { return std::pow(a, b); }}},
      {"Equal",
       {[](std::int64_t a, std::int64_t b) { return std::optional<std::int64_t>{a == b}; },
        [](double a, double b) { return static_cast<double>(a == b); }, true}},
      {"Less",
       {[](std::int64_t a, std::int64_t b) { return std::optional<std::int64_t>{a < b}; },
        [](double a, double b) { return static_cast<double>(a < b); }, true}},
      {"LessOrEqual",
       {[](std::int64_t a, std::int64_t b) { return std::optional<std::int64_t>{a <= b}; },
        [](double a, double b) { return static_cast<double>(a <= b); }, true}},
      {"Greater",
       {[](std::int64_t a, std::int64_t b) { return std::optional<std::int64_t>{a > b}; },
        [](double a, double b) { return static_cast<double>(a > b); }, true}},
      {"GreaterOrEqual",
       {[](std::int64_t a, std::int64_t b) { return std::optional<std::int64_t>{a >= b}; },
        [](double a, double b) { return static_cast<double>(a >= b); }, true}},
      {"And", {[](std::int64_t a, std::int64_t b) { return std::optional<std::int64_t>{a && b}; }, nullptr, true}},
      {"Or", {[](std::int64_t a, std::int64_t b) { return std::optional<std::int64_t>{a || b}; }, nullptr, true}},
      {"Xor", {[](std::int64_t a, std::int64_t b) { return std::optional<std::int64_t>{!a != !b}; }, nullptr, true}},
  };
  return table;
}

/// The broadcast shape of every (present) input; none when one is unknown.
std::optional<Dims> broadcast_inputs(Evaluator& e, const Node& n) {
  std::optional<Dims> out;
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    if (n.inputs[i].empty()) continue;
    const Dims* d = e.dims(n, i);
    if (!d) return std::nullopt;
    out = out ? broadcast(*out, *d) : *d;
    if (!out)
      e.fail(n, fmt::format("input '{}' of shape {} does not broadcast with the others", n.inputs[i], dims_text(*d)));
  }
  return out;
}

/// One output element of a binary op over `count` operands in input order: reals (`real`, any operand real) or
/// exact integers; `error` names why an integer result does not exist (a division by zero, an overflow).
struct Element {
  double real = 0;
  std::int64_t integer = 0;
  const char* error = nullptr;
};
template <class RealAt, class IntegerAt>
Element combine(const Node& n, const Arithmetic& op, bool real, std::size_t count, const RealAt& real_at,
                const IntegerAt& integer_at) {
  Element r;
  if (real) {
    r.real = real_at(0);
    for (std::size_t j = 1; j < count; ++j) r.real = op.reals(r.real, real_at(j));
    return r;
  }
  r.integer = integer_at(0);
  for (std::size_t j = 1; j < count; ++j) {
    const std::int64_t b = integer_at(j);
    if ((n.op == "Div" || n.op == "Mod") && b == 0) return {.error = "integer division by zero"};
    const auto x = op.ints(r.integer, b);
    if (!x) return {.error = "integer overflow"};
    r.integer = *x;
  }
  return r;
}
/// The element as the output keeps it: a real, a comparison's 0/1 of reals, or the integer.
double kept_real(const Element& e, bool real, const Arithmetic& op) {
  return real ? (op.boolean ? double(e.real != 0) : e.real) : double(e.integer);
}

/// A binary op over inputs too large to fold that are bands (elementwise_band): the op on their upper values and
/// on their lower ones, as binary() computes an element (where it has none, no band).
void binary_band(Evaluator& e, const Node& n, const Arithmetic& op, const Dims& out) {
  bool real = false;
  for (std::size_t i = 0; i < n.inputs.size(); ++i)
    if (const auto b = e.band(n, i)) real = real || b->real;
  const auto band = elementwise_band(e, n, out, real && !op.boolean, [&](const std::vector<double>& x) {
    std::optional<double> r;
    std::vector<std::int64_t> integers;
    for (double v : x)
      if (const auto i = exact_int(v); !real && i) integers.push_back(*i);
    if ((real ? !op.reals : !op.ints) || (!real && integers.size() != x.size())) return r;
    const Element element = combine(
        n, op, real, x.size(), [&](std::size_t j) { return x[j]; }, [&](std::size_t j) { return integers[j]; });
    if (!element.error) r = kept_real(element, real, op);
    return r;
  });
  return band ? e.set_band(n, 0, out, *band) : e.set_dims(n, 0, out);
}

/// Add, Sub, Mul, Div, Mod, Pow, Max, Min (variadic), comparisons and logic.
void binary(Evaluator& e, const Node& n) {
  const auto out = broadcast_inputs(e, n);
  if (!out) return;
  const Arithmetic& op = arithmetic().at(n.op);
  std::vector<std::pair<const Values*, const Dims*>> in;
  bool real = false;
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    if (n.inputs[i].empty()) continue;
    in.emplace_back(e.values(n, i), e.dims(n, i));
    if (!in.back().first) return binary_band(e, n, op, *out);
    real = real || in.back().first->real;
  }
  const std::uint64_t count = element_count(*out);
  if (in.empty() || count > kMaxFoldedElements || (real ? !op.reals : !op.ints)) return e.set_dims(n, 0, *out);
  Values v;
  v.real = real && !op.boolean;
  for (std::size_t k = 0; k < count; ++k) {
    const auto index = [&](std::size_t j) { return broadcast_index(*in[j].second, *out, k); };
    const Element element = combine(
        n, op, real, in.size(), [&](std::size_t j) { return in[j].first->at(index(j)); },
        [&](std::size_t j) { return in[j].first->ints[index(j)]; });
    if (element.error) e.fail(n, element.error);
    if (v.real)
      v.reals.push_back(element.real);
    else
      v.ints.push_back(real ? static_cast<std::int64_t>(element.real != 0) : element.integer);
  }
  e.set_values(n, 0, *out, std::move(v));
}

void where(Evaluator& e, const Node& n) {
  const auto out = broadcast_inputs(e, n);
  if (!out || n.inputs.size() != 3) return;
  const Values *c = e.values(n, 0), *x = e.values(n, 1), *y = e.values(n, 2);
  const std::uint64_t count = element_count(*out);
  if (!c || !x || !y) {  // bands: the choice on the upper values and on the lower ones
    const std::optional<Band> bx = e.band(n, 1), by = e.band(n, 2);
    const auto band = bx && by && bx->real == by->real
                          ? elementwise_band(e, n, *out, bx->real,
                                             [](const std::vector<double>& v) { return v[0] != 0 ? v[1] : v[2]; })
                          : std::nullopt;
    return band ? e.set_band(n, 0, *out, *band) : e.set_dims(n, 0, *out);
  }
  if (x->real != y->real || count > kMaxFoldedElements) return e.set_dims(n, 0, *out);
  Values v;
  v.real = x->real;
  for (std::size_t k = 0; k < count; ++k) {
    const bool pick_x = c->at(broadcast_index(*e.dims(n, 0), *out, k)) != 0;
    const Values& from = pick_x ? *x : *y;
    const std::size_t i = broadcast_index(*e.dims(n, pick_x ? 1 : 2), *out, k);
    if (v.real)
      v.reals.push_back(from.reals[i]);
    else
      v.ints.push_back(from.ints[i]);
  }
  e.set_values(n, 0, *out, std::move(v));
}

/// Neg, Abs, Not, Floor, Ceil, Sqrt, Reciprocal: the input's shape; the value where known.
void unary(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  if (!d) return;
  const Values* in = e.values(n, 0);
  const std::string& op = n.op;
  auto real_op = [&op](double x) {
    return op == "Neg"     ? -x
           : op == "Abs"   ? std::abs(x)
           : op == "Not"   ? static_cast<double>(x == 0)
           : op == "Floor" ? std::floor(x)
           : op == "Ceil"  ? std::ceil(x)
           : op == "Sqrt"  ? std::sqrt(x)
                           : 1.0 / x;
  };
  auto int_op = [&op](std::int64_t x) {  // none: overflow
    if ((op == "Neg" || op == "Abs") && x == INT64_MIN) return std::optional<std::int64_t>{};
    return std::optional{op == "Neg" ? -x : op == "Abs" ? std::abs(x) : op == "Not" ? std::int64_t{x == 0} : x};
  };
  const bool real = in ? in->real : e.band(n, 0) && e.band(n, 0)->real;
  if (!real && (op == "Sqrt" || op == "Reciprocal")) return e.set_dims(n, 0, *d);
  if (!in) {
    const auto band = elementwise_band(e, n, *d, real, [&](const std::vector<double>& x) -> std::optional<double> {
      if (real) return real_op(x[0]);
      const auto i = exact_int(x[0]);
      const auto r = i ? int_op(*i) : std::nullopt;
      return r ? std::optional{double(*r)} : std::nullopt;
    });
    return band ? e.set_band(n, 0, *d, *band) : e.set_dims(n, 0, *d);
  }
  Values v = *in;
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (v.real) {
      v.reals[k] = real_op(v.reals[k]);
    } else {
      const auto r = int_op(v.ints[k]);
      if (!r) e.fail(n, "integer overflow");
      v.ints[k] = *r;
    }
  }
  e.set_values(n, 0, *d, std::move(v));
}

/// Clip: the input's shape; its value (or band) clamped where its bounds are known (inputs 1 and 2 from opset 11,
/// the min and max attributes before; an absent bound none): a causal mask clamped to the type's lowest value.
void clip(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  if (!d) return;
  std::optional<double> low, high;
  const auto bound = [&](std::size_t i, const char* attribute, std::optional<double>& to) {  // false: unknown
    if (n.inputs.size() > i && !n.inputs[i].empty()) {
      const Values* v = e.values(n, i);
      if (!v || v->size() != 1) return false;
      to = v->real ? v->reals[0] : double(v->ints[0]);
    } else if (const auto f = n.floats.find(attribute); f != n.floats.end()) {
      to = f->second;
    }
    return !to || !std::isnan(*to);  // a NaN bound: every value NaN, as no mask is made
  };
  if (!bound(1, "min", low) || !bound(2, "max", high)) return e.set_dims(n, 0, *d);
  // ONNX (and numpy, torch): the max of x and min first, then the min of that and max (min > max gives max)
  const auto clamp = [&](double x) {
    if (low && x < *low) x = *low;
    return high && x > *high ? *high : x;
  };
  const Values* in = e.values(n, 0);
  if (!in) {
    const std::optional<Band> b = e.band(n, 0);
    return b && b->real ? e.set_band(n, 0, *d, Band{true, clamp(b->upper), clamp(b->lower), b->offset})
                        : e.set_dims(n, 0, *d);
  }
  if (!in->real) return e.set_dims(n, 0, *d);  // integer clips: no mask is made so
  Values v = *in;
  for (double& x : v.reals) x = clamp(x);
  e.set_values(n, 0, *d, std::move(v));
}

}  // namespace

void add_arithmetic_rules(Rules& rules) {
  rules["Clip"] = clip;
  rules["Cast"] = cast;
  rules["Shape"] = shape;
  rules["Size"] = size;
  rules["ConstantOfShape"] = constant_of_shape;
  rules["Range"] = range;
  rules["Where"] = where;
  for (const auto& [op, _] : arithmetic()) rules[op] = binary;
  for (const char* op : {"Neg", "Abs", "Not", "Floor", "Ceil", "Sqrt", "Reciprocal"}) rules[op] = unary;
}

}  // namespace ecosim::onnx_import
