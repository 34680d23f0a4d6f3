// What every row strategy shares.
// A row as a sequence of memory-aligned packs: pack p holds row elements [p*N - phase, p*N - phase + N).
// Interior packs move with one N-wide access; the first and last may stick out of the row and move
// element by element, out-of-row slots reading the op's pad value and never being written.
// On chip a pack stays in its storage type (RowIo::Packed<N>) and is unpacked where it is used.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "../primitives/grid_dependence.cuh"

namespace rowwise {

// A register-resident row strategy's thread holds up to kStoredBytesPerThread of row (in the storage
// type: 32 floats or 64 bf16) in 32 registers (one-warp blocks of 16-bit rows up to 176 bytes:
// block_rows.cuh). Left to itself ptxas took 80-123 registers in some kernels (fp32 warp rows of 8
// packs, 16-bit log_softmax blocks), which cut the blocks an SM holds, so the bytes in flight, by up
// to half. Such kernels ask __launch_bounds__ for the blocks per SM that keep a thread within
// `registers`. Left alone: kernels holding more row than `max_stored_bytes` (never planned) and
// double math (register pairs: capped, the fp64 block kernel spilled 176 bytes).
inline constexpr int kStoredBytesPerThread = 128;
inline constexpr int kRegistersPerSm = 65536;  // sm_80, sm_90
template <class Op>
__host__ __device__ constexpr int min_blocks_per_sm(int threads, int stored_bytes, int registers,
                                                    int max_stored_bytes = kStoredBytesPerThread) {
  const bool bounded = stored_bytes <= max_stored_bytes && sizeof(typename Op::Acc) <= 4;
  return bounded ? kRegistersPerSm / (threads * registers) : 1;
}

template <class RowIo, int N> using PackedOf = typename RowIo::template Packed<N>;
template <int N, class Io> inline constexpr int kPackStoredBytes = sizeof(PackedOf<typename Io::Row, N>);

// Whether rows' outputs are narrower than their stored inputs (int8 / fp8 outputs of abs-max); not
// known of functor Io.
template <class RowIo, class = void> inline constexpr bool kNarrowsOutput = false;
template <class RowIo>
inline constexpr bool kNarrowsOutput<RowIo, std::void_t<typename RowIo::Out, typename RowIo::Stored>> =
    sizeof(typename RowIo::Out) < sizeof(typename RowIo::Stored);

// Whether rows take bulk copies of packs of N (RowIo::kBulkCopy<N>: optional, false where absent).
template <class RowIo, int N, class = void> inline constexpr bool kRowBulkCopy = false;
template <class RowIo, int N>
inline constexpr bool kRowBulkCopy<RowIo, N, std::void_t<decltype(RowIo::template kBulkCopy<N>)>> =
    RowIo::template kBulkCopy<N>;

// Packs in a row of `cols` elements starting at lane `phase` of its first pack.
template <class I> __host__ __device__ inline I packs_in_row(I cols, int phase, int n) {
  return (cols + phase + n - 1) / n;
}

// Row `row` as the strategies that take a row at a time walk it: its addresses, the lane of its element 0 in its pack,
// and its packs (in the index type of the row's length, below).
template <class Io, class I> struct RowSpan {
  typename Io::Row io;
  int phase;
  I packs;
};
template <int N, class Io, class I> __device__ inline RowSpan<Io, I> row_span(const Io& io, int64_t row, I cols) {
  const auto row_io = io.row(row);
  const int phase = row_io.template phase<N>();
  return {row_io, phase, packs_in_row(cols, phase, N)};
}

// Most packs any row can span, whatever its phase: what a strategy holding the row must hold.
__host__ __device__ inline int64_t max_packs_in_row(int64_t cols, int n) { return packs_in_row(cols, n - 1, n); }

// Column and pack indices within a row come in the type I of the row's length (deduced from `cols`;
// the others follow it). Strategies whose row lives on one SM or one cluster (warp, block,
// block_smem, cluster: at most 16 * 1024 threads * 8 packs, or shared memory's bytes) pass int: with
// 64-bit indices ptxas gave bf16 lanes of 8 packs 96 registers (80 with 32-bit), and every bounds
// test and address took two instructions; 16-bit warp rows gained 3-12 points of copy
// (docs/perf.md). Split and two_pass rows pass int64_t (they may pass 2^31 columns).
template <class T> struct NoDeduce {
  using type = T;
};
template <class T> using no_deduce = typename NoDeduce<T>::type;

template <class Op, int N, class RowIo> __device__ inline PackedOf<RowIo, N> pad_pack() {
  typename Op::In v[N];
#pragma unroll
  for (int i = 0; i < N; ++i) v[i] = Op::pad();
  return RowIo::template pack<N>(v);
}

// The pack whose first slot is row element first_col.
template <class Op, int N, class RowIo, class I>
__device__ inline PackedOf<RowIo, N> load_pack_of_row(const RowIo& io, no_deduce<I> first_col, I cols) {
  if (first_col >= 0 && first_col + N <= cols) return io.template load_packed<N>(first_col);
  typename Op::In v[N];
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const I c = first_col + i;
    if (c >= 0 && c < cols) io.template load<1>(v + i, c);
    else v[i] = Op::pad();
  }
  return RowIo::template pack<N>(v);
}

