// What every row strategy shares.
// A row as a sequence of memory-aligned packs: pack p holds row elements [p*N - phase, p*N - phase + N).
// Interior packs move with one N-wide access; the first and last may stick out of the row and move
// element by element, out-of-row slots reading the op's pad value and never being written.
// On chip a pack stays in its storage type (RowIo::Packed<N>) and is unpacked where it is used.
#pragma once
#include <cstdint>
#include <type_traits>

namespace rowwise {

// A register-resident row strategy's thread holds up to kStoredBytesPerThread of row (in the storage
// type: 32 floats or 64 bf16) in 32 registers. Left to itself ptxas took 80-123 registers in some
// kernels (fp32 warp rows of 8 packs, 16-bit log_softmax blocks), which cut the blocks an SM holds,
// so the bytes in flight, by up to half. Such kernels ask __launch_bounds__ for the blocks per SM that
// keep a thread within `registers`. Left alone: kernels holding more row (never planned) and double
// math (register pairs: capped, the fp64 block kernel spilled 176 bytes).
inline constexpr int kStoredBytesPerThread = 128;
inline constexpr int kRegistersPerSm = 65536;  // sm_80, sm_90
template <class Op>
__host__ __device__ constexpr int min_blocks_per_sm(int threads, int stored_bytes, int registers) {
  const bool bounded = stored_bytes <= kStoredBytesPerThread && sizeof(typename Op::Acc) <= 4;
  return bounded ? kRegistersPerSm / (threads * registers) : 1;
}

template <class RowIo, int N> using PackedOf = typename RowIo::template Packed<N>;
template <int N, class Io> inline constexpr int kPackStoredBytes = sizeof(PackedOf<typename Io::Row, N>);

// Packs in a row of `cols` elements starting at lane `phase` of its first pack.
__host__ __device__ inline int64_t packs_in_row(int64_t cols, int phase, int n) { return (cols + phase + n - 1) / n; }

// Most packs any row can span, whatever its phase: what a strategy holding the row must hold.
__host__ __device__ inline int64_t max_packs_in_row(int64_t cols, int n) { return packs_in_row(cols, n - 1, n); }

template <class Op, int N, class RowIo> __device__ inline PackedOf<RowIo, N> pad_pack() {
  typename Op::In v[N];
#pragma unroll
  for (int i = 0; i < N; ++i) v[i] = Op::pad();
  return RowIo::template pack<N>(v);
}

// The pack whose first slot is row element first_col.
template <class Op, int N, class RowIo>
__device__ inline PackedOf<RowIo, N> load_pack_of_row(const RowIo& io, int64_t first_col, int64_t cols) {
  if (first_col >= 0 && first_col + N <= cols) return io.template load_packed<N>(first_col);
  typename Op::In v[N];
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int64_t c = first_col + i;
    if (c >= 0 && c < cols) io.template load<1>(v + i, c);
    else v[i] = Op::pad();
  }
  return RowIo::template pack<N>(v);
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

// Map one pack's values with the row's constants and store them.
template <class Op, int N, class RowIo>
__device__ inline void map_and_store_values(const RowIo& io, const typename Op::In* v, const typename Op::Final& fin,
                                            int64_t first_col, int64_t cols) {
  typename Op::Acc out[N];
#pragma unroll
  for (int i = 0; i < N; ++i) out[i] = Op::map(v[i], fin);
  store_pack_of_row<N>(io, out, first_col, cols);
}

template <class Op, int N, class RowIo>
__device__ inline void map_and_store_pack(const RowIo& io, const PackedOf<RowIo, N>& packed,
                                          const typename Op::Final& fin, int64_t first_col, int64_t cols) {
  typename Op::In v[N];
  RowIo::template unpack<N>(packed, v);
  map_and_store_values<Op, N>(io, v, fin, first_col, cols);
}

// Loads U packs of a row, first, first + stride, ...; those past the row's end hold pads.
template <class Op, int N, int U, class RowIo>
__device__ inline void load_strided_packs(const RowIo& io, PackedOf<RowIo, N>* v, int64_t first, int64_t stride,
                                          int64_t packs, int phase, int64_t cols) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int64_t p = first + u * stride;
    v[u] = p < packs ? load_pack_of_row<Op, N>(io, p * N - phase, cols) : pad_pack<Op, N, RowIo>();
  }
}

// One thread's state over U packs, unpacked kReduceChunk values at a time: reducing all at once keeps
// every unpacked value alive (64 floats for 8 bf16 packs: 128 registers, seen in ptxas).
inline constexpr int kReduceChunk = 16;

template <class Op, int N, int U, class RowIo>
__device__ inline typename Op::State reduce_packs(const PackedOf<RowIo, N>* v) {
  constexpr int C = U < kReduceChunk / N ? U : (kReduceChunk / N > 0 ? kReduceChunk / N : 1);  // packs per chunk
  typename Op::State state;
#pragma unroll
  for (int u0 = 0; u0 < U; u0 += C) {
    typename Op::In values[C * N];
#pragma unroll
    for (int c = 0; c < C; ++c) RowIo::template unpack<N>(v[u0 + c], &values[c * N]);
    const typename Op::State chunk = Op::template reduce<C * N>(values);
    state = u0 == 0 ? chunk : Op::combine(state, chunk);
  }
  return state;
}

// Whether block kernels unpack a row again by other instructions before its map (see below): an op
// sets kUnpackAgain = false where ptxas keeps the row packed without it and the extra conversion
// costs (softmax: fp16 rows of 3000 / 5000 columns at 88 / 87 % with it, 95 / 98 % without).
template <class Op, class = void> inline constexpr bool kOpUnpacksAgain = true;
template <class Op>
inline constexpr bool kOpUnpacksAgain<Op, std::void_t<decltype(Op::kUnpackAgain)>> = Op::kUnpackAgain;

// Maps and stores the packs load_strided_packs loaded and reduce_packs unpacked once. Laundering first
// makes the compiler unpack them again rather than keep the reduction's unpacked values alive across
// the row's reduction. That is not enough for ptxas, which sees the same conversions twice and may
// merge them: block kernels therefore convert with unpack_again unless the op opts out (bf16
// log_softmax block: 103 registers; bounded to 64 it spilled 160 bytes, with unpack_again nothing).
// Warp kernels keep unpack: with unpack_again their lanes took more (bf16 lanes of 4 packs: 80-85
// registers against 56).
template <class Op, int N, int U, bool kUnpackAgain, class RowIo>
__device__ inline void map_and_store_strided_packs(const RowIo& io, PackedOf<RowIo, N>* v,
                                                   const typename Op::Final& fin, int64_t first, int64_t stride,
                                                   int64_t packs, int phase, int64_t cols) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int64_t p = first + u * stride;
    if (p >= packs) continue;
    typename Op::In values[N];
    RowIo::template launder<N>(v[u]);
    if constexpr (kUnpackAgain) RowIo::template unpack_again<N>(v[u], values);
    else RowIo::template unpack<N>(v[u], values);
    map_and_store_values<Op, N>(io, values, fin, p * N - phase, cols);
  }
}

// The op's combine as a functor for the warp and block reductions.
template <class Op> struct CombineOf {
  __device__ typename Op::State operator()(const typename Op::State& a, const typename Op::State& b) const {
    return Op::combine(a, b);
  }
};

}  // namespace rowwise
