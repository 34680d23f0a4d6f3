// What every row strategy shares.
// A row as a sequence of memory-aligned packs: pack p holds row elements [p*N - phase, p*N - phase + N).
// Interior packs move with one N-wide access; the first and last may stick out of the row and move
// element by element, out-of-row slots reading the op's pad value and never being written.
#pragma once
#include <cstdint>

namespace rowwise {

// Packs in a row of `cols` elements starting at lane `phase` of its first pack.
__host__ __device__ inline int64_t packs_in_row(int64_t cols, int phase, int n) { return (cols + phase + n - 1) / n; }

// Most packs any row can span, whatever its phase: what a register-resident strategy must hold.
__host__ __device__ inline int64_t max_packs_in_row(int64_t cols, int n) { return packs_in_row(cols, n - 1, n); }

template <class Op, int N, class RowIo>
__device__ inline void load_pack_of_row(const RowIo& io, typename Op::In* dst, int64_t first_col, int64_t cols) {
  if (first_col >= 0 && first_col + N <= cols) {
    io.template load<N>(dst, first_col);
    return;
  }
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int64_t c = first_col + i;
    if (c >= 0 && c < cols) io.template load<1>(dst + i, c);
    else dst[i] = Op::pad();
  }
}

template <int N, class RowIo, class Acc>
__device__ inline void store_pack_of_row(const RowIo& io, const Acc* src, int64_t first_col, int64_t cols) {
  if (first_col >= 0 && first_col + N <= cols) {
    io.template store<N>(src, first_col);
    return;
  }
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int64_t c = first_col + i;
    if (c >= 0 && c < cols) io.template store<1>(src + i, c);
  }
}

// Map N loaded values with the row's constants and store them.
template <class Op, int N, class RowIo>
__device__ inline void map_and_store_pack(const RowIo& io, const typename Op::In* v, const typename Op::Final& fin,
                                          int64_t first_col, int64_t cols) {
  typename Op::Acc out[N];
#pragma unroll
  for (int i = 0; i < N; ++i) out[i] = Op::map(v[i], fin);
  store_pack_of_row<N>(io, out, first_col, cols);
}

// Loads U packs of a row, first, first + stride, ...; those past the row's end read the pad value.
template <class Op, int N, int U, class RowIo>
__device__ inline void load_strided_packs(const RowIo& io, typename Op::In* v, int64_t first, int64_t stride,
                                          int64_t packs, int phase, int64_t cols) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int64_t p = first + u * stride;
    if (p < packs) {
      load_pack_of_row<Op, N>(io, &v[u * N], p * N - phase, cols);
    } else {
#pragma unroll
      for (int i = 0; i < N; ++i) v[u * N + i] = Op::pad();
    }
  }
}

// Maps and stores the packs that load_strided_packs loaded.
template <class Op, int N, int U, class RowIo>
__device__ inline void map_and_store_strided_packs(const RowIo& io, const typename Op::In* v,
                                                   const typename Op::Final& fin, int64_t first, int64_t stride,
                                                   int64_t packs, int phase, int64_t cols) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int64_t p = first + u * stride;
    if (p < packs) map_and_store_pack<Op, N>(io, &v[u * N], fin, p * N - phase, cols);
  }
}

// The op's combine as a functor for the warp and block reductions.
template <class Op> struct CombineOf {
  __device__ typename Op::State operator()(const typename Op::State& a, const typename Op::State& b) const {
    return Op::combine(a, b);
  }
};

}  // namespace rowwise
