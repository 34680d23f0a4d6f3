// Warp-level reductions over groups of `width` consecutive lanes (width a power of two, 1..32).
#pragma once
#include <cuda_runtime.h>

namespace rowwise {

inline constexpr int kWarpSize = 32;

// Shuffles for arithmetic states; composite states overload shfl_xor / shfl_down next to their type.
template <class S> __device__ inline S shfl_xor(S v, int lane_mask, int width) {
  return __shfl_xor_sync(0xffffffffu, v, lane_mask, width);
}
template <class S> __device__ inline S shfl_down(S v, int delta, int width) {
  return __shfl_down_sync(0xffffffffu, v, delta, width);
}

// Butterfly all-reduce: every lane of each group ends with the group's combined state.
// Assumptions: all 32 lanes of the warp call it (full mask) with the same width.
template <class S, class Combine> __device__ inline S warp_allreduce(S v, Combine combine, int width = kWarpSize) {
#pragma unroll
  for (int mask = width / 2; mask > 0; mask /= 2) v = combine(v, shfl_xor(v, mask, width));
  return v;
}

// Tree reduce: only the first lane of each group holds the combined state; others hold partials.
// Assumptions: as warp_allreduce.
template <class S, class Combine> __device__ inline S warp_reduce(S v, Combine combine, int width = kWarpSize) {
#pragma unroll
  for (int delta = width / 2; delta > 0; delta /= 2) v = combine(v, shfl_down(v, delta, width));
  return v;
}

}  // namespace rowwise
