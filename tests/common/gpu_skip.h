// GPU tests skip, with the reason, where no CUDA device is usable (CI has none).
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

namespace rowwise_test {

// Empty if a device is usable, else why not.
inline const std::string& no_gpu_reason() {
  static const std::string reason = [] {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
    if (n == 0) return std::string("no CUDA device present");
    return std::string();
  }();
  return reason;
}

}  // namespace rowwise_test

#define RW_REQUIRE_GPU()                                                                 \
  do {                                                                                   \
    if (!rowwise_test::no_gpu_reason().empty()) GTEST_SKIP() << rowwise_test::no_gpu_reason(); \
  } while (0)
