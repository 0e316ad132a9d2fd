// The activation-compression kernels on numpy arrays: ActNN (and its bit allocator), GACT's bit allocator,
// Mesa and Few-Bit Backward, each on the CPU reference or, with device "cuda", the CUDA kernels behind their
// host-memory entry points. Inputs are C-contiguous arrays of fp32 values, or the raw 16-bit words of fp16 or
// bf16 ones (dtype names the element type); dequantized values come back as fp32 arrays.
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "ecosim/kernels/actnn.hpp"
#include "ecosim/kernels/fewbit.hpp"
#include "ecosim/kernels/gact.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/kernels/mesa.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::python {

namespace py = pybind11;
namespace k = ecosim::kernels;

namespace {

/// A C-contiguous array's elements as a kernel input of `dtype` (fp32, fp16 or bf16).
k::TensorView view(const py::array& x, const std::string& dtype) {
  const std::optional<DType> t = parse_dtype(dtype);
  if (!t || (*t != DType::fp32 && *t != DType::fp16 && *t != DType::bf16))
    throw Error("dtype must be fp32, fp16 or bf16, got '" + dtype + "'");
  if (!(x.flags() & py::array::c_style)) throw Error("the array must be C-contiguous");
  if (static_cast<unsigned>(x.itemsize()) * 8 != bits(*t))
    throw Error("the array's elements are " + std::to_string(x.itemsize()) + " bytes, " + dtype + "'s " +
                std::to_string(bits(*t) / 8));
  return {x.data(), *t, static_cast<std::uint64_t>(x.size())};
}

bool on_gpu(const std::string& device) {
  if (device != "cpu" && device != "cuda") throw Error("device must be cpu or cuda, got '" + device + "'");
  return device == "cuda";
}

py::array_t<float> to_array(std::vector<float> values) {
  py::array_t<float> out(static_cast<py::ssize_t>(values.size()));
  std::memcpy(out.mutable_data(), values.data(), values.size() * sizeof(float));
  return out;
}

py::array_t<std::uint8_t> to_array(const std::vector<std::uint8_t>& values) {
  py::array_t<std::uint8_t> out(static_cast<py::ssize_t>(values.size()));
  std::memcpy(out.mutable_data(), values.data(), values.size());
  return out;
}

void bind_actnn(py::module_& m) {
  py::class_<k::actnn::Compressed>(m, "ActnnCompressed", "an ActNN-compressed tensor (codes + bf16 group metadata)")
      .def_property_readonly("storage_bytes", &k::actnn::Compressed::storage_bytes)
      .def_property_readonly("bits", [](const k::actnn::Compressed& c) { return c.layout.bits; })
      .def_property_readonly("elements", [](const k::actnn::Compressed& c) { return c.layout.elements(); });
  m.def(
      "actnn_quantize",
      [](const py::array& x, const std::string& dtype, const std::vector<unsigned>& bits, std::uint64_t seed,
         const std::string& device) {
        const k::TensorView v = view(x, dtype);
        if (bits.empty() || v.elements % bits.size() != 0)
          throw Error("the tensor's " + std::to_string(v.elements) + " elements do not split into " +
                      std::to_string(bits.size()) + " samples");
        const k::actnn::Layout layout{bits.size(), v.elements / bits.size(), bits};
        const py::gil_scoped_release unlocked;
        return on_gpu(device) ? k::actnn::quantize_cuda(v, layout, seed) : k::actnn::quantize_cpu(v, layout, seed);
      },
      py::arg("x"), py::arg("dtype"), py::arg("bits"), py::arg("seed"), py::arg("device") = "cpu",
      "Quantizes x viewed as len(bits) equal samples, sample s at bits[s] ∈ {1, 2, 4, 8} (ActNN's group "
      "quantizer, stochastic rounding keyed by seed).");
  m.def(
      "actnn_dequantize",
      [](const k::actnn::Compressed& c, const std::string& device) {
        return to_array(on_gpu(device) ? k::actnn::dequantize_cuda(c) : k::actnn::dequantize_cpu(c));
      },
      py::arg("compressed"), py::arg("device") = "cpu", "The dequantized values, fp32, flat.");
  m.def(
      "actnn_range_weights",
      [](const py::array& x, const std::string& dtype, std::uint64_t samples) {
        return k::actnn::range_weights(view(x, dtype), samples);
      },
      py::arg("x"), py::arg("dtype"), py::arg("samples"),
      "ActNN's activation-only sensitivity of each of `samples` equal rows: Σ_g n_g·R_g²/4.");
  m.def("actnn_allocate_bits", &k::actnn::allocate_bits, py::arg("weights"), py::arg("budget_bits"),
        "ActNN's per-sample bits keeping Σ w_s/(2^b_s − 1)² low within budget_bits, greedily (ActNN's heuristic: "
        "bits of the budget may stay unspent).");
}

void bind_gact(py::module_& m) {
  m.def("gact_allocate_bits", &k::gact::allocate_bits, py::arg("sensitivity"), py::arg("elements"),
        py::arg("average_bits"), py::arg("raw_bits") = std::vector<unsigned>{},
        "GACT's per-tensor bits from {1, 2, 4, 8, 32 = raw} minimising Σ c_l·S(b_l) within average_bits·Σ D_l, a "
        "raw tensor costing raw_bits[l] (its dtype's width; empty: 32 each).");
}

void bind_mesa(py::module_& m) {
  py::class_<k::mesa::State>(m, "MesaState", "the running (α, β) per head of one Mesa-compressed tensor")
      .def(py::init<>())
      .def_property_readonly("initialized", &k::mesa::State::initialized);
  py::class_<k::mesa::Compressed>(m, "MesaCompressed", "a Mesa-compressed tensor (8-bit codes, (α, β) per head)")
      .def_property_readonly("storage_bytes", &k::mesa::Compressed::storage_bytes);
  m.def(
      "mesa_quantize",
      [](const py::array& x, const std::string& dtype, std::uint64_t heads, std::uint64_t inner, k::mesa::State& state,
         std::uint64_t seed, const std::string& device) {
        const k::TensorView v = view(x, dtype);
        if (heads == 0 || inner == 0 || heads > v.elements / inner || v.elements % (heads * inner) != 0)
          throw Error("the tensor's " + std::to_string(v.elements) + " elements are not outer × " +
                      std::to_string(heads) + " heads × " + std::to_string(inner));
        const k::mesa::Layout layout{v.elements / (heads * inner), heads, inner};
        const py::gil_scoped_release unlocked;
        return on_gpu(device) ? k::mesa::quantize_cuda(v, layout, state, seed)
                              : k::mesa::quantize_cpu(v, layout, state, seed);
      },
      py::arg("x"), py::arg("dtype"), py::arg("heads"), py::arg("inner"), py::arg("state"), py::arg("seed"),
      py::arg("device") = "cpu",
      "One Mesa step: updates the running (α, β) of x viewed as outer × heads × inner, then quantizes to 8 bits.");
  m.def(
      "mesa_dequantize",
      [](const k::mesa::Compressed& c, const std::string& device) {
        return to_array(on_gpu(device) ? k::mesa::dequantize_cuda(c) : k::mesa::dequantize_cpu(c));
      },
      py::arg("compressed"), py::arg("device") = "cpu", "The dequantized values, fp32, flat.");
}

/// f(x) or a gradient as a host tensor's raw elements (fp32 values, or fp16/bf16 16-bit words).
py::array raw(const k::fewbit::HostTensor& t) {
  if (t.dtype == DType::fp32) {
    py::array_t<float> out(static_cast<py::ssize_t>(t.elements));
    std::memcpy(out.mutable_data(), t.bytes.data(), t.bytes.size());
    return out;
  }
  py::array_t<std::uint16_t> out(static_cast<py::ssize_t>(t.elements));
  std::memcpy(out.mutable_data(), t.bytes.data(), t.bytes.size());
  return out;
}

void bind_fewbit(py::module_& m) {
  py::class_<k::fewbit::Codebook>(m, "FewbitCodebook", "Few-Bit Backward's quantiser of one activation's f′")
      .def_readonly("bits", &k::fewbit::Codebook::bits)
      .def_readonly("borders", &k::fewbit::Codebook::borders)
      .def_readonly("levels", &k::fewbit::Codebook::levels);
  m.def(
      "fewbit_codebook",
      [](const std::string& activation, unsigned bits) {
        const py::gil_scoped_release unlocked;
        return k::fewbit::Codebook::from(k::fewbit::solve(k::fewbit::activation(activation).activation, bits));
      },
      py::arg("activation"), py::arg("bits"), "Solves the optimal b-bit quantiser of the activation's derivative.");
  m.def(
      "fewbit_forward",
      [](const k::fewbit::Codebook& c, const py::array& x, const std::string& dtype, const std::string& device) {
        const k::TensorView v = view(x, dtype);
        k::fewbit::Forward f = [&] {
          const py::gil_scoped_release unlocked;
          return on_gpu(device) ? k::fewbit::forward_cuda(c, v) : k::fewbit::forward_cpu(c, v);
        }();
        return py::make_tuple(raw(f.output), to_array(f.codes));
      },
      py::arg("codebook"), py::arg("x"), py::arg("dtype"), py::arg("device") = "cpu",
      "f(x) (raw elements of dtype) and the packed b-bit codes of x.");
  m.def(
      "fewbit_backward",
      [](const k::fewbit::Codebook& c, const py::array_t<std::uint8_t, py::array::c_style>& codes,
         const py::array& grad, const std::string& dtype, const std::string& device) {
        const k::TensorView g = view(grad, dtype);
        const std::span<const std::uint8_t> packed(codes.data(), static_cast<std::size_t>(codes.size()));
        const py::gil_scoped_release unlocked;
        k::fewbit::HostTensor out =
            on_gpu(device) ? k::fewbit::backward_cuda(c, packed, g) : k::fewbit::backward_cpu(c, packed, g);
        const py::gil_scoped_acquire locked;
        return raw(out);
      },
      py::arg("codebook"), py::arg("codes"), py::arg("grad"), py::arg("dtype"), py::arg("device") = "cpu",
      "The incoming gradient times the level of each element's code (raw elements of dtype).");
}

}  // namespace

void bind_compression(py::module_& m) {
  m.def(
      "gpu_probe",
      [] {
        const gpu::Availability a = gpu::probe();
        py::dict d;
        d["available"] = a.available;
        d["device_name"] = a.device_name;
        d["reason"] = a.reason;
        return d;
      },
      "Whether a GPU can run the CUDA kernels: available, device_name, and the reason when not.");
  bind_actnn(m);
  bind_gact(m);
  bind_mesa(m);
  bind_fewbit(m);
}

}  // namespace ecosim::python
