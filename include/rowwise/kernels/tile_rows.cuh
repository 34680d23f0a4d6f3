// Strategy `tile`: rows of a contiguous tensor (every row stride == cols) staged through shared memory
// a tile of whole rows at a time. The block copies the tile's span of each input as one run of
// 16-byte accesses (cp.async), reduces and maps each row from shared memory into an output plane, and
// stores that plane as one run of 16-byte accesses. Rows that start or end off a 16-byte boundary
// (odd lengths of 16-bit rows) then cost no partial packs in global memory: only the tile's two ends
// move element by element, and only at the tensor's ends, since dispatch sizes tiles in whole 16-byte
// accesses (tile_rows_of_whole_accesses).
// A row is reduced and mapped from shared memory by one thread (short ragged rows, which dispatch
// gives tiles: the other strategies fall back to 2- or 4-byte packs there), in runs of consecutive
// elements, 16-bit ones two a 32-bit access (16-bit softmax and log_softmax rows of up to 32 columns
// keep the reduction's exps or the values for the map); or by a group of threads, one element a
// thread per access and a shuffle reduction a row (forced tiles of longer rows: instructions that packs in
// registers do not cost, so dispatch keeps longer rows off tiles).
// Each operand's plane puts element 0 at the same offset from a 16-byte boundary as in global
// memory, so the global and shared addresses of every 16-byte access are both aligned, whatever the
// operands' alignments.
#pragma once
#include <type_traits>

#include "../primitives/async_copy.cuh"
#include "../primitives/block_reduce.cuh"
#include "../primitives/numeric.cuh"
#include "../primitives/pack.cuh"
#include "../primitives/staged_run.cuh"
#include "../primitives/warp_reduce.cuh"
#include "row_common.cuh"

