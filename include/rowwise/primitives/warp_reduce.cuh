// Warp-level reductions over groups of `width` consecutive lanes (width a power of two, 1..32; any
// width 1..32 for any_width_allreduce).
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
template <class S> __device__ inline S shfl_from(S v, int src_lane) { return __shfl_sync(0xffffffffu, v, src_lane); }

// Lane `group_lane + d` of a group of W consecutive lanes, counted round the group from group_lane.
template <int W> __device__ inline int group_lane_after(int group_lane, int d) {
  return static_cast<int>(threadIdx.x % kWarpSize) - group_lane + (group_lane + d) % W;
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

// All-reduce over groups of W consecutive lanes for any W (warp_allreduce's butterfly takes powers of
// two): each lane combines windows of lanes that follow it round its group, of doubling sizes, those
// of W's binary digits back to back, so that every lane's state enters once: W = 3 takes 2 shuffles,
// 5 and 6 take 3, 7 takes 4. Lanes combine in different orders, so sums may differ by rounding from
// lane to lane. Lanes past the warp's last whole group (32 % W of them) read each other and lanes past
// the warp's end (which __shfl_sync wraps to its first), and end with nothing meaningful.
// Assumptions: all 32 lanes call it.
template <int W, class S, class Combine>
__device__ inline S any_width_allreduce(S v, Combine combine, int group_lane) {
  S window = v;  // the lanes [group_lane, group_lane + size) round the group
  S total = v;   // the lanes [group_lane, group_lane + covered)
  int covered = 0;
#pragma unroll
  for (int size = 1; size <= W; size *= 2) {
    if (W & size) {
      total = covered == 0 ? window : combine(total, shfl_from(window, group_lane_after<W>(group_lane, covered)));
      covered += size;
    }
    if (2 * size <= W) window = combine(window, shfl_from(window, group_lane_after<W>(group_lane, size)));
  }
  return total;
}

}  // namespace rowwise
