// CUDA sources only: the error check that turns a CUDA failure into ecosim::Error and the owning device
// buffer that every module's kernels use (kernels/ and ecoformer/).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cuda {

inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw Error(std::string("CUDA ") + what + ": " + cudaGetErrorString(err));
}

/// Device memory for `count` values of T, freed on destruction; uploads and downloads are checked.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::uint64_t count) : count_(count) {
    if (count > 0) check(cudaMalloc(&data_, count * sizeof(T)), "cudaMalloc");
  }
  DeviceBuffer(const T* host, std::uint64_t count) : DeviceBuffer(count) { upload(host); }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.data(), host.size()) {}
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }

  T* get() const { return data_; }
  void upload(const T* host) {
    if (count_ > 0) check(cudaMemcpy(data_, host, count_ * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0) check(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return host;
  }

 private:
  T* data_ = nullptr;
  std::uint64_t count_;
};

}  // namespace ecosim::cuda