namespace rowwise {

inline constexpr int kTileThreads = 256;
// A tile block's static shared memory: its reduction slots, two arrays of a State a warp, States of at
// most two doubles. Dispatch counts it where it sizes tiles to share an SM.
inline constexpr int kTileStaticSmemBytes = 2 * (kTileThreads / kWarpSize) * 2 * int(sizeof(double));
// Elements a thread reads before it reduces them: one Op::reduce<kTileChunk> per combine.
inline constexpr int kTileChunk = 8;
// Thread rows of 16-bit elements keep in registers what the map needs from the reduction: softmax
// its terms (the exps, kOpKeepsTerms), which the map multiplies by one scale a run where it read,
// converted and exponentiated the row again; log_softmax its values (kOpKeepsValuesInTileRows),
// which the map takes where it read and converted the row again. A kernel keeps rows of up to
// kKeptRuns runs so (launch.cuh picks it by the row's runs): rows of one run in 32 registers, of 2-4
// runs in 64 (their 32 values; 4 blocks an SM, where rows of 9-32 columns held 5-7 by shared
// memory), longer rows in a kernel that keeps none.
inline constexpr int kTileKeptRuns = 4;
template <class Op, class RowIo>
inline constexpr bool kTileKeepsRuns = sizeof(typename RowIo::Stored) == 2 &&
                                       (kOpKeepsTerms<Op> || kOpKeepsValuesInTileRows<Op>);
// Blocks an SM must hold (__launch_bounds__): as many as its threads allow, 32 registers a thread
// (unbounded, fp32 softmax_backward's thread rows took 40: 6 blocks), 64 where rows of several runs
// keep their terms or values (bounded to 5 blocks, 48 registers, they spilled 160 bytes). Doubles, which
// dispatch keeps off tiles, are not bounded (they spilled 60-1400 bytes).
template <class Op, int kKeptRuns>
inline constexpr int kTileMinBlocksPerSm = kKeptRuns > 1 ? 4 : sizeof(typename Op::Acc) == 4 ? 8 : 0;
inline constexpr int kTileAccessBytes = 16;

// Bytes of shared memory a plane of `elements` elements of `elem_bytes` takes: its offset (less than
// an access) and room for the last run a thread row reads (up to kTileChunk - 1 elements past the
// plane's last one, and load_staged_run's overreach).
__host__ __device__ inline int64_t tile_plane_bytes(int64_t elements, int elem_bytes) {
  const int64_t reach = kTileAccessBytes - 1 + (elements + kTileChunk) * elem_bytes + kStagedRunOverreachBytes;
  return (reach + kTileAccessBytes - 1) / kTileAccessBytes * kTileAccessBytes;
}

// The fewest rows of `cols` elements of `elem_bytes` that fill whole 16-byte accesses: tiles of a
// multiple of them all start at the tensor's own offset from 16 bytes, and no 16-byte piece is split
// between two blocks' tiles.
inline int64_t tile_rows_of_whole_accesses(int64_t cols, int elem_bytes) {
  int64_t rows = 1;
  while (rows * cols * elem_bytes % kTileAccessBytes != 0) rows *= 2;
  return rows;
}

// Where element 0 of `global` sits in `plane`: at global's offset from a 16-byte boundary.
template <class T> __device__ inline T* plane_start(unsigned char* plane, const void* global) {
  return reinterpret_cast<T*>(plane + reinterpret_cast<uintptr_t>(global) % kTileAccessBytes);
}

// The 16-byte-aligned middle of a span of `count` elements from `global`: [head, head + chunks * per).
struct AlignedRun {
  int head, chunks;
};
template <class T> __device__ inline AlignedRun aligned_run(const void* global, int count) {
  constexpr int per = kTileAccessBytes / sizeof(T);
  const int misaligned = static_cast<int>(reinterpret_cast<uintptr_t>(global) % kTileAccessBytes / sizeof(T));
  const int head = min(count, (per - misaligned) % per);
  return {head, (count - head) / per};
}

// Thread `t`'s element of the span's ends (outside the aligned run), or -1. At most 2 (16 / size - 1)
// elements, fewer than the block's threads.
__device__ inline int run_edge_element(const AlignedRun& run, int per, int count, int t) {
  const int tail = count - run.head - run.chunks * per;
  if (t < run.head) return t;
  if (t < run.head + tail) return count - tail + (t - run.head);
  return -1;
}

// Starts copying `count` elements from `global` into shared `staged` (plane_start of global).
template <class T> __device__ inline void stage_in(T* staged, const T* global, int count) {
  constexpr int per = kTileAccessBytes / sizeof(T);
  const AlignedRun run = aligned_run<T>(global, count);
  for (int c = threadIdx.x; c < run.chunks; c += blockDim.x) {
    const int e = run.head + c * per;
    copy_async<kTileAccessBytes>(staged + e, global + e);
  }
  const int e = run_edge_element(run, per, count, threadIdx.x);
  if (e >= 0) staged[e] = global[e];
}

// Stores `count` staged elements to `global`.
template <class U> __device__ inline void stage_out(U* global, const U* staged, int count) {
  constexpr int per = kTileAccessBytes / sizeof(U);
  const AlignedRun run = aligned_run<U>(global, count);
  for (int c = threadIdx.x; c < run.chunks; c += blockDim.x) {
    const int e = run.head + c * per;
    store_raw(global + e, *reinterpret_cast<const uint4*>(staged + e));
  }
  const int e = run_edge_element(run, per, count, threadIdx.x);
  if (e >= 0) global[e] = staged[e];
}

// Groups of `width` threads (a power of two up to the block) own a row each; groups wider than a warp
// combine their warps' states through `slots` (one barrier, alternate slot arrays per call).
template <class Op>
__device__ inline typename Op::State group_allreduce(typename Op::State s, int width, typename Op::State* slots) {
  s = warp_allreduce(s, CombineOf<Op>{}, width < kWarpSize ? width : kWarpSize);
  if (width <= kWarpSize) return s;
  const int warp = threadIdx.x / kWarpSize;
  if (threadIdx.x % kWarpSize == 0) slots[warp] = s;
  __syncthreads();
  const int warps = width / kWarpSize;
  const int first = warp / warps * warps;
  s = slots[first];
  for (int w = 1; w < warps; ++w) s = Op::combine(s, slots[first + w]);
  return s;
}

// Calls run(std::integral_constant<int, N>{}) with the length N of a thread row's run that has `left`
// of the row's elements from its first on. A row's runs are kTileChunk long (M) but its last (kTail), the
// shortest of M - 2k (2 at least) that holds the rest: 16-bit rows of 3 columns in a run of 8 loaded
// and reduced 5 pads a row and ran 2-12 points slower than element by element; rows of 5-6 in a run
// of 8 ran 2-9 slower than in 6. So the last run holds N - 1 or N of the row's elements: only its
// last element needs a bound test (a pad where it lies past the row's end).
template <int M, bool kTail, class Run>
__device__ inline decltype(auto) with_run_length(int left, const Run& run) {
  if constexpr (kTail && M > 2) {
    if (left <= M - 2) return with_run_length<M - 2, true>(left, run);
  }
  return run(std::integral_constant<int, M>{});
}

// Reduces a run of a thread row from its element j (`rows`: the row's element 0 in each operand's
// plane; c: the row's length).
template <class Op, class RowIo, int M, bool kTail>
__device__ inline typename Op::State reduce_thread_row_run(const typename RowIo::Stored* const* rows, int j, int c) {
  return with_run_length<M, kTail>(c - j, [&](auto length) {
    constexpr int N = decltype(length)::value;
    typename Op::In v[N];
    RowIo::template staged_run<N>(rows, j, v);
    if (kTail && c - j < N) v[N - 1] = Op::pad();
    return Op::template reduce<N>(v);
  });
}

// The same, keeping what the map needs (kTileKeepsRuns) in `kept`: each value's term, or the value.
template <class Op, class RowIo, int M, bool kTail>
__device__ inline typename Op::State reduce_thread_row_run_keeping(const typename RowIo::Stored* const* rows, int j,
                                                                  int c, typename Op::Acc* kept) {
  return with_run_length<M, kTail>(c - j, [&](auto length) {
    constexpr int N = decltype(length)::value;
    if constexpr (kOpKeepsTerms<Op>) {
      typename Op::In v[N];
      RowIo::template staged_run<N>(rows, j, v);
      if (kTail && c - j < N) v[N - 1] = Op::pad();
      return Op::template reduce_keeping<N>(v, kept);
    } else {
      RowIo::template staged_run<N>(rows, j, kept);
      if (kTail && c - j < N) kept[N - 1] = Op::pad();
      return Op::template reduce<N>(kept);
    }
  });
}

// Stores a run's N values mapped(i) into the row's output (`out`: its element 0 in the output plane);
// a last run (kTail) its N - 1 or N elements of the row's c, mapping the last only where it is one.
template <int N, bool kTail, class Out, class Mapped>
__device__ inline void store_thread_row_run(Out* out, int j, int c, const Mapped& mapped) {
  if constexpr (kTail) {
#pragma unroll
    for (int i = 0; i < N - 1; ++i) out[j + i] = store_as<Out>(mapped(i));
    if (c - j == N) out[j + N - 1] = store_as<Out>(mapped(N - 1));
  } else {
    decltype(mapped(0)) values[N];
#pragma unroll
    for (int i = 0; i < N; ++i) values[i] = mapped(i);
    store_staged_run<N>(out, j, values);
  }
}

// Maps a run into the row's output.
template <class Op, class RowIo, int M, bool kTail>
__device__ inline void map_thread_row_run(const typename RowIo::Stored* const* rows, typename RowIo::Out* out, int j,
                                          int c, const typename Op::Final& fin) {
  with_run_length<M, kTail>(c - j, [&](auto length) {
    constexpr int N = decltype(length)::value;
    typename Op::In v[N];
    RowIo::template staged_run<N>(rows, j, v);
    store_thread_row_run<N, kTail>(out, j, c, [&](int i) { return Op::map(v[i], fin); });
  });
}

// Maps a run from what reduce_thread_row_run_keeping kept: terms times the run's `scale`
// (Op::kept_scale), or values.
template <class Op, int M, bool kTail, class Out, class Scale>
__device__ inline void map_thread_row_run_kept(Out* out, int j, int c, const typename Op::Acc* kept,
                                               const Scale& scale, const typename Op::Final& fin) {
  with_run_length<M, kTail>(c - j, [&](auto length) {
    store_thread_row_run<decltype(length)::value, kTail>(out, j, c, [&](int i) {
      if constexpr (kOpKeepsTerms<Op>) return Op::map_kept(kept[i], scale);
      else return Op::map(kept[i], fin);
    });
  });
}

// A thread row of at most kKeptRuns runs whose terms or values stay in registers (kTileKeepsRuns).
template <class Op, class RowIo, int kKeptRuns>
__device__ inline typename Op::Final thread_row_keeping(const typename RowIo::Stored* const* rows,
                                                        typename RowIo::Out* out, int c) {
  constexpr int K = kTileChunk;
  typename Op::Acc kept[kKeptRuns][K];
  typename Op::State runs[kKeptRuns];
  typename Op::State state = Op::identity();
#pragma unroll
  for (int r = 0; r < kKeptRuns && r * K < c; ++r) {
    runs[r] = r * K + K <= c ? reduce_thread_row_run_keeping<Op, RowIo, K, false>(rows, r * K, c, kept[r])
                             : reduce_thread_row_run_keeping<Op, RowIo, K, true>(rows, r * K, c, kept[r]);
    state = Op::combine(state, runs[r]);
  }
  const auto fin = Op::finalize(state);
#pragma unroll
  for (int r = 0; r < kKeptRuns && r * K < c; ++r) {
    const auto scale = [&] {
      if constexpr (kOpKeepsTerms<Op>) return Op::kept_scale(runs[r], fin);
      else return 0;  // values need none
    }();
    if (r * K + K <= c) map_thread_row_run_kept<Op, K, false>(out, r * K, c, kept[r], scale, fin);
    else map_thread_row_run_kept<Op, K, true>(out, r * K, c, kept[r], scale, fin);
  }
  return fin;
}

// A tile's row (`row` of the tensor, from plane element `start`) by one thread (groups of width 1):
// runs of kTileChunk elements, the whole ones without the per-element bound tests that only the
// row's last run needs.
template <class Op, int kKeptRuns, class Io>
__device__ inline void thread_row(const Io& io, const typename Io::Row::Stored* const* planes,
                                  typename Io::Row::Out* out, int64_t row, int start, int c) {
  using RowIo = typename Io::Row;
  constexpr int K = kTileChunk;
  const typename RowIo::Stored* rows[Io::kInputs];
#pragma unroll
  for (int i = 0; i < Io::kInputs; ++i) rows[i] = planes[i] + start;
  typename RowIo::Out* const out_row = out + start;
  if constexpr (kKeptRuns > 0 && kTileKeepsRuns<Op, RowIo>) {
    if (c <= kKeptRuns * K) return Op::emit(io, row, thread_row_keeping<Op, RowIo, kKeptRuns>(rows, out_row, c));
  }
  typename Op::State state = Op::identity();
  int j = 0;
  for (; j + K <= c; j += K) state = Op::combine(state, reduce_thread_row_run<Op, RowIo, K, false>(rows, j, c));
  if (j < c) state = Op::combine(state, reduce_thread_row_run<Op, RowIo, K, true>(rows, j, c));
  const auto fin = Op::finalize(state);
  for (j = 0; j + K <= c; j += K) map_thread_row_run<Op, RowIo, K, false>(rows, out_row, j, c, fin);
  if (j < c) map_thread_row_run<Op, RowIo, K, true>(rows, out_row, j, c, fin);
  Op::emit(io, row, fin);
}

// The tile's rows a thread each, a warp's rows kSpread apart. 16-bit rows of odd length sit c / 2
// 32-bit words apart, so with a row a lane two lanes of a warp met in each bank at every shared
// access; 2 rows apart, c words, an odd stride, each lane has its own bank (int8 outputs of bf16 rows
// of 43-57 columns 69 -> 93 %). The block's threads still take its first blockDim.x rows: warp w the
// rows of the same 64 as warp w ^ 1. A template, so that the kernels' other rows keep their code.
template <class Op, int kKeptRuns, int kSpread, class Io>
__device__ inline void thread_rows(const Io& io, const typename Io::Row::Stored* const* planes,
                                   typename Io::Row::Out* out, int64_t first_row, int tile_rows, int c) {
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const int first = (warp - warp % kSpread) * kWarpSize + lane * kSpread + warp % kSpread;
  for (int r = first; r < tile_rows; r += blockDim.x)
    thread_row<Op, kKeptRuns>(io, planes, out, first_row + r, r * c, c);
}

// A tile's rows a pair of threads each (groups of width 2), each thread a thread row over its part:
// the even lane the row's elements before `split` (even: runs start at even elements), the odd lane
// the rest; their states meet in one shuffle. The plan picks split near c / 2 where the pairs' shared
// accesses meet the fewest banks (tile_pair_split, dispatch/tile_plan.cuh). Rows too long for tiles of
// 256 thread rows to leave three blocks an SM take 128 a tile so.
template <class Op, class Io>
__device__ inline void pair_rows(const Io& io, const typename Io::Row::Stored* const* planes,
                                 typename Io::Row::Out* out, int64_t first_row, int tile_rows, int c, int split) {
  using RowIo = typename Io::Row;
  constexpr int K = kTileChunk;
  const int half = threadIdx.x & 1, pair = threadIdx.x >> 1, pairs = blockDim.x >> 1;
  const int begin = half ? split : 0, end = half ? c : split;
  // The trip count is the block's: every lane of a warp meets the shuffle, rows past the tile's too.
  for (int r = pair; r - pair < tile_rows; r += pairs) {
    const bool live = r < tile_rows;
    const typename RowIo::Stored* rows[Io::kInputs];
#pragma unroll
    for (int i = 0; i < Io::kInputs; ++i) rows[i] = planes[i] + r * c;
    typename Op::State state = Op::identity();
    int j = begin;
    for (; live && j + K <= end; j += K)
      state = Op::combine(state, reduce_thread_row_run<Op, RowIo, K, false>(rows, j, end));
    if (live && j < end) state = Op::combine(state, reduce_thread_row_run<Op, RowIo, K, true>(rows, j, end));
    state = warp_allreduce(state, CombineOf<Op>{}, 2);
    if (!live) continue;
    const auto fin = Op::finalize(state);
    typename RowIo::Out* const out_row = out + r * c;
    for (j = begin; j + K <= end; j += K) map_thread_row_run<Op, RowIo, K, false>(rows, out_row, j, end, fin);
    if (j < end) map_thread_row_run<Op, RowIo, K, true>(rows, out_row, j, end, fin);
    if (half == 0) Op::emit(io, first_row + r, fin);
  }
}

template <class Op, class Io, int kKeptRuns>
__global__ void __launch_bounds__(kTileThreads, kTileMinBlocksPerSm<Op, kKeptRuns>)
    tile_rows_kernel(Io io, int64_t rows, int64_t cols, int rows_per_tile, int width, int pair_split,
                     bool out_in_input_plane) {
  using RowIo = typename Io::Row;
  using Stored = typename RowIo::Stored;
  using Out = typename RowIo::Out;
  using State = typename Op::State;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  __shared__ State slots[2][kTileThreads / kWarpSize];
  static_assert(sizeof(slots) <= kTileStaticSmemBytes, "kTileStaticSmemBytes counts the slots");
  const int64_t in_plane = tile_plane_bytes(int64_t(rows_per_tile) * cols, sizeof(Stored));
  // Widths are powers of two: shifts, where a division by a runtime width cost ~40 instructions.
  const int width_log2 = __ffs(width) - 1;
  const int group_lane = threadIdx.x & (width - 1);
  const int group = threadIdx.x >> width_log2;
  const int groups = blockDim.x >> width_log2;
  const int c = static_cast<int>(cols);
  int parity = 0;
  for (int64_t first_row = int64_t(blockIdx.x) * rows_per_tile; first_row < rows;
       first_row += int64_t(gridDim.x) * rows_per_tile) {
    const int tile_rows = static_cast<int>(min(int64_t(rows_per_tile), rows - first_row));
    const int count = tile_rows * c;
    const RowIo tile = io.row(first_row);
    const Stored* planes[Io::kInputs];
#pragma unroll
    for (int i = 0; i < Io::kInputs; ++i) {
      Stored* staged = plane_start<Stored>(smem_bytes + i * in_plane, tile.input(i));
      stage_in(staged, tile.input(i), count);
      planes[i] = staged;
    }
    // In its own plane, or over the last input's (the plan's out_in_input_plane: same element size and
    // offset from 16 bytes), where a thread writes each element of its row after reading it.
    Out* out = plane_start<Out>(smem_bytes + (Io::kInputs - out_in_input_plane) * in_plane, tile.output());
    commit_async_copies();
    wait_async_copies<0>();
    __syncthreads();
    if (width == 1) {
      // Spread past 16 columns: shorter rows lost 1-5 points where each row emits (absmax_scale's
      // scales, written 2 rows apart).
      if (sizeof(Stored) == 2 && (c & 1) && c > 16)
        thread_rows<Op, kKeptRuns, 2>(io, planes, out, first_row, tile_rows, c);
      else
        thread_rows<Op, kKeptRuns, 1>(io, planes, out, first_row, tile_rows, c);
    }
    // Pair rows only in the kernel of rows that keep no runs: the others' rows are too short for them,
    // and their code there took a stack frame.
    constexpr bool kPairs = kKeptRuns == 0;
    if constexpr (kPairs) {
      if (width == 2) pair_rows<Op>(io, planes, out, first_row, tile_rows, c, pair_split);
    }
    // Else rows group by group; the trip count is the block's, so wide groups may meet at barriers.
    for (int r = group; width > (kPairs ? 2 : 1) && r - group < tile_rows; r += groups, parity ^= 1) {
      const bool live = r < tile_rows;
      const int row_start = r * c;
      State state = Op::identity();
      for (int e0 = group_lane; live && e0 < c; e0 += width * kTileChunk) {
        typename Op::In v[kTileChunk];
#pragma unroll
        for (int j = 0; j < kTileChunk; ++j) {
          const int e = e0 + j * width;
          v[j] = e < c ? RowIo::staged(planes, row_start + e) : Op::pad();
        }
        state = Op::combine(state, Op::template reduce<kTileChunk>(v));
      }
      state = group_allreduce<Op>(state, width, slots[parity]);
      if (!live) continue;
      const auto fin = Op::finalize(state);
#pragma unroll 4
      for (int e = group_lane; e < c; e += width) {
        out[row_start + e] = store_as<Out>(Op::map(RowIo::staged(planes, row_start + e), fin));
      }
      if (group_lane == 0) Op::emit(io, first_row + r, fin);
    }
    __syncthreads();
    stage_out(tile.output(), out, count);
    // The next tile's copies write the input planes, which this tile no longer reads (but where the
    // output lies over one: hence the barrier); its map writes the output plane only after the
    // barrier that follows those copies.
    if (out_in_input_plane) __syncthreads();
  }
}

}  // namespace rowwise
