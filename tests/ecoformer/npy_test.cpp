// The .npy reader: float32 arrays in every format version round-trip; float16 ('<f2') and, where asked for,
// bfloat16 bits ('<u2') read to the exact float values; every malformation is an Error. The encoder's bytes
// read back to the same shape and values, with the data on a 64-byte boundary.
#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>

#include "../unique_temp_path.hpp"

#include "ecosim/ecoformer/npy.hpp"
#include "ecosim/ops_counter/error.hpp"

using namespace ecosim;
using namespace ecosim::ecoformer;
using Catch::Matchers::Contains;

namespace {
/// A .npy file: magic, version, little-endian header length, header padded to 64 bytes, then `data_bytes`.
std::string npy(const std::string& dict, std::string data_bytes, int major = 1) {
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  std::string header = dict;
  while ((10 + length_bytes - 2 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < length_bytes; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data_bytes;
}

std::string floats(std::initializer_list<float> values) {
  std::string bytes(values.size() * 4, '\0');
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return bytes;
}
}  // namespace

TEST_CASE("float32 .npy arrays parse in versions 1, 2 and 3", "[npy]") {
  for (int major : {1, 2, 3}) {
    const NpyArray a = parse_npy(
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 2, 3), }", floats({1, 2, 3, 4, 5, -6.5f}), major),
        "t.npy");
    CHECK(a.shape == std::vector<std::uint64_t>{1, 1, 2, 3});
    CHECK(a.data == std::vector<float>{1, 2, 3, 4, 5, -6.5f});
  }
  CHECK(parse_npy(npy("{'shape': (3,), 'fortran_order': False, 'descr': '<f4'}", floats({7, 8, 9})), "t").shape ==
        std::vector<std::uint64_t>{3});
}

std::string halves(std::initializer_list<std::uint16_t> bits) {
  std::string bytes(bits.size() * 2, '\0');
  std::memcpy(bytes.data(), bits.begin(), bytes.size());
  return bytes;
}

TEST_CASE("float16 and bfloat16 .npy arrays read to their exact values", "[npy]") {
  // float16: 1.0 = 0x3c00, -2.5 = 0xc100, 2^-24 (smallest subnormal) = 0x0001, 65504 (largest) = 0x7bff.
  const NpyArray h = parse_npy(
      npy("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }", halves({0x3c00, 0xc100, 0x0001, 0x7bff})),
      "h.npy");
  CHECK(h.dtype == NpyDtype::float16);
  CHECK(h.shape == std::vector<std::uint64_t>{2, 2});
  CHECK(h.data == std::vector<float>{1.0f, -2.5f, 0x1p-24f, 65504.0f});
  // bfloat16 bits are the upper half of a float32: 1.0 = 0x3f80, -2.5 = 0xc020, 1 + 2^-7 = 0x3f81.
  const std::string bf16 =
      npy("{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }", halves({0x3f80, 0xc020, 0x3f81}));
  const NpyArray b = parse_npy(bf16, "b.npy", Uint16Data::bfloat16_bits);
  CHECK(b.dtype == NpyDtype::bfloat16);
  CHECK(b.data == std::vector<float>{1.0f, -2.5f, 1.0f + 0x1p-7f});
  CHECK_THROWS_WITH(parse_npy(bf16, "b.npy"), Contains("b.npy: dtype '<u2' is not little-endian float32"));
  CHECK_THROWS_WITH(parse_npy(npy("{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", halves({1, 2})), "t"),
                    Contains("data holds 4 bytes, the shape needs 6"));
  CHECK(dtype_name(NpyDtype::float32) == "float32");
  CHECK(dtype_name(NpyDtype::bfloat16) == "bfloat16");
}