// The pack whose first slot is row element first_col if it lies wholly inside the row, else pads
// (kWhole: the caller knows it does, and the pack is loaded untested).
template <class Op, int N, bool kWhole = false, class RowIo, class I>
__device__ inline PackedOf<RowIo, N> whole_pack_of_row(const RowIo& io, no_deduce<I> first_col, I cols) {
  if (kWhole || (first_col >= 0 && first_col + N <= cols)) return io.template load_packed<N>(first_col);
  return pad_pack<Op, N, RowIo>();
}

// Stores the pack whose first slot is row element first_col: by one access where it lies wholly inside
// the row (kWhole: the caller knows it does), else element by element.
template <int N, bool kWhole = false, class RowIo, class Acc, class I>
__device__ inline void store_pack_of_row(const RowIo& io, const Acc* src, no_deduce<I> first_col, I cols) {
  if (kWhole || (first_col >= 0 && first_col + N <= cols)) {
    io.template store<N>(src, first_col);
    return;
  }
  if constexpr (!kWhole) {
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const I c = first_col + i;
      if (c >= 0 && c < cols) io.template store<1>(src + i, c);
    }
  }
}

// Calls f with the op a row's map takes: the op's plain_map_op() where it has one and the row's
// constants allow it (Op::plain_map(fin): abs-max's rows that are not tiny, a multiply a value fewer),
// else the op; one branch a row, which a warp's rows take alike but for rare tiny ones. H200, int8 /
// fp8 outputs of bf16 rows of 150-12345 columns +0.1 to +2.9 points, fp32 +0.1 to +2.6 (docs/perf.md
// history, "quantizing rows mapped without the tiny rows' multiply").
template <class Op, class = void> inline constexpr bool kOpHasPlainMap = false;
template <class Op> inline constexpr bool kOpHasPlainMap<Op, std::void_t<decltype(Op::plain_map_op())>> = true;
template <class Op, class F> __device__ inline void with_map_op(const typename Op::Final& fin, F&& f) {
  if constexpr (kOpHasPlainMap<Op>) {
    if (Op::plain_map(fin)) return f(decltype(Op::plain_map_op()){});
  }
  f(Op{});
}

// Map one pack's values with the row's constants and store them (store_pack_of_row).
template <class Op, int N, bool kWhole = false, class RowIo, class I>
__device__ inline void map_and_store_values(const RowIo& io, const typename Op::In* v, const typename Op::Final& fin,
                                            no_deduce<I> first_col, I cols) {
  typename Op::Acc out[N];
#pragma unroll
  for (int i = 0; i < N; ++i) out[i] = Op::map(v[i], fin);
  store_pack_of_row<N, kWhole>(io, out, first_col, cols);
}

