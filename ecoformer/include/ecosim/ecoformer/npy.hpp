// Reading attention inputs from NumPy .npy files: float32 (little-endian '<f4'), C order, 1–4 dimensions;
// and encoding arrays of that kind (an attention output) as .npy bytes, format version 1.0.
// Anything else read — a bad magic string, an unsupported version, a header that is not a well-formed dict, a
// different dtype, Fortran order, a size that disagrees with the shape — is an ecosim::Error naming it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ecosim::ecoformer {

struct NpyArray {
  std::vector<std::uint64_t> shape;
  std::vector<float> data;  // row-major
};

/// Parses the bytes of a .npy file; `origin` names it in error messages.
NpyArray parse_npy(std::string_view bytes, const std::string& origin);
NpyArray read_npy(const std::string& path);
/// The bytes of a version-1.0 .npy file holding `data` ('<f4', C order) with `shape`; throws ecosim::Error
/// when the shape's element count is not data.size(). Writing them to a file is the caller's (atomically).
std::string npy_bytes(const std::vector<std::uint64_t>& shape, const std::vector<float>& data);

}  // namespace ecosim::ecoformer
