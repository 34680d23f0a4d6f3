// Op policies for softmax and log-softmax.
//
// An op policy tells a row strategy how to reduce a row and map it:
//   In          element read from the inputs (Acc, or a struct for several inputs)
//   State       partial reduction; identity(), combine(a, b)
//   pad()       value given to slots outside the row; it must not change a reduction
//   reduce<M>   one thread's state over M register values
//   finalize    row state -> Final, the constants of the map
//   map(v, f)   output element (Acc)
//   emit        per-row side output written once per row (none here)
// and may add what some strategies use where it measured faster (kernels/row_common.cuh reads them):
//   reduce_stored<M>(const Stored*)                 the reduction from 16-bit values as stored (abs-max)
//   reduce_keeping<M>(v, terms), kept_scale, map_kept  the map from the reduction's per-value terms
//                                                   (softmax's exps, in warp lanes of one row)
//   kUnpackAgain, kEdgeInBlockRows, kBoundClusterSlices  register and edge choices of block and
//                                                   cluster rows
//   kExpPerElement                                  an exp for every element: bound by issue in short
//                                                   warp rows (dispatch's warp-row choices)
//   kKeepsValuesInTileRows                          16-bit tile thread rows keep their values for the map
//   plain_map_op(), plain_map(f)                    a cheaper op for the map of rows where plain_map(f),
//                                                   chosen once a row by warp and block rows (abs-max)
#pragma once
#include "../primitives/max_sum.cuh"
#include "../primitives/numeric.cuh"

namespace rowwise {

template <class A> struct SoftmaxOpBase {
  using Acc = A;
  using In = A;
  using State = MaxSum<A>;
  // An exp for every element in the reduction (and softmax's map): lanes left empty cost issue slots,
  // and so do lanes of two rows on a device whose memory outpaces its SMs (dispatch/warp_plan.cuh).
  static constexpr bool kExpPerElement = true;

  __device__ static In pad() { return -math::infinity<A>(); }
  __device__ static State identity() { return State::empty(); }
  __device__ static State combine(const State& a, const State& b) { return State::combine(a, b); }

  // Max first, then one exp per value (an online update per value would cost two). The max skips
  // NaN; a NaN value then makes the sum NaN. All -inf (or all pad) gives the empty state.
  template <int M> __device__ static State reduce(const In* v) {
    A terms[M];
    return reduce_keeping<M>(v, terms);
  }
  // The same, giving each value's term exp(v - shift) of the sum (shift: the state's max, 0 if -inf).
  template <int M> __device__ static State reduce_keeping(const In* v, A* terms) {
    A m = v[0];
#pragma unroll
    for (int i = 1; i < M; ++i) m = math::max(m, v[i]);
    const A shift = m == -math::infinity<A>() ? A(0) : m;
    A s = 0;
#pragma unroll
    for (int i = 0; i < M; ++i) {
      terms[i] = math::exp(v[i] - shift);
      s += terms[i];
    }
    return {m, s};
  }

  template <class Io, class Final> __device__ static void emit(const Io&, int64_t, const Final&) {}
};

template <class A> struct SoftmaxOp : SoftmaxOpBase<A> {
  // Its exp per element keeps ptxas from merging the map's unpack with the reduction's: 64
  // registers without a second conversion, which cost fp16 rows 5-10 % (kernels/row_common.cuh).
  static constexpr bool kUnpackAgain = false;
  struct Final {
    A m, inv_sum;
  };
  // All -inf row: s = 0, inv_sum = inf, exp(-inf - -inf) = NaN: NaN like PyTorch.
  __device__ static Final finalize(const MaxSum<A>& st) { return {st.m, math::reciprocal(st.s)}; }
  __device__ static A map(A x, const Final& f) { return math::exp(x - f.m) * f.inv_sum; }
  // map from a term reduce_keeping gave, with the scale of the state `mine` it came from: term * scale
  // = exp(x - mine.m) * exp(mine.m - f.m) * inv_sum. A state of all -inf has terms 0 and scale 0 in a
  // row with a finite max, and scale NaN (like map) in a row of all -inf.
  __device__ static A kept_scale(const MaxSum<A>& mine, const Final& f) { return math::exp(mine.m - f.m) * f.inv_sum; }
  __device__ static A map_kept(A term, A scale) { return term * scale; }
};

template <class A> struct LogSoftmaxOp : SoftmaxOpBase<A> {
  // H200, 16-bit rows of 3-31 columns: +2-10 (kernels/tile_rows.cuh). The abs-max ops measured -4 to
  // +11 there and read their rows again.
  static constexpr bool kKeepsValuesInTileRows = true;
  struct Final {
    A m, log_sum;
  };
  __device__ static Final finalize(const MaxSum<A>& st) { return {st.m, math::log(st.s)}; }
  // (x - m) first: exact for nearby x and m, so shifted rows keep their precision.
  __device__ static A map(A x, const Final& f) { return (x - f.m) - f.log_sum; }
};

}  // namespace rowwise