template <class Op, int N, class RowIo, class I>
__device__ inline void map_and_store_pack(const RowIo& io, const PackedOf<RowIo, N>& packed,
                                          const typename Op::Final& fin, no_deduce<I> first_col, I cols) {
  typename Op::In v[N];
  RowIo::template unpack<N>(packed, v);
  map_and_store_values<Op, N>(io, v, fin, first_col, cols);
}

// A row's edge: the elements of its first and last packs where those stick out of the row (rows
// that do not start and end on a pack boundary). Moved inside their packs, a partial pack's elements
// go one by one in one thread while its warp (and block) waits: a 16-bit row of 2199 columns took 35 %
// longer than one of 2200 (ncu: 7 more load and 7 more store requests a row, 20 % more instructions,
// twice the barrier stalls). Register-resident strategies can instead give the edge one element a
// thread, one access for all, and move whole packs only (partial ones hold pads and are not stored).
// Slots enough for the 2 (N - 1) elements an edge may hold, over groups of Threads threads (a group of
// any width sizes them for its lanes; power-of-two groups have kMinEdgeThreads or more).
inline constexpr int kMinEdgeThreads = 8;
constexpr int edge_slots(int pack, int threads) { return pack > 1 ? (2 * (pack - 1) + threads - 1) / threads : 1; }
template <int N, int Threads = kMinEdgeThreads> inline constexpr int kEdgeSlots = edge_slots(N, Threads);
struct RowEdge {
  int head = 0;  // elements before the first whole pack
  int tail = 0;  // elements after the last whole pack
  __device__ int elements() const { return head + tail; }
  template <class I> __device__ I col(int e, I cols) const { return e < head ? e : cols - tail + (e - head); }
};
template <int N, class I> __device__ inline RowEdge row_edge(I cols, int phase) {
  const int head = phase == 0 ? 0 : static_cast<int>(cols < N - phase ? cols : N - phase);
  return {head, static_cast<int>((cols - head) % N)};
}
// The edge of a row whose threads hold at most held_packs of its whole packs: the whole packs past
// those go with the edge too (warp lanes whose slots a row overflows by less than the edge's spare
// slots: dispatch/warp_plan.cuh edge_takes_overflow).
template <int N> __device__ inline RowEdge row_edge(int cols, int phase, int held_packs) {
  const RowEdge edge = row_edge<N>(cols, phase);
  const int whole = (cols - edge.head) / N;
  return whole <= held_packs ? edge : RowEdge{edge.head, cols - edge.head - N * held_packs};
}

// Loads the edge elements thread `t` of `threads` takes; slots without one hold pads.
template <class Op, int N, int Slots = kEdgeSlots<N>, class RowIo, class I>
__device__ inline void load_edge(const RowIo& io, typename Op::In* e, const RowEdge& edge, int t, int threads, I cols) {
#pragma unroll
  for (int s = 0; s < Slots; ++s) {
    const int i = t + s * threads;
    if (i < edge.elements()) io.template load<1>(e + s, edge.col(i, cols));
    else e[s] = Op::pad();
  }
}

template <class Op, int N, int Slots = kEdgeSlots<N>, class RowIo, class I>
__device__ inline void map_and_store_edge(const RowIo& io, const typename Op::In* e, const typename Op::Final& fin,
                                          const RowEdge& edge, int t, int threads, I cols) {
#pragma unroll
  for (int s = 0; s < Slots; ++s) {
    const int i = t + s * threads;
    if (i >= edge.elements()) continue;
    const typename Op::Acc out = Op::map(e[s], fin);
    io.template store<1>(&out, edge.col(i, cols));
  }
}

// Pack p lies wholly inside the row: past a partial first pack, before the end.
template <int N, class I> __device__ inline bool is_whole_pack(no_deduce<I> p, int phase, I cols) {
  return p >= (phase != 0) && p < (cols + phase) / N;
}

