// Op records of the Few-Bit Backward passes and of the uncompressed backward they replace, so a trace
// shows the activation traffic with and without compression (codes vs the saved input).
#include <string>

#include "ecosim/kernels/fewbit.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::kernels::fewbit {

namespace {
std::string func(Activation a, const char* pass) { return "fewbit_" + std::string(spec(a).name) + "_" + pass; }
}  // namespace

OpRecord forward_record(const Codebook& c, std::uint64_t elements, DType t) {
  // f(x) plus one compare per border (|x| is a sign-bit clear, not counted); codes written packed.
  ops::OpMix mix = spec(c.activation).forward_ops;
  mix.cmp += c.borders.size();
  OpRecord r = ops::eltwise("fewbit.forward", func(c.activation, "forward"), 1, 1, elements, t, mix);
  r.params = {{std::string(ops::kCodeBitsParam), c.bits}};
  r.counts.add_written_bytes(code_dtype(c.bits), code_bytes(elements, c.bits));
  return r;
}

OpRecord backward_record(const Codebook& c, std::uint64_t elements, DType t) {
  // grad · level[code]: one multiply; reads the gradient and the packed codes, writes the gradient.
  OpRecord r = ops::eltwise("fewbit.backward", func(c.activation, "backward"), 1, 1, elements, t, {.mul = 1});
  r.params = {{std::string(ops::kCodeBitsParam), c.bits}};
  r.counts.add_read_bytes(code_dtype(c.bits), code_bytes(elements, c.bits));
  return r;
}

OpRecord backward_uncompressed_record(Activation a, std::uint64_t elements, DType t) {
  // f′(x) from the saved input (same op mix as f) times the gradient; reads x and the gradient.
  ops::OpMix mix = spec(a).forward_ops;
  mix.mul += 1;
  return ops::eltwise("activation.backward", func(a, "backward_uncompressed"), 1, 1, elements, t, mix, 2);
}

}  // namespace ecosim::kernels::fewbit
