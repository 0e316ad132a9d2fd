// Reading attention inputs from NumPy .npy files: float32 ('<f4') or float16 ('<f2'), little-endian, C order,
// 1–4 dimensions — and, where the caller asks for it, bfloat16 stored as its bits in uint16 ('<u2'; numpy has
// no bfloat16 dtype) — converted exactly to float; and encoding float32 arrays (an attention output, a
// kernel's parameters) as .npy bytes, format version 1.0.
// Anything else read — a bad magic string, an unsupported version, a header that is not a well-formed dict, a
// different dtype, Fortran order, a size that disagrees with the shape — is an ecosim::Error naming it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ecosim::ecoformer {

/// The element type an array is stored with.
enum class NpyDtype { float32, float16, bfloat16 };
/// numpy's name of it ("float32", "float16"; "bfloat16" for uint16 bits read as bfloat16).
std::string_view dtype_name(NpyDtype dtype);

/// How '<u2' (uint16) data is read: refused (it is not a float type), or as bfloat16 bits — the upper 16
/// bits of a float32, so value = bit_cast<float>(u << 16).
enum class Uint16Data { refused, bfloat16_bits };

struct NpyArray {
  std::vector<std::uint64_t> shape;
  std::vector<float> data;  // row-major, converted exactly from `dtype`
  NpyDtype dtype = NpyDtype::float32;
};

/// Parses the bytes of a .npy file; `origin` names it in error messages.
NpyArray parse_npy(std::string_view bytes, const std::string& origin, Uint16Data u2 = Uint16Data::refused);
NpyArray read_npy(const std::string& path, Uint16Data u2 = Uint16Data::refused);
/// The bytes of a version-1.0 .npy file holding `data` ('<f4', C order) with `shape`; throws ecosim::Error
/// when the shape's element count is not data.size(). Writing them to a file is the caller's (atomically).
std::string npy_bytes(const std::vector<std::uint64_t>& shape, const std::vector<float>& data);

}  // namespace ecosim::ecoformer