// Loads U packs of a row, first, first + stride, ...; those past the row's end hold pads.
// With kWholeOnly, partial packs hold pads too (their elements are the edge's); with kFromBelow,
// first may lie below the row's first whole pack, and packs there hold pads (warp_rows.cuh); with
// kUntestedWhole, whole packs load by one access without the row's bounds tests (rows of narrowing
// outputs: warp_rows.cuh, block_rows.cuh).
template <class Op, int N, int U, bool kWholeOnly = false, bool kFromBelow = false, bool kUntestedWhole = false,
          class RowIo, class I>
__device__ inline void load_strided_packs(const RowIo& io, PackedOf<RowIo, N>* v, no_deduce<I> first,
                                          no_deduce<I> stride, no_deduce<I> packs, int phase, I cols) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const I p = first + u * stride;
    if constexpr (kWholeOnly) {
      const bool whole = p < packs && (!kFromBelow || p >= (phase != 0));
      v[u] = whole ? whole_pack_of_row<Op, N, kUntestedWhole>(io, p * N - phase, cols) : pad_pack<Op, N, RowIo>();
    } else {
      v[u] = p < packs ? load_pack_of_row<Op, N>(io, p * N - phase, cols) : pad_pack<Op, N, RowIo>();
    }
  }
}

// Loads K packs of each of R rows of `packs` whole packs, in groups of `stride` lanes: first, first +
// stride, ...; packs past the row's end hold pads, the others move by one access each, untested. Each
// load predicated on its own in the reduction's block, ptxas moved some behind the reduction's math (a
// warp then waits for its first packs before it asks for the rest: bf16 softmax of 48 / 96 columns -5 /
// -15 points, absmax_scale -10 / -17), but never across a branch. So rows that fill their groups' slots
// load in one branch and the others in another, the test being the rows' (where lanes took different
// paths, bf16 absmax_scale of 48 columns lost 20). Not rows quantized to int8 / fp8: their two paths
// took 48 -> 63 registers (bf16 lanes of 4 rows), and in one block ptxas kept their loads ahead (bf16
// to int8 of 96 columns +9.7 points so, +1.4 in two).
template <class Op, int N, int K, int R, class RowIo, class RowIoOf>
__device__ inline void load_whole_rows(const RowIoOf& row_io, PackedOf<RowIo, N> (*v)[K], int packs, int first,
                                       int stride) {
  if (!kNarrowsOutput<RowIo> && K * stride == packs) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int u = 0; u < K; ++u) v[r][u] = row_io(r).template load_packed<N>((first + u * stride) * N);
    }
  } else {
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int u = 0; u < K; ++u) {
        const int p = first + u * stride;
        v[r][u] = p < packs ? row_io(r).template load_packed<N>(p * N) : pad_pack<Op, N, RowIo>();
      }
    }
  }
}

// One thread's state over U packs, unpacked kReduceChunk values at a time: reducing all at once keeps
// every unpacked value alive (64 floats for 8 bf16 packs: 128 registers, seen in ptxas).
inline constexpr int kReduceChunk = 16;

// Whether the op reduces the row's values as stored (Op::reduce_stored<M>(const Stored*), where the
// op defines it for the row's Stored type): abs-max of 16-bit values, two a register, unpacked only
// for the map. Packs of one value (odd strides) keep unpacking: pairing them cost more than it saved.
template <class Op, class RowIo, class = void> inline constexpr bool kOpReducesStored = false;
template <class Op, class RowIo>
inline constexpr bool kOpReducesStored<
    Op, RowIo, std::void_t<decltype(Op::template reduce_stored<2>(std::declval<const typename RowIo::Stored*>()))>> =
    true;

template <class Op, int N, int C, class RowIo>
__device__ inline typename Op::State reduce_chunk(const PackedOf<RowIo, N>* v) {
  if constexpr (kOpReducesStored<Op, RowIo> && N % 2 == 0) {
    typename RowIo::Stored stored[C * N];
#pragma unroll
    for (int c = 0; c < C; ++c) memcpy(&stored[c * N], RowIo::template stored<N>(v[c]).v, N * sizeof(stored[0]));
    return Op::template reduce_stored<C * N>(stored);
  } else {
    typename Op::In values[C * N];
#pragma unroll
    for (int c = 0; c < C; ++c) RowIo::template unpack<N>(v[c], &values[c * N]);
    return Op::template reduce<C * N>(values);
  }
}

