// Block-wide all-reduce: warp butterflies, one shared slot per warp, then every warp folds the slots.
#pragma once
#include "warp_reduce.cuh"

namespace rowwise {

inline constexpr int kMaxWarpsPerBlock = 32;

// Every thread returns the block's combined state.
// Assumptions: blockDim.x is a multiple of 32; all threads call it; `slots` holds kMaxWarpsPerBlock
// states that no thread touches until every thread has returned from this call. Callers reducing in
// a loop alternate two slot arrays: one barrier per call then keeps the reuse safe.
template <class S, class Combine>
__device__ inline S block_allreduce(S v, Combine combine, S identity, S* slots) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const int warps = blockDim.x / kWarpSize;
  v = warp_allreduce(v, combine);
  if (lane == 0) slots[warp] = v;
  __syncthreads();
  v = lane < warps ? slots[lane] : identity;
  return warp_allreduce(v, combine);
}

}  // namespace rowwise
