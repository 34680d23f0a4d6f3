// Device memory, the GPU hold, the copy bandwidth and the device query of rowwise-bench.
#include "device_timing.cuh"

#include <cstdio>
#include <cstdlib>

namespace rowwise_bench {

void cuda_check(cudaError_t e, const char* expr, const char* file, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, expr, cudaGetErrorString(e));
  std::exit(1);
}

DeviceBytes device_alloc(int64_t bytes) {
  void* p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, static_cast<size_t>(bytes)));
  return DeviceBytes(p);
}

__global__ void hold_gpu_kernel(uint64_t ns) {
  uint64_t start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

namespace {

// D2D copy of 1 GiB; bytes read + written.
double measure_copy_gbps(int iters) {
  const DeviceBytes src = device_alloc(kCopyBytes);
  const DeviceBytes dst = device_alloc(kCopyBytes);
  CUDA_CHECK(cudaMemset(src.get(), 0, kCopyBytes));
  auto copy = [&](int) { CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), kCopyBytes, cudaMemcpyDeviceToDevice)); };
  for (int i = 0; i < kWarmups; ++i) copy(i);
  return gbps(2 * kCopyBytes, median_event_ms(std::max(iters, kMinCopyIters), copy));
}

}  // namespace

Device query_device(int iters) {
  int id = 0;
  CUDA_CHECK(cudaGetDevice(&id));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, id));
  int l2 = 0;
  Device dev;
  dev.name = prop.name;
  CUDA_CHECK(cudaDeviceGetAttribute(&dev.sm_count, cudaDevAttrMultiProcessorCount, id));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, id));
  dev.l2_bytes = l2;
  dev.copy_gbps = measure_copy_gbps(iters);
  return dev;
}

int rotation_copies(const Case& c, const Device& dev) {
  const int64_t span = kL2Multiple * dev.l2_bytes;
  const int64_t bytes = c.moved_bytes();
  return bytes > span ? 1 : static_cast<int>(span / bytes + 1);
}

}  // namespace rowwise_bench
