// Device memory, input data and timing for rowwise-bench: CUDA_CHECK, buffers (and copies of them to
// rotate over), normal random inputs made on the device, event timing behind a hold of the GPU, the
// device's copy bandwidth.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "bench_cases.h"

#define CUDA_CHECK(expr) ::rowwise_bench::cuda_check((expr), #expr, __FILE__, __LINE__)

namespace rowwise_bench {

// Prints the failed call and CUDA's message, and exits with status 1.
void cuda_check(cudaError_t e, const char* expr, const char* file, int line);

constexpr int64_t kCopyAlign = 256;       // equal alignment of every buffer copy, hence equal pack widths
constexpr int kWarmups = 3;
constexpr int kMinCopyIters = 20;
constexpr int kL2Multiple = 4;  // bytes touched between two uses of a buffer copy, in L2 sizes

struct DeviceFree {
  void operator()(void* p) const { cudaFree(p); }
};
using DeviceBytes = std::unique_ptr<void, DeviceFree>;

DeviceBytes device_alloc(int64_t bytes);

__device__ inline uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Standard normal values by Box-Muller on a hash of (seed, index): reproducible, no RNG state.
template <class T> __global__ void fill_normal_kernel(T* p, int64_t n, uint64_t seed) {
  const int64_t step = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) {
    const uint64_t h = splitmix64(seed ^ splitmix64(static_cast<uint64_t>(i)));
    const float u1 = static_cast<float>((h >> 40) + 1) * 0x1p-24f;          // (0, 1]: log is finite
    const float u2 = static_cast<float>((h >> 16) & 0xFFFFFF) * 0x1p-24f;  // [0, 1)
    p[i] = static_cast<T>(sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2));
  }
}

template <class T> void fill_normal(T* p, int64_t n, uint64_t seed, int sm_count) {
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t{sm_count} * 8);
  fill_normal_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(p, n, seed);
  CUDA_CHECK(cudaPeekAtLastError());
}

// Holds the GPU for `ns` nanoseconds of its global timer.
__global__ void hold_gpu_kernel(uint64_t ns);

// Host time one timed launch may take to enqueue (two events and the call) while the GPU is held.
constexpr uint64_t kEnqueueBudgetNs = 50'000;

// Median in ms of `iters` calls of enqueue(i), each between its own pair of events. The GPU is held
// until every call is queued, so that a pair times the GPU's work (launch included), not the host's
// launch rate: a launch of a few microseconds finishes before the host has queued the next one
// (3-4 us a launch on the H200 machines), and a pair recorded on an idle GPU timed that host time too.
template <class Enqueue> double median_event_ms(int iters, Enqueue&& enqueue) {
  std::vector<cudaEvent_t> start(iters), stop(iters);
  for (int i = 0; i < iters; ++i) {
    CUDA_CHECK(cudaEventCreate(&start[i]));
    CUDA_CHECK(cudaEventCreate(&stop[i]));
  }
  hold_gpu_kernel<<<1, 1>>>(kEnqueueBudgetNs * static_cast<uint64_t>(iters + 1));
  CUDA_CHECK(cudaPeekAtLastError());
  for (int i = 0; i < iters; ++i) {
    CUDA_CHECK(cudaEventRecord(start[i]));
    enqueue(i);
    CUDA_CHECK(cudaEventRecord(stop[i]));
  }
  CUDA_CHECK(cudaEventSynchronize(stop.back()));
  std::vector<double> ms(iters);
  for (int i = 0; i < iters; ++i) {
    float t = 0;
    CUDA_CHECK(cudaEventElapsedTime(&t, start[i], stop[i]));
    ms[i] = t;
    CUDA_CHECK(cudaEventDestroy(start[i]));
    CUDA_CHECK(cudaEventDestroy(stop[i]));
  }
  return median(ms);
}

// Launches a timed graph holds: a whole number of rounds over a case's buffer copies (each replay uses
// every copy as often), and enough that the replay's own launch (a few microseconds) weighs little.
constexpr int kMinGraphLaunches = 20;
inline int graph_launches(int copies) { return (kMinGraphLaunches + copies - 1) / copies * copies; }

// Median in ms of one call of enqueue(i, stream) within a graph of `launches` calls (i = 0 ..
// launches - 1) captured on a stream of its own: `iters` replays, each between its own pair of events,
// each divided by `launches`. The graph's launches follow each other as a captured decode loop's do.
template <class Enqueue> double median_graph_launch_ms(int launches, int iters, Enqueue&& enqueue) {
  CUDA_CHECK(cudaDeviceSynchronize());  // the warm-ups, on the legacy stream, which this one does not wait for
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < launches; ++i) enqueue(i, stream);
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaGraphLaunch(exec, stream));  // the first replay uploads the graph
  std::vector<cudaEvent_t> start(iters), stop(iters);
  for (int i = 0; i < iters; ++i) {
    CUDA_CHECK(cudaEventCreate(&start[i]));
    CUDA_CHECK(cudaEventCreate(&stop[i]));
    CUDA_CHECK(cudaEventRecord(start[i], stream));
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaEventRecord(stop[i], stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> ms(iters);
  for (int i = 0; i < iters; ++i) {
    float t = 0;
    CUDA_CHECK(cudaEventElapsedTime(&t, start[i], stop[i]));
    ms[i] = t / launches;
    CUDA_CHECK(cudaEventDestroy(start[i]));
    CUDA_CHECK(cudaEventDestroy(stop[i]));
  }
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return median(ms);
}

inline double gbps(int64_t bytes, double ms) { return static_cast<double>(bytes) / (ms * 1e6); }

// The device's name, SMs, L2 size, and its copy bandwidth (median of max(iters, kMinCopyIters) copies).
Device query_device(int iters);

// `copies` copies of an array of `elems` T, each starting at the same alignment.
template <class T> class Copies {
 public:
  Copies(int64_t elems, int copies)
      : stride_((elems * int64_t{sizeof(T)} + kCopyAlign - 1) / kCopyAlign * kCopyAlign / int64_t{sizeof(T)}),
        copies_(copies),
        mem_(device_alloc(copies * stride_ * int64_t{sizeof(T)})) {}
  T* at(int copy) const { return static_cast<T*>(mem_.get()) + copy * stride_; }
  T* all() const { return at(0); }
  int64_t all_elems() const { return copies_ * stride_; }

 private:
  int64_t stride_;  // elements from one copy's start to the next
  int copies_;
  DeviceBytes mem_;
};

// Copies of a case's buffers: enough that kL2Multiple L2 sizes are touched between two uses of one
// copy (launch i uses copy i % copies). Also where there are fewer launches than copies: the copies
// are filled in order just before the launches, so only then are the first ones out of L2 (capped at
// the launches, all of a decode-sized case sat in L2).
int rotation_copies(const Case& c, const Device& dev);

}  // namespace rowwise_bench
