// Op policies for the softmax and log-softmax backward passes: one reduction of the row, one map,
// reading y and dy once and writing dx once.
#pragma once
#include "../primitives/grad_in.cuh"
#include "../primitives/numeric.cuh"

namespace rowwise {

template <class A> struct SumOpBase {
  using Acc = A;
  using In = GradIn<A>;
  using State = A;
  struct Final {
    A sum;
  };
  __device__ static In pad() { return {A(0), A(0)}; }
  __device__ static State identity() { return A(0); }
  __device__ static State combine(State a, State b) { return a + b; }
  __device__ static Final finalize(State s) { return {s}; }
  template <class Io, class F> __device__ static void emit(const Io&, int64_t, const F&) {}

  // Block rows give every row's edge to their first threads (kernels/row_common.cuh): 16-bit rows of
  // 1103-16384 columns not on 16-byte boundaries 67-96 -> 86-101 % (12325-13435 stay at 79-85 %),
  // aligned ones unchanged. The forward and abs-max ops take it on 16-bit rows with partial packs
  // only (the plan's `edge`): on aligned rows it cost them up to 10 points (bf16 13440 to int8
  // 96 -> 90 %; docs/perf.md).
  static constexpr bool kEdgeInBlockRows = true;
};

// dx = y * (dy - sum(y * dy))
template <class A> struct SoftmaxBackwardOp : SumOpBase<A> {
  using typename SumOpBase<A>::In;
  using typename SumOpBase<A>::Final;
  template <int M> __device__ static A reduce(const In* v) {
    A s = 0;
#pragma unroll
    for (int i = 0; i < M; ++i) s += v[i].y * v[i].dy;
    return s;
  }
  __device__ static A map(const In& v, const Final& f) { return v.y * (v.dy - f.sum); }

  // Cluster slices bounded to the block rows' registers (kernels/cluster_rows.cuh): 16-bit slices of 4
  // packs a thread took 74 unbounded, 3 CTAs of 256 threads an SM; bounded (52), 4 fit: many bf16
  // rows of 40000-131072 columns 68-81 -> 84-91 %. log_softmax_backward's took 56 unbounded (4 CTAs)
  // and lost 5-8 points bounded, so it stays unbounded.
  static constexpr bool kBoundClusterSlices = true;
};

// dx = dy - exp(y) * sum(dy), y being log-probabilities
template <class A> struct LogSoftmaxBackwardOp : SumOpBase<A> {
  using typename SumOpBase<A>::In;
  using typename SumOpBase<A>::Final;
  template <int M> __device__ static A reduce(const In* v) {
    A s = 0;
#pragma unroll
    for (int i = 0; i < M; ++i) s += v[i].dy;
    return s;
  }
  __device__ static A map(const In& v, const Final& f) { return v.dy - math::exp(v.y) * f.sum; }
};

}  // namespace rowwise