TEST_CASE("malformed .npy files are errors naming the problem", "[npy]") {
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string two = floats({1, 2});
  CHECK_THROWS_WITH(parse_npy("hello", "t"), Contains("bad magic"));
  CHECK_THROWS_WITH(parse_npy(npy(ok_dict, two, 4), "t"), Contains("version 4"));
  CHECK_THROWS_WITH(parse_npy(npy(ok_dict, two).substr(0, 12), "t"), Contains("truncated"));
  CHECK_THROWS_WITH(parse_npy(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", two), "t"),
                    Contains("float32"));
  CHECK_THROWS_WITH(parse_npy(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", two), "t"),
                    Contains("float32"));
  CHECK_THROWS_WITH(parse_npy(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", two), "t"),
                    Contains("Fortran"));
  CHECK_THROWS_WITH(parse_npy(npy("{'descr': '<f4', 'shape': (2,), }", two), "t"), Contains("fortran_order"));
  CHECK_THROWS_WITH(parse_npy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", two), "t"),
                    Contains("not a non-negative integer"));
  CHECK_THROWS_WITH(parse_npy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", two), "t"),
                    Contains("not a non-negative integer"));
  CHECK_THROWS_WITH(parse_npy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", ""), "t"),
                    Contains("0-dimensional"));
  CHECK_THROWS_WITH(parse_npy(npy("'descr': '<f4'", two), "t"), Contains("malformed"));
  CHECK_THROWS_WITH(parse_npy(npy(ok_dict, two + "xx"), "t"),
                    Contains("data holds more than the 8 bytes the shape needs"));
  CHECK_THROWS_WITH(parse_npy(npy(ok_dict, floats({1})), "t"), Contains("the shape needs 8"));
  CHECK_THROWS_WITH(
      parse_npy(
          npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999, 99999999999), }", two),
          "t"),
      Contains("overflow"));
  CHECK_THROWS_WITH(read_npy("/nonexistent/q.npy"), Contains("cannot open"));
}

TEST_CASE("hostile .npy headers fail before any large allocation", "[npy]") {
  const std::string two = floats({1, 2});
  // A version-2 header length of 2^31 in a file of a few bytes, and one just above the 64 KiB header limit.
  std::string huge_length = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", two, 2);
  huge_length.replace(8, 4, std::string("\x00\x00\x00\x80", 4));
  CHECK_THROWS_WITH(parse_npy(huge_length, "t"), Contains("header of 2147483648 bytes is above the limit of 65536"));
  const std::string long_header =
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }" + std::string(65'536, ' '), two, 2);
  CHECK_THROWS_WITH(parse_npy(long_header, "t"), Contains("above the limit of 65536 bytes"));
  std::string beyond_file = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "");
  beyond_file.replace(8, 2, std::string("\xff\x7f", 2));  // 32,767 header bytes in a 64-byte file
  CHECK_THROWS_WITH(parse_npy(beyond_file, "t"), Contains("truncated .npy header"));
  // A shape of 10^12 elements over 8 bytes of data: an error naming both sizes, not a 4 TB allocation.
  CHECK_THROWS_WITH(parse_npy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }", two), "t"),
                    Contains("data holds 8 bytes, the shape needs 4000000000000"));
  CHECK_THROWS_WITH(
      parse_npy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", two), "t"),
      Contains("overflow"));
  CHECK_THROWS_WITH(parse_npy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", two), "t"),
                    Contains("malformed"));
}

TEST_CASE("read_npy streams a file and refuses what is not one", "[npy]") {
  const auto path = unique_temp_path("ecosim_npy", ".npy");
  const std::vector<float> values(3'000'000, 0.5f);  // more than one read chunk
  std::string data(values.size() * 4, '\0');
  std::memcpy(data.data(), values.data(), data.size());
  std::ofstream(path, std::ios::binary) << npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1000, 3000), }",
                                               data);
  const NpyArray a = read_npy(path.string());
  CHECK(a.shape == std::vector<std::uint64_t>{1000, 3000});
  CHECK(a.data == values);
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(read_npy("/dev/zero"), Contains("bad magic"));
  CHECK_THROWS_WITH(read_npy(path.parent_path().string()), Contains("is a directory"));
}

TEST_CASE("npy_bytes encodes arrays the reader reads back unchanged", "[npy]") {
  const std::vector<float> values = {1.5f, -2.0f, 0.0f, 3.25f, 1e-30f, -7.0f};
  for (const std::vector<std::uint64_t>& shape :
       std::vector<std::vector<std::uint64_t>>{{6}, {2, 3}, {1, 2, 3, 1}, {1, 1, 1, 6}}) {
    const std::string bytes = npy_bytes(shape, values);
    CHECK((bytes.size() - values.size() * sizeof(float)) % 64 == 0);
    const NpyArray back = parse_npy(bytes, "encoded");
    CHECK(back.shape == shape);
    CHECK(back.data == values);
  }
  const NpyArray empty = parse_npy(npy_bytes({0, 4}, {}), "empty");
  CHECK(empty.shape == std::vector<std::uint64_t>{0, 4});
  CHECK_THROWS_WITH(npy_bytes({2, 2}, values), Contains("shape holds 4 values, the data 6"));
}
