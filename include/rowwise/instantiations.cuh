// The instantiations librowwise compiles: with ROWWISE_PRECOMPILED defined, users' translation units
// declare them extern and link them instead of compiling the kernels again.
#pragma once
#include "api.cuh"
#include "tensor.cuh"

#define ROWWISE_FOR_EACH_ELEMENT(X) X(float) X(double) X(__half) X(__nv_bfloat16)

#define ROWWISE_FORWARD_SIGNATURE(OP, T) \
  cudaError_t rowwise::OP<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t, cudaStream_t, rowwise::Options)

// Whole-tensor ops: with a caller's workspace, and taking one from the stream's pool.
#define ROWWISE_TENSOR_SIGNATURE(OP, T) cudaError_t rowwise::OP<T>(const T*, T*, int64_t, void*, size_t, cudaStream_t)
#define ROWWISE_TENSOR_POOL_SIGNATURE(OP, T) cudaError_t rowwise::OP<T>(const T*, T*, int64_t, cudaStream_t)

#define ROWWISE_BACKWARD_SIGNATURE(OP, T)                                                                   \
  cudaError_t rowwise::OP<T>(const T*, const T*, T*, int64_t, int64_t, int64_t, int64_t, int64_t, cudaStream_t, \
                             rowwise::Options)

#define ROWWISE_ABSMAX_SIGNATURE(T, U)                                                                       \
  cudaError_t rowwise::absmax_scale<T, U>(const T*, U*, float*, int64_t, int64_t, int64_t, int64_t, cudaStream_t, \
                                          rowwise::Options)

#ifdef ROWWISE_PRECOMPILED
#define ROWWISE_EXTERN_OPS(T)                                         \
  extern template ROWWISE_FORWARD_SIGNATURE(softmax, T);              \
  extern template ROWWISE_FORWARD_SIGNATURE(log_softmax, T);          \
  extern template ROWWISE_TENSOR_SIGNATURE(tensor_softmax, T);        \
  extern template ROWWISE_TENSOR_POOL_SIGNATURE(tensor_softmax, T);   \
  extern template ROWWISE_TENSOR_SIGNATURE(tensor_log_softmax, T);    \
  extern template ROWWISE_TENSOR_POOL_SIGNATURE(tensor_log_softmax, T); \
  extern template ROWWISE_BACKWARD_SIGNATURE(softmax_backward, T);    \
  extern template ROWWISE_BACKWARD_SIGNATURE(log_softmax_backward, T); \
  extern template ROWWISE_ABSMAX_SIGNATURE(T, T);                     \
  extern template ROWWISE_ABSMAX_SIGNATURE(T, int8_t);                \
  extern template ROWWISE_ABSMAX_SIGNATURE(T, __nv_fp8_e4m3);
ROWWISE_FOR_EACH_ELEMENT(ROWWISE_EXTERN_OPS)
#undef ROWWISE_EXTERN_OPS
#endif