// U need not be a multiple of the chunk (block rows of 7 packs): the last chunk is shorter.
template <class Op, int N, int U, class RowIo>
__device__ inline typename Op::State reduce_packs(const PackedOf<RowIo, N>* v) {
  constexpr int C = U < kReduceChunk / N ? U : (kReduceChunk / N > 0 ? kReduceChunk / N : 1);  // packs per chunk
  constexpr int kWhole = U / C * C;
  typename Op::State state;
#pragma unroll
  for (int u0 = 0; u0 < kWhole; u0 += C) {
    const typename Op::State chunk = reduce_chunk<Op, N, C, RowIo>(v + u0);
    state = u0 == 0 ? chunk : Op::combine(state, chunk);
  }
  if constexpr (kWhole < U) state = Op::combine(state, reduce_chunk<Op, N, U - kWhole, RowIo>(v + kWhole));
  return state;
}

// Whether the op can keep its reduction's per-value terms for the map (softmax's exps: reduce_keeping,
// kept_scale, map_kept in ops/softmax.cuh), for strategies with registers to hold them.
template <class Op, class = void> inline constexpr bool kOpKeepsTerms = false;
template <class Op>
inline constexpr bool kOpKeepsTerms<Op, std::void_t<decltype(&Op::kept_scale)>> = true;

// One thread's state over U packs, unpacked all at once, and each value's term (kOpKeepsTerms).
template <class Op, int N, int U, class RowIo>
__device__ inline typename Op::State reduce_packs_keeping(const PackedOf<RowIo, N>* v, typename Op::Acc* terms) {
  typename Op::In values[U * N];
#pragma unroll
  for (int u = 0; u < U; ++u) RowIo::template unpack<N>(v[u], &values[u * N]);
  return Op::template reduce_keeping<U * N>(values, terms);
}

// Whether block kernels unpack a row again by other instructions before its map (see below): an op
// sets kUnpackAgain = false where ptxas keeps the row packed without it and the extra conversion
// costs (softmax: fp16 rows of 3000 / 5000 columns at 88 / 87 % with it, 95 / 98 % without).
template <class Op, class = void> inline constexpr bool kOpUnpacksAgain = true;
template <class Op>
inline constexpr bool kOpUnpacksAgain<Op, std::void_t<decltype(Op::kUnpackAgain)>> = Op::kUnpackAgain;

// Whether block rows give every row's edge to their first threads (else a partial pack's thread moves
// it, unless the plan asks for the edge: 16-bit rows with partial packs, dispatch/block_plan.cuh): an
// op sets kEdgeInBlockRows = true where that measured faster on every row (the edge's extra
// instructions and registers cost some ops more than it saved on rows of whole packs).
template <class Op, class = void> inline constexpr bool kOpTakesEdgeInBlockRows = false;
template <class Op>
inline constexpr bool kOpTakesEdgeInBlockRows<Op, std::void_t<decltype(Op::kEdgeInBlockRows)>> = Op::kEdgeInBlockRows;

// Whether tile thread rows of 16-bit values keep their values in registers for the map (kernels/
// tile_rows.cuh) for an op of one input: an op sets kKeepsValuesInTileRows = true where that measured
// faster.
template <class Op, class = void> inline constexpr bool kOpKeepsValuesInTileRows = false;
template <class Op>
inline constexpr bool kOpKeepsValuesInTileRows<Op, std::void_t<decltype(Op::kKeepsValuesInTileRows)>> =
    Op::kKeepsValuesInTileRows;

// Whether the op takes an exp for every element, which makes its short warp rows bound by issue: rows
// of 9-12 whole packs go two a group at 3 packs a lane, and ragged 16-bit rows of 3-4 packs a lane one
// a group where memory outpaces the SMs (dispatch/warp_plan.cuh). An op sets kExpPerElement = true.
template <class Op, class = void> inline constexpr bool kOpExpPerElement = false;
template <class Op>
inline constexpr bool kOpExpPerElement<Op, std::void_t<decltype(Op::kExpPerElement)>> = Op::kExpPerElement;

