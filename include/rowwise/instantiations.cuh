// The instantiations librowwise compiles: with ROWWISE_PRECOMPILED defined, users' translation units
// declare them extern and link them instead of compiling the kernels again.
#pragma once
#include "api.cuh"

#define ROWWISE_FOR_EACH_ELEMENT(X) X(float) X(double) X(__half) X(__nv_bfloat16)

#define ROWWISE_FORWARD_SIGNATURE(OP, T) \
  cudaError_t rowwise::OP<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t, cudaStream_t, rowwise::Options)

#ifdef ROWWISE_PRECOMPILED
#define ROWWISE_EXTERN_FORWARD(T)                            \
  extern template ROWWISE_FORWARD_SIGNATURE(softmax, T);     \
  extern template ROWWISE_FORWARD_SIGNATURE(log_softmax, T);
ROWWISE_FOR_EACH_ELEMENT(ROWWISE_EXTERN_FORWARD)
#undef ROWWISE_EXTERN_FORWARD
#endif
