// What dispatch needs to know about the current device, queried once per device and cached.
#pragma once
#include <cuda.h>  // the types of two driver functions, fetched through the runtime (nothing to link)
#include <cuda_runtime.h>

#include <array>
#include <mutex>
#include <utility>

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

// The calling thread's current context as an identity unique over the process's life (cuCtxGetId):
// what rowwise sets on a kernel (its shared-memory opt-in, non-portable cluster sizes) lives in a
// context, and cudaDeviceReset makes a new one, so its caches of those key on this. 0 where there is
// no current context yet or the driver cannot tell: callers then cache nothing.
inline unsigned long long current_context_id() {
  using GetCurrent = CUresult (*)(CUcontext*);
  using GetId = CUresult (*)(CUcontext, unsigned long long*);
  static const std::pair<GetCurrent, GetId> driver = [] {
    const auto find = [](const char* name) -> void* {
      void* fn = nullptr;
      cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
      const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found);
#else
      const cudaError_t e = cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &found);
#endif
      if (e != cudaSuccess) cudaGetLastError();  // a driver without it is an answer, not an error to report
      return e == cudaSuccess && found == cudaDriverEntryPointSuccess ? fn : nullptr;
    };
    return std::make_pair(reinterpret_cast<GetCurrent>(find("cuCtxGetCurrent")),
                          reinterpret_cast<GetId>(find("cuCtxGetId")));
  }();
  CUcontext context = nullptr;
  unsigned long long id = 0;
  if (driver.first == nullptr || driver.second == nullptr || driver.first(&context) != CUDA_SUCCESS ||
      context == nullptr || driver.second(context, &id) != CUDA_SUCCESS)
    return 0;
  return id;
}

}  // namespace rowwise