// Maps and stores the packs load_strided_packs loaded and reduce_packs unpacked once. Laundering first
// makes the compiler unpack them again rather than keep the reduction's unpacked values alive across
// the row's reduction. That is not enough for ptxas, which sees the same conversions twice and may
// merge them: block kernels therefore convert with unpack_again unless the op opts out (bf16
// log_softmax block: 103 registers; bounded to 64 it spilled 160 bytes, with unpack_again nothing).
// Warp kernels keep unpack: with unpack_again their lanes took more (bf16 lanes of 4 packs: 80-85
// registers against 56).
// With kWholeOnly (load_strided_packs) only whole packs are stored, each by one access without the
// row's bounds tests, which cost edge-taking warp lanes some 4 instructions a pack and a dead fallback
// (H200, 16-bit and fp32 rows of 129-509 columns: softmax and log_softmax +0 to +2.3 points, int8
// outputs -1.5 to +2.6; docs/perf.md "Whole packs stored without bounds tests"), unless
// kTestWholeStores: block rows of softmax and log_softmax ran slower so (bf16 of 1289 columns -1 / -3).
// Loads keep their tests (load_strided_packs) but in most rows of narrowing outputs: their branches keep
// ptxas from moving loads behind the math, without which some softmax warp kernels lost 7-10 points.
template <class Op, int N, int U, bool kUnpackAgain, bool kWholeOnly = false, bool kTestWholeStores = false,
          class RowIo, class I>
__device__ inline void map_and_store_strided_packs(const RowIo& io, PackedOf<RowIo, N>* v,
                                                   const typename Op::Final& fin, no_deduce<I> first,
                                                   no_deduce<I> stride, no_deduce<I> packs, int phase, I cols) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const I p = first + u * stride;
    if (kWholeOnly ? !is_whole_pack<N>(p, phase, cols) : p >= packs) continue;
    typename Op::In values[N];
    RowIo::template launder<N>(v[u]);
    if constexpr (kUnpackAgain) RowIo::template unpack_again<N>(v[u], values);
    else RowIo::template unpack<N>(v[u], values);
    map_and_store_values<Op, N, kWholeOnly && !kTestWholeStores>(io, values, fin, p * N - phase, cols);
  }
}

// Maps and stores the packs whose terms reduce_packs_keeping gave (as map_and_store_strided_packs).
template <class Op, int N, int U, bool kWholeOnly, class RowIo, class I>
__device__ inline void map_and_store_strided_terms(const RowIo& io, const typename Op::Acc* terms,
                                                   typename Op::Acc scale, no_deduce<I> first, no_deduce<I> stride,
                                                   no_deduce<I> packs, int phase, I cols) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const I p = first + u * stride;
    if (kWholeOnly ? !is_whole_pack<N>(p, phase, cols) : p >= packs) continue;
    typename Op::Acc out[N];
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = Op::map_kept(terms[u * N + i], scale);
    store_pack_of_row<N, kWholeOnly>(io, out, p * N - phase, cols);
  }
}

// Rows a block, or a cluster's CTAs, hold strided over their threads (block_rows.cuh, cluster_rows.cuh):
// the packs [first, end) of the row, with kEdge its whole packs only (the first threads take the edge).
struct HeldPacks {
  int first, end;
};
template <int N, bool kEdge> __device__ inline HeldPacks held_packs(int row_cols, int phase, int packs) {
  return {kEdge && phase != 0 ? 1 : 0, kEdge ? (row_cols + phase) / N : packs};
}

