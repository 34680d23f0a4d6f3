// What dispatch needs to know about the current device, queried once per device and cached.
#pragma once
#include <cuda_runtime.h>

#include <array>
#include <mutex>

namespace rowwise {

struct DeviceInfo {
  int sm_count = 0;
  int max_smem_optin = 0;     // bytes of shared memory one block may opt in to
  int smem_per_sm = 0;        // bytes of shared memory of one SM, shared by its resident blocks
  int cc_major = 0;
};

inline constexpr int kMaxCachedDevices = 64;

// Fills *info for the calling thread's current device.
inline cudaError_t current_device_info(DeviceInfo* info) {
  static std::array<DeviceInfo, kMaxCachedDevices> cache{};
  static std::mutex mutex;
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  std::lock_guard<std::mutex> lock(mutex);
  const bool cacheable = device < kMaxCachedDevices;
  if (cacheable && cache[device].sm_count > 0) {
    *info = cache[device];
    return cudaSuccess;
  }
  DeviceInfo d;
  cudaError_t e = cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&d.max_smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&d.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&d.cc_major, cudaDevAttrComputeCapabilityMajor, device);
  if (e != cudaSuccess) return e;
  if (cacheable) cache[device] = d;
  *info = d;
  return cudaSuccess;
}

}  // namespace rowwise
