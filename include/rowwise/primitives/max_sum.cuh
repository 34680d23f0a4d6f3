// The online softmax state: (m, s) stands for the multiset with maximum m and sum of e^(x - m) = s.
#pragma once
#include "numeric.cuh"
#include "warp_reduce.cuh"

namespace rowwise {

template <class A> struct MaxSum {
  A m;  // maximum of the non-NaN values; -inf for the empty set
  A s;  // sum of exp(x - m); 0 for the empty set; NaN once a NaN was seen (NaN travels in s)

  __host__ __device__ static MaxSum empty() { return {-math::infinity<A>(), A(0)}; }

  // Merge with one exp: the larger max keeps its sum, the other sum is rescaled. With both maxima
  // -inf the shift is 0 and exp(-inf) = 0, so two empties stay empty instead of giving
  // exp(-inf - -inf) = NaN; a NaN sum survives the rescale (NaN * 0 = NaN).
  __host__ __device__ static MaxSum combine(const MaxSum& a, const MaxSum& b) {
    const bool a_high = a.m >= b.m;
    const A m = a_high ? a.m : b.m;
    const A low_m = a_high ? b.m : a.m;
    const A shift = m == -math::infinity<A>() ? A(0) : m;
    return {m, (a_high ? a.s : b.s) + (a_high ? b.s : a.s) * math::exp(low_m - shift)};
  }
};

template <class A> __device__ inline MaxSum<A> shfl_xor(MaxSum<A> v, int lane_mask, int width) {
  return {shfl_xor(v.m, lane_mask, width), shfl_xor(v.s, lane_mask, width)};
}
template <class A> __device__ inline MaxSum<A> shfl_down(MaxSum<A> v, int delta, int width) {
  return {shfl_down(v.m, delta, width), shfl_down(v.s, delta, width)};
}
template <class A> __device__ inline MaxSum<A> shfl_from(MaxSum<A> v, int src_lane) {
  return {shfl_from(v.m, src_lane), shfl_from(v.s, src_lane)};
}

// All-reduce of MaxSum states (the generic one, specialized): the maximum by one butterfly, then each
// lane rescales its own sum once and a second butterfly adds them. The result of combining state by
// state (empty and NaN states included), with one exp a lane instead of one a step: tiny 16-bit rows
// spent most of their exps, which share a quarter-rate unit, in the reduction's combines.
template <bool kUnrolled = false, class A, class Combine>
__device__ inline MaxSum<A> warp_allreduce(MaxSum<A> v, Combine combine, int width = kWarpSize) {
  if constexpr (kUnrolled) {
    return with_width(width, [&](auto w) { return warp_allreduce(v, combine, decltype(w)::value); });
  } else {
    A m = v.m;
#pragma unroll
    for (int mask = width / 2; mask > 0; mask /= 2) m = math::max(m, shfl_xor(m, mask, width));
    const A shift = m == -math::infinity<A>() ? A(0) : m;
    A s = v.s * math::exp(v.m - shift);
#pragma unroll
    for (int mask = width / 2; mask > 0; mask /= 2) s += shfl_xor(s, mask, width);
    return {m, s};
  }
}

// any_width_allreduce of MaxSum states, as warp_allreduce's: the maximum over windows of doubling
// sizes (overlapping windows change no maximum), then each lane's rescaled sum over the generic
// one's windows.
template <int W, class A, class Combine>
__device__ inline MaxSum<A> any_width_allreduce(MaxSum<A> v, Combine, int group_lane) {
  A m = v.m;
#pragma unroll
  for (int size = 1; size < W; size *= 2) m = math::max(m, shfl_from(m, group_lane_after<W>(group_lane, size)));
  const A shift = m == -math::infinity<A>() ? A(0) : m;
  const A scaled = v.s * math::exp(v.m - shift);
  const A s = any_width_allreduce<W>(scaled, [](A a, A b) { return a + b; }, group_lane);
  return {m, s};
}

}  // namespace rowwise
