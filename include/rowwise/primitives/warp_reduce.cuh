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

// A runtime width as a constant: reduce(Width<W>{}) for the width's W (a power of two up to 32).
template <int W> struct Width {
  static constexpr int value = W;
};
template <class Reduce> __device__ inline auto with_width(int width, Reduce reduce) {
  switch (width) {
    case 32: return reduce(Width<32>{});
    case 16: return reduce(Width<16>{});
    case 8: return reduce(Width<8>{});
    case 4: return reduce(Width<4>{});
    case 2: return reduce(Width<2>{});
    default: return reduce(Width<1>{});
  }
}

// Butterfly all-reduce: every lane of each group ends with the group's combined state.
// Assumptions: all 32 lanes of the warp call it (full mask) with the same width.
// kUnrolled: the butterfly for a constant width, picked by a switch (with_width), where the loop over
// a runtime width costs 5 instructions a step (20 a reduction in groups of 8; 16-bit warp rows of few
// packs a lane are bound by issue). Not by default: ptxas then sees straight-line code from the row's
// reduction to its map and merges their unpacks, keeping the row unpacked across (bf16 log_softmax
// lanes of 8 packs: 72 -> 127 registers); the loop keeps them apart.
template <bool kUnrolled = false, class S, class Combine>
__device__ inline S warp_allreduce(S v, Combine combine, int width = kWarpSize) {
  if constexpr (kUnrolled) {
    return with_width(width, [&](auto w) { return warp_allreduce(v, combine, decltype(w)::value); });
  } else {
#pragma unroll
    for (int mask = width / 2; mask > 0; mask /= 2) v = combine(v, shfl_xor(v, mask, width));
    return v;
  }
}

// Tree reduce: only the first lane of each group holds the combined state; others hold partials.
// Assumptions: as warp_allreduce.
template <class S, class Combine> __device__ inline S warp_reduce(S v, Combine combine, int width = kWarpSize) {
#pragma unroll
  for (int delta = width / 2; delta > 0; delta /= 2) v = combine(v, shfl_down(v, delta, width));
  return v;
}

}  // namespace rowwise
