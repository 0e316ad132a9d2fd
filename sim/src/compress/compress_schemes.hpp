// Internal: the compression schemes `ecosim compress` can run, as a table of name → function; each scheme's
// function lives in its own compress_<scheme>.cpp.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "device_option.hpp"
#include "ecosim/kernels/tensor_view.hpp"
#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::cli {

struct CompressRequest {
  kernels::TensorView x;
  std::vector<std::uint64_t> shape;  // x's dimensions (product = x.elements)
  unsigned bits = 0;
  std::string activation;        // fewbit only
  std::uint64_t groups = 1;      // mesa: (α, β) groups the last dimension is split into
  bool per_sample_bits = false;  // actnn: one width per sample (first dimension), `bits` the average
  std::uint64_t seed = 0;
  DeviceChoice device = DeviceChoice::cpu;
  OpSink* compress_sink = nullptr;    // receives the op records of the compress pass (forward)
  OpSink* decompress_sink = nullptr;  // ... and of the decompress pass (backward)
};

struct CompressResult {
  std::map<DType, std::uint64_t> kept_bytes;  // everything kept for the backward pass, by type: codes, metadata
  std::vector<float> reconstruction;  // what the backward pass sees
  std::vector<float> reference;       // what it approximates; empty = the input itself
  double latency_ms = 0;              // wall time of the compression (host↔device copies included on cuda)
  std::string detail;                 // e.g. the bit width a budget resolved to

  std::uint64_t storage_bytes() const;  // the sum of kept_bytes
};

struct CompressScheme {
  std::string_view name;
  CompressResult (*run)(const CompressRequest&);
};

/// Runs `compress` and stores its wall time in `ms`.
template <class F>
auto timed(F compress, double& ms) {
  const auto start = std::chrono::steady_clock::now();
  auto result = compress();
  ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

/// The bytes `pass` writes, by type (a compress pass writes what is kept).
std::map<DType, std::uint64_t> written_bytes(const OpRecord& pass);

/// The table; `find_scheme` throws ecosim::Error naming the available schemes for an unknown name.
std::span<const CompressScheme> compress_schemes();
const CompressScheme& find_scheme(const std::string& name);

CompressResult compress_actnn(const CompressRequest& r);
CompressResult compress_gact(const CompressRequest& r);
CompressResult compress_mesa(const CompressRequest& r);
CompressResult compress_fewbit(const CompressRequest& r);

}  // namespace ecosim::cli
