// What dispatch needs to know about the current device and context, queried once per context and cached.
#pragma once
#include <cuda.h>  // the types of the driver functions fetched through the runtime (nothing to link)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>

namespace rowwise {

struct DeviceInfo {
  int sm_count = 0;
  int max_smem_optin = 0;     // bytes of shared memory one block may opt in to
  int smem_per_sm = 0;        // bytes of shared memory of one SM, shared by its resident blocks
  int cc_major = 0;
  bool memory_pools = false;  // stream-ordered allocation (cudaMallocAsync) works
  int memory_gbps = 0;        // peak DRAM bandwidth, GB/s (0: not known)
};

namespace detail {

// A driver function through the runtime (nothing to link): null where the driver lacks it.
inline void* driver_function(const char* name, int since_version) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, since_version, cudaEnableDefault, &found);
#else
  (void)since_version;
  const cudaError_t e = cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &found);
#endif
  if (e != cudaSuccess) cudaGetLastError();  // a driver without it is an answer, not an error to report
  return e == cudaSuccess && found == cudaDriverEntryPointSuccess ? fn : nullptr;
}

inline CUcontext current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  static const auto get_current = reinterpret_cast<GetCurrent>(driver_function("cuCtxGetCurrent", 12000));
  CUcontext context = nullptr;
  if (get_current == nullptr || get_current(&context) != CUDA_SUCCESS) return nullptr;
  return context;
}

// SMs `context` may run on: a green context's share of the device (cuCtxGetDevResource), else
// `device_sms`. Split's co-resident grids and the spreading of few rows are sized by it.
inline int context_sm_count(CUcontext context, int device_sms) {
#if CUDA_VERSION >= 12040
  using GetResource = CUresult (*)(CUcontext, CUdevResource*, CUdevResourceType);
  static const auto get_resource = reinterpret_cast<GetResource>(driver_function("cuCtxGetDevResource", 12040));
  CUdevResource sms{};
  if (context != nullptr && get_resource != nullptr &&
      get_resource(context, &sms, CU_DEV_RESOURCE_TYPE_SM) == CUDA_SUCCESS && sms.sm.smCount > 0)
    return std::min(static_cast<int>(sms.sm.smCount), device_sms);
#else
  (void)context;
#endif
  return device_sms;
}

// Peak DRAM bandwidth of `device` in GB/s (double data rate over the bus), 0 where the device does
// not tell: the planner then keeps the choices measured on the slower memory (dispatch/plan.cuh: memory_outpaces_sms).
inline int memory_gbps(int device) {
  int clock_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
    cudaGetLastError();  // an attribute the device lacks is an answer, not an error to report
    return 0;
  }
  return static_cast<int>(2 * int64_t{clock_khz} * (bus_bits / 8) / 1000000);
}

}  // namespace detail

// The calling thread's current context as an identity unique over the process's life (cuCtxGetId):
// what rowwise sets on a kernel (its shared-memory opt-in, non-portable cluster sizes) lives in a
// context, and cudaDeviceReset makes a new one, so its caches of those key on this. 0 where there is
// no current context yet or the driver cannot tell: callers then cache nothing.
inline unsigned long long current_context_id() {
  using GetId = CUresult (*)(CUcontext, unsigned long long*);
  static const auto get_id = reinterpret_cast<GetId>(detail::driver_function("cuCtxGetId", 12000));
  const CUcontext context = detail::current_context();
  unsigned long long id = 0;
  if (context == nullptr || get_id == nullptr || get_id(context, &id) != CUDA_SUCCESS) return 0;
  return id;
}

// Fills *info for the calling thread's current device and context, cached per context (a green
// context has fewer SMs than its device); asked again each call before the thread has a context.
inline cudaError_t current_device_info(DeviceInfo* info) {
  static std::map<unsigned long long, DeviceInfo> cache;
  static std::mutex mutex;
  const unsigned long long context = current_context_id();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(context); context != 0 && it != cache.end()) {
    *info = it->second;
    return cudaSuccess;
  }
  int device = 0;
  DeviceInfo d;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&d.max_smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&d.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&d.cc_major, cudaDevAttrComputeCapabilityMajor, device);
  int pools = 0;
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device);
  if (e != cudaSuccess) return e;
  d.memory_pools = pools != 0;
  d.memory_gbps = detail::memory_gbps(device);
  d.sm_count = detail::context_sm_count(detail::current_context(), d.sm_count);
  if (context != 0) cache.emplace(context, d);
  *info = d;
  return cudaSuccess;
}

}  // namespace rowwise
