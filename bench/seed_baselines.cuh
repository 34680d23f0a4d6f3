// The seeds' baseline kernels, for rowwise-bench only (not part of rowwise): written afresh from the
// seeds' descriptions, whose listings have bugs, so the seeds' tables can be re-measured beside rowwise.
//
// cub_absmax_scale: seed 000's ReduceScale baseline. 128-thread blocks, one row at a time per block
//   (grid-stride, 8 rows a block as the seed's launch of 55296 blocks for 442368 rows): cub::BlockReduce
//   abs-max, then y = x / absmax reading x again. Unlike the seed: 64-bit offsets, a barrier before the
//   reduce storage is reused, zero rows give zeros (not 0/0), NaN propagates, and the output and the
//   row's scale (absmax) are written out of place, as rowwise::absmax_scale<T, T> does.
// ft_softmax: FasterTransformer's block-per-row softmax (softmax_kernel_v2) without mask and scaler:
//   one element per thread in blocks of cols rounded up to a power of two (32 ... 1024), block max
//   reduce, exp, block sum reduce, write. Computes in float (double for double) and leaves out FT's
//   +1e-6 on the sum. cols above 1024 are refused (cudaErrorInvalidValue), as FT does not run them.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <type_traits>

namespace seed_baselines {
namespace detail {

template <class T> using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

__device__ inline float to_acc(float v) { return v; }
__device__ inline double to_acc(double v) { return v; }
__device__ inline float to_acc(__half v) { return __half2float(v); }
__device__ inline float to_acc(__nv_bfloat16 v) { return __bfloat162float(v); }

__device__ inline void store(float* p, float v) { *p = v; }
__device__ inline void store(double* p, double v) { *p = v; }
__device__ inline void store(__half* p, float v) { *p = __float2half_rn(v); }
__device__ inline void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

__device__ inline float abs_of(float v) { return fabsf(v); }
__device__ inline double abs_of(double v) { return fabs(v); }

__device__ inline float fast_exp(float v) { return __expf(v); }  // FT's choice
__device__ inline double fast_exp(double v) { return exp(v); }

// max that keeps a NaN (a > b alone would drop it), so a NaN row gets a NaN scale.
struct MaxNan {
  template <class A> __device__ A operator()(A a, A b) const { return (a != a || a > b) ? a : b; }
};
struct Max {
  template <class A> __device__ A operator()(A a, A b) const { return a > b ? a : b; }
};
struct Sum {
  template <class A> __device__ A operator()(A a, A b) const { return a + b; }
};

constexpr int kReduceScaleBlock = 128;
constexpr int64_t kReduceScaleRowsPerBlock = 8;

template <class T>
__global__ void __launch_bounds__(kReduceScaleBlock)
    reduce_scale_kernel(const T* x, T* y, float* row_scale, int64_t rows, int cols) {
  using A = acc_t<T>;
  using BlockReduce = cub::BlockReduce<A, kReduceScaleBlock>;
  __shared__ typename BlockReduce::TempStorage temp;
  __shared__ A row_absmax;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* x_row = x + row * cols;
    T* y_row = y + row * cols;
    A m = 0;
    for (int c = threadIdx.x; c < cols; c += kReduceScaleBlock) m = MaxNan{}(m, abs_of(to_acc(x_row[c])));
    const A block_max = BlockReduce(temp).Reduce(m, MaxNan{});  // valid in thread 0 only
    if (threadIdx.x == 0) {
      row_absmax = block_max;
      row_scale[row] = static_cast<float>(block_max);
    }
    __syncthreads();
    const A absmax = row_absmax;
    for (int c = threadIdx.x; c < cols; c += kReduceScaleBlock)
      store(&y_row[c], absmax == A(0) ? A(0) : to_acc(x_row[c]) / absmax);
    __syncthreads();  // temp and row_absmax are rewritten for the next row
  }
}

template <class A, class Combine> __device__ A warp_all_reduce(A v, Combine combine) {
  for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) v = combine(v, __shfl_xor_sync(0xffffffffu, v, lane_mask));
  return v;
}

// FT's blockReduceMax / blockReduceSum: warp shuffles, one partial a warp in shared memory, the first
// warp reduces those; the result is broadcast through shared memory (FT's s_max / s_sum).
template <class A, class Combine> __device__ A block_all_reduce(A v, A identity, Combine combine) {
  __shared__ A partials[32];
  __shared__ A result;
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  v = warp_all_reduce(v, combine);
  if (lane == 0) partials[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_all_reduce(lane < static_cast<int>(blockDim.x / 32) ? partials[lane] : identity, combine);
    if (lane == 0) result = v;
  }
  __syncthreads();
  return result;
}

// blockDim.x >= cols: thread t holds element t of the row.
template <class T> __global__ void ft_softmax_kernel(const T* x, T* y, int64_t rows, int cols) {
  using A = acc_t<T>;
  const A neg_inf = -INFINITY;
  const bool active = static_cast<int>(threadIdx.x) < cols;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t at = row * cols + threadIdx.x;
    const A v = active ? to_acc(x[at]) : neg_inf;
    const A row_max = block_all_reduce(v, neg_inf, Max{});
    const A e = active ? fast_exp(v - row_max) : A(0);
    const A row_sum = block_all_reduce(e, A(0), Sum{});
    if (active) store(&y[at], e / row_sum);
  }
}

inline bool shape_ok(int64_t rows, int64_t cols) { return rows >= 0 && cols >= 1 && cols <= INT_MAX; }

inline unsigned grid_for(int64_t blocks) { return static_cast<unsigned>(std::min<int64_t>(blocks, INT_MAX)); }

}  // namespace detail

// y = x / max|x[r, :]| and row_scale[r] = max|x[r, :]|, dense rows.
template <class T>
cudaError_t cub_absmax_scale(const T* x, T* y, float* row_scale, int64_t rows, int64_t cols, cudaStream_t stream) {
  using namespace detail;
  if (!shape_ok(rows, cols)) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  const unsigned grid = grid_for((rows + kReduceScaleRowsPerBlock - 1) / kReduceScaleRowsPerBlock);
  reduce_scale_kernel<T><<<grid, kReduceScaleBlock, 0, stream>>>(x, y, row_scale, rows, static_cast<int>(cols));
  return cudaPeekAtLastError();
}

// y = softmax(x) row by row, dense rows, cols <= 1024.
template <class T> cudaError_t ft_softmax(const T* x, T* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  using namespace detail;
  if (!shape_ok(rows, cols) || cols > 1024) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  int block = 32;
  while (block < cols) block *= 2;
  ft_softmax_kernel<T><<<grid_for(rows), block, 0, stream>>>(x, y, rows, static_cast<int>(cols));
  return cudaPeekAtLastError();
}

}  // namespace seed_baselines