// Loads this thread's K packs, first, first + threads, ... below `end`, and with kEdge its slots of the
// row's edge, and returns its state over them. The edge is folded into the state at once and loaded
// again to be stored (map_and_store_edge_again): held across the row's reduction, it made 16-bit blocks
// of 7-8 packs spill. kUntestedWhole: load_strided_packs.
template <class Op, int N, int K, bool kEdge, bool kUntestedWhole = false, class RowIo>
__device__ inline typename Op::State load_and_reduce_held(const RowIo& io, PackedOf<RowIo, N>* v, const RowEdge& edge,
                                                          int first, int threads, int end, int phase, int row_cols) {
  if constexpr (kEdge) {
    typename Op::In e[kEdgeSlots<N>];
    load_edge<Op, N>(io, e, edge, threadIdx.x, threads, row_cols);
    load_strided_packs<Op, N, K, true, false, kUntestedWhole>(io, v, first, threads, end, phase, row_cols);
    return Op::combine(reduce_packs<Op, N, K, RowIo>(v), Op::template reduce<kEdgeSlots<N>>(e));
  } else {
    load_strided_packs<Op, N, K>(io, v, first, threads, end, phase, row_cols);
    return reduce_packs<Op, N, K, RowIo>(v);
  }
}

// Maps (by MapOp: with_map_op) and stores this thread's slots of the row's edge, loaded again.
template <class Op, class MapOp, int N, class RowIo>
__device__ inline void map_and_store_edge_again(const RowIo& io, const typename MapOp::Final& fin, const RowEdge& edge,
                                                int threads, int row_cols) {
  typename Op::In e[kEdgeSlots<N>];
  load_edge<Op, N>(io, e, edge, threadIdx.x, threads, row_cols);
  map_and_store_edge<MapOp, N>(io, e, fin, edge, threadIdx.x, threads, row_cols);
}

// A block's state over the packs [first, packs) of a row it streams (not held on chip): each thread
// loads U packs, first + threadIdx.x + k * blockDim.x, before it reduces them.
template <class Op, int N, int U, class RowIo, class I>
__device__ inline typename Op::State reduce_streamed_packs(const RowIo& io, no_deduce<I> first, no_deduce<I> packs,
                                                           int phase, I cols) {
  typename Op::State state = Op::identity();
  for (I p0 = first + threadIdx.x; p0 < packs; p0 += U * blockDim.x) {
    PackedOf<RowIo, N> v[U];
    load_strided_packs<Op, N, U>(io, v, p0, blockDim.x, packs, phase, cols);
    state = Op::combine(state, reduce_packs<Op, N, U, RowIo>(v));
  }
  return state;
}

// Reads the packs [first, packs) of a row again (reduce_streamed_packs read them moments before, so
// they come from L2), maps and stores them.
template <class Op, int N, int U, class RowIo, class I>
__device__ inline void map_streamed_packs(const RowIo& io, const typename Op::Final& fin, no_deduce<I> first,
                                          no_deduce<I> packs, int phase, I cols) {
  for (I p0 = first + threadIdx.x; p0 < packs; p0 += U * blockDim.x) {
    PackedOf<RowIo, N> v[U];
    load_strided_packs<Op, N, U>(io, v, p0, blockDim.x, packs, phase, cols);
    map_and_store_strided_packs<Op, N, U, kOpUnpacksAgain<Op>>(io, v, fin, p0, blockDim.x, packs, phase, cols);
  }
}

// Whether cluster slices are bounded to the block rows' registers (__launch_bounds__): an op sets
// kBoundClusterSlices = true where that measured faster. Unbounded is the default: under the bound
// ptxas took more registers in most kernels (fp32 softmax slices of 4 packs 40 -> 48: 5 CTAs an SM,
// not 6).
template <class Op, class = void> inline constexpr bool kOpBoundsClusterSlices = false;
template <class Op>
inline constexpr bool kOpBoundsClusterSlices<Op, std::void_t<decltype(Op::kBoundClusterSlices)>> = Op::kBoundClusterSlices;

// The op's combine as a functor for the warp and block reductions.
template <class Op> struct CombineOf {
  __device__ typename Op::State operator()(const typename Op::State& a, const typename Op::State& b) const {
    return Op::combine(a, b);
  }
};

}  // namespace rowwise
