// Op policy for row abs-max scaling: scale = max |x| over the row, y = x * qmax / scale, written in the
// output type (the input type with qmax 1, or int8 / fp8 e4m3 for per-row symmetric quantization).
// The per-row value written for dequantization is scale / qmax, so x ≈ y * row_scale.
#pragma once
#include <type_traits>

#include "../primitives/numeric.cuh"

namespace rowwise {

// A row's map constants, one type for either kTinyRows (plain_map_op).
template <class A> struct AbsmaxFinal {
  A absmax, pre, mul;
};

// kTinyRows: the input type holds values so small that qmax / absmax overflows A (a row's abs-max below
// qmax / max(A): fp32 and bf16 rows of ~1e-37 and less, fp64 of ~1e-306; not fp16, whose smallest value
// is 6e-8). Such rows are scaled by 2^64 first, exactly, since a power of two times values that small
// neither rounds nor overflows: y = (x * 2^64) * (qmax / (absmax * 2^64)). That costs one more multiply
// a value in every row of those types, unless the kernel picks the map once a row (plain_map_op below):
// a branch a value inside the map became predicated multiplies.
template <class A, class Out, bool kTinyRows = true> struct AbsmaxScaleOp {
  using Acc = A;
  using In = A;
  using State = A;
  static constexpr float kQmax = QuantLimits<Out>::qmax;
  using Final = AbsmaxFinal<A>;
  __device__ static In pad() { return A(0); }
  __device__ static State identity() { return A(0); }
  // NaN-propagating max: a NaN in the row makes the scale and the whole row NaN.
  __device__ static State combine(State a, State b) { return math::max_nan(a, b); }
  template <int M> __device__ static State reduce(const In* v) {
    A m = 0;
#pragma unroll
    for (int i = 0; i < M; ++i) m = math::max_nan(m, math::abs(v[i]));
    return m;
  }
  // 16-bit inputs reduced as stored (kernels/row_common.cuh: kOpReducesStored).
  template <int M, class T, class = std::enable_if_t<sizeof(T) == 2>> __device__ static State reduce_stored(const T* v) {
    return math::abs_max_stored<M>(v);
  }
  // A zero row maps to zeros (mul 0), never 0/0. Host-callable for the CPU tests of its arithmetic.
  __host__ __device__ static Final finalize(State m) {
    const A pre = kTinyRows && m < A(0x1p-64) ? A(0x1p64) : A(1);
    return {m, pre, m > A(0) ? A(kQmax) / (m * pre) : (m == A(0) ? A(0) : m)};
  }
  __host__ __device__ static A map(A x, const Final& f) { return kTinyRows ? x * f.pre * f.mul : x * f.mul; }
  // Quantizing rows that are not tiny map by the op without kTinyRows' multiply, chosen once a row
  // (kernels/row_common.cuh: with_map_op); ops without tiny rows have one map already. Same-type outputs
  // keep one map: they lost up to 3.9 points so.
  template <class O = Out, class = std::enable_if_t<sizeof(O) == 1 && kTinyRows>>
  static AbsmaxScaleOp<A, Out, false> plain_map_op();
  __host__ __device__ static bool plain_map(const Final& f) { return f.pre == A(1); }
  template <class Io> __device__ static void emit(const Io& io, int64_t row, const Final& f) {
    io.store_row_scale(row, static_cast<float>(f.absmax / A(kQmax)));
  }
};

}  // namespace rowwise
