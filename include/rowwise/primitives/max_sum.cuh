// The online softmax state: (m, s) stands for the multiset with maximum m and sum of e^(x - m) = s.
#pragma once
#include "numeric.cuh"
#include "warp_reduce.cuh"

namespace rowwise {

template <class A> struct MaxSum {
  A m;  // running maximum; -inf for the empty set; NaN once a NaN was seen
  A s;  // sum of exp(x - m) over the set; 0 for the empty set

  __host__ __device__ static MaxSum empty() { return {-math::infinity<A>(), A(0)}; }

  // Merge two states with one exp: the larger max keeps its sum, the other sum is rescaled.
  // Either may be empty (m = -inf): exp(-inf) = 0 drops it, and two empties stay empty instead of
  // producing exp(-inf - -inf) = NaN. NaN in either m fails both comparisons and reaches s.
  __host__ __device__ static MaxSum combine(const MaxSum& a, const MaxSum& b) {
    const A m = math::max_nan(a.m, b.m);
    if (m == -math::infinity<A>()) return empty();
    return a.m >= b.m ? MaxSum{m, a.s + b.s * math::exp(b.m - a.m)} : MaxSum{m, b.s + a.s * math::exp(a.m - b.m)};
  }
};

template <class A> __device__ inline MaxSum<A> shfl_xor(MaxSum<A> v, int lane_mask, int width) {
  return {shfl_xor(v.m, lane_mask, width), shfl_xor(v.s, lane_mask, width)};
}
template <class A> __device__ inline MaxSum<A> shfl_down(MaxSum<A> v, int delta, int width) {
  return {shfl_down(v.m, delta, width), shfl_down(v.s, delta, width)};
}

}  // namespace rowwise
