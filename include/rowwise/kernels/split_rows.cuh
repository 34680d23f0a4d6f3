// Strategy `split`: rows of any length, on any architecture. Each row is spread over `chunks` CTAs
// of a co-resident (cooperative) grid. A CTA reduces its part of the row, keeping the first
// `held_packs` packs of it in shared memory, publishes its state in a global workspace and waits until
// the row's other CTAs have done the same; it then merges the row's states and maps its part: the held
// packs from shared memory (read once), the rest read again: that part was read last, so while it is
// not much larger than what all CTAs hold it still sits in L2.
//
// The held packs are interleaved: the row's first chunks * held_packs packs are cut into pieces of
// kSplitPieceBytes (or a warp's packs), and CTA c holds pieces c, c + chunks, c + 2 * chunks, ... The
// rest of the row, if any, is cut into `chunks` contiguous tails, streamed. Why: a row's CTAs then read
// and write neighbouring bytes at any moment, not `chunks` separate streams (contiguous slices: H200
// gradients of 196608-524288 columns 76-79 % of copy, interleaved 81-83; fp32 absmax_scale 71-77 ->
// 81-83; ragged rows lose 1-4: docs/perf.md, "Split's held packs interleaved").
//
// Held packs are copied asynchronously (cp.async), all in flight at once: loads through registers
// kept 32 KB in flight per CTA (~70 % of copy for 65536 fp32 columns, ~77 % with the copies). Copying
// the next slice into a second buffer while waiting measured slower (54 %: half the slice per buffer,
// twice the waits), and so did asking L2 to prefetch it (69 %: it evicted lines still to be read).
//
// No deadlock: the grid is co-resident and a multiple of `chunks` CTAs, so the CTAs of a row are
// always in one round of the grid, every one of them running.
#pragma once
#include <algorithm>

#include "../primitives/async_copy.cuh"
#include "../primitives/block_reduce.cuh"
#include "../primitives/row_flags.cuh"
#include "planar_packs.cuh"
#include "row_common.cuh"

namespace rowwise {

struct SplitLayout {
  int64_t chunks;        // CTAs a row
  int64_t held_packs;    // packs a CTA holds in shared memory, whole pieces
  int64_t stream_packs;  // packs a CTA streams past the row's held region (zero while it holds the row)
};

// Per launch: one state per slice, one arrival count per row, zero when the launch starts. A caller's
// workspace is left zeroed again, counting departures too (the last CTA of a row to leave resets it);
// a launch that zeroes its counters first passes no `departed`, and its CTAs leave without a count:
// that returning atomic, once a slice, delayed each slice's map (fp32 softmax_backward of 131072 columns
// 75 -> 79 %).
template <class State> struct SplitWorkspace {
  State* states;      // rows * chunks
  unsigned* arrived;  // rows
  unsigned* departed; // rows, or null
};

// Four CTAs of 256 threads an SM (not two of 512): while some wait for their rows, others stream
// (bf16 65536 columns: 58 -> 68 %).
inline constexpr int kSplitThreads = 256;
inline constexpr int kSplitBlocksPerSm = 4;
// Held packs per thread, copied in kSplitHeldGroups commit groups: reducing a group as it lands
// overlaps the math with the copies still in flight. (Scaled up for narrow packs, so that odd-length
// rows held as many bytes as aligned ones, it measured the same: 63-75 % at 65537 columns.)
inline constexpr int kSplitHeldPerThread = 16;
inline constexpr int kSplitHeldGroups = 4;
// Bytes of packs a thread loads before it uses them where a slice is streamed (the tails of slices
// longer than a CTA holds): 4 fp32 packs of one input (8 measured slower on 1 GiB tensors); at most 8
// narrow packs (an unrolled batch of 32 bf16 scalars spilled).
inline constexpr int kSplitBatchBytes = 64;
inline constexpr int kSplitMaxBatch = 8;
// Packs in a thread's batch of `Bytes` (one at least, kSplitMaxBatch at most).
template <int Bytes, int N, class Io>
inline constexpr int kBatchPacks = std::clamp(Bytes / kPackStoredBytes<N, Io>, 1, kSplitMaxBatch);
template <int N, class Io> inline constexpr int kSplitBatch = kBatchPacks<kSplitBatchBytes, N, Io>;

// Packs of a held piece: kSplitPieceBytes, at least a warp's packs and at most a CTA's (a power of two
// dividing kSplitThreads, as held_pack's strides need). Compile-time: the kernel's registers are few.
inline constexpr int kSplitPieceBytes = 512;
constexpr int split_piece_packs(int pack_bytes) {
  int packs = kWarpSize;
  while (packs * 2 <= kSplitThreads && packs * 2 * pack_bytes <= kSplitPieceBytes) packs *= 2;
  return packs;
}
template <int N, class Io> inline constexpr int kSplitPiecePacks = split_piece_packs(kPackStoredBytes<N, Io>);

// Where item `item` lies: its row, the thread's first held pack, how many packs it holds (of the row's
// held region, its first min(packs, chunks * held_packs) packs) and the CTA's streamed packs
// [begin, end).
struct SplitSlice {
  int64_t row, held_first, begin, end;
  int phase, held;
};

// The thread's held pack h: held.get(held_index(h)) holds the row's pack held_pack(s, chunks, h) while
// h < s.held. The CTA's kSplitThreads packs of one h are kSplitThreads / kSplitPiecePacks of its
// pieces, the next h the pieces after (a row has at most the resident CTAs: 32-bit strides). Each
// thread reads back only the packs it copied, so the held buffer needs no barrier. (The pieces' places
// multiplied out in 64 bits where used spilled 60-220 bytes in the main kernels.)
__device__ inline int held_index(int h) { return threadIdx.x + h * kSplitThreads; }
__device__ inline int64_t held_pack(const SplitSlice& s, int64_t chunks, int h) {
  return s.held_first + h * (static_cast<int>(chunks) * kSplitThreads);
}

template <int N, class Io>
__device__ inline SplitSlice split_slice(const Io& io, int64_t item, int64_t cols, const SplitLayout& layout) {
  SplitSlice s;
  s.row = item / layout.chunks;
  const int64_t chunk = item - s.row * layout.chunks;
  constexpr int piece = kSplitPiecePacks<N, Io>;
  s.held_first = (threadIdx.x / piece * layout.chunks + chunk) * piece + threadIdx.x % piece;
  const RowSpan<Io, int64_t> span = row_span<N>(io, s.row, cols);
  s.phase = span.phase;
  const int64_t packs = span.packs;
  const int64_t held = layout.chunks * layout.held_packs;
  const int64_t held_end = packs < held ? packs : held;
  // Counted (at most kSplitHeldPerThread steps), not divided: with a 64-bit division ptxas spilled more.
  s.held = 0;
#pragma unroll 1
  for (int64_t p = held_pack(s, layout.chunks, 0); s.held < kSplitHeldPerThread && p < held_end;
       p += layout.chunks * kSplitThreads)
    ++s.held;
  s.begin = held + chunk * layout.stream_packs;
  s.end = packs < s.begin + layout.stream_packs ? packs : s.begin + layout.stream_packs;
  return s;
}

// Starts copying the held packs of `slice` into `held`, in kSplitHeldGroups commit groups. Row-edge
// packs (partly outside the row) and Io without async copies go through registers.
template <class Op, int N, class Io>
__device__ inline void copy_held_slice(const typename Io::Row& io, const PlanarPacks<Io, N>& held,
                                       const SplitSlice& slice, int64_t chunks, int64_t cols) {
  constexpr int per_group = kSplitHeldPerThread / kSplitHeldGroups;
  // One group at a time: unrolled over all groups, ptxas spilled in the main kernels (fp32 gradients:
  // 48 + 104 bytes, 8-pack bf16: 32 + 32), which cost 7-9 points of copy (softmax_backward fp32 65536:
  // 69 -> 78 %, bf16 softmax 131072: 60 -> 68 %).
#pragma unroll 1
  for (int g = 0; g < kSplitHeldGroups; ++g) {
    int64_t p = held_pack(slice, chunks, g * per_group);
#pragma unroll
    for (int i = 0; i < per_group; ++i, p += static_cast<int>(chunks) * kSplitThreads) {
      const int h = g * per_group + i;
      if (h >= slice.held) continue;
      const int64_t col = p * N - slice.phase;
      if constexpr (Io::Row::template kAsyncCopy<N>) {
        if (col >= 0 && col + N <= cols) {
          held.copy_async(io, held_index(h), col);
          continue;
        }
      }
      held.put(held_index(h), load_pack_of_row<Op, N>(io, col, cols));
    }
    commit_async_copies();
  }
}

// The thread's state over its held packs, each commit group reduced as soon as it has landed. No
// copies newer than the slice's may be in flight.
template <class Op, int N, class Io, int G = 0>
__device__ inline void reduce_held_slice(const PlanarPacks<Io, N>& held, const SplitSlice& slice, int64_t chunks,
                                         typename Op::State& state) {
  using RowIo = typename Io::Row;
  if constexpr (G < kSplitHeldGroups) {
    constexpr int per_group = kSplitHeldPerThread / kSplitHeldGroups;
    wait_async_copies<kSplitHeldGroups - 1 - G>();
    PackedOf<RowIo, N> v[per_group];
#pragma unroll
    for (int i = 0; i < per_group; ++i) {
      const int h = G * per_group + i;
      v[i] = h < slice.held ? held.get(held_index(h)) : pad_pack<Op, N, RowIo>();
    }
    state = Op::combine(state, reduce_packs<Op, N, per_group, RowIo>(v));
    reduce_held_slice<Op, N, Io, G + 1>(held, slice, chunks, state);
  }
}

// A row's state: its `chunks` CTAs' states (row_states[0, chunks)) merged by the block; `load` reads one
// (split reads past L1: the states were written during its launch). Each thread loads up to
// kMergeLoads states before it combines any, so that a row of up to kMergeLoads * blockDim.x CTAs (a
// whole tensor: 528 on an H100 or H200) merges in one round trip to L2, not three in series (H100,
// fp32 tensor_softmax of 16 MiB: the merge 3.6 -> 2.3 us, the call 22.7 -> 22.0 us).
inline constexpr int kMergeLoads = 4;
template <class Op, class Load>
__device__ inline typename Op::State merge_row_states(const typename Op::State* row_states, int64_t chunks,
                                                      typename Op::State* slots, Load load) {
  using State = typename Op::State;
  State state = Op::identity();
  for (int64_t first = threadIdx.x; first < chunks; first += kMergeLoads * blockDim.x) {
    State loaded[kMergeLoads];
#pragma unroll
    for (int i = 0; i < kMergeLoads; ++i) {
      const int64_t c = first + i * int64_t(blockDim.x);
      loaded[i] = c < chunks ? load(row_states + c) : Op::identity();
    }
#pragma unroll
    for (int i = 0; i < kMergeLoads; ++i) state = Op::combine(state, loaded[i]);
  }
  return block_allreduce(state, CombineOf<Op>{}, Op::identity(), slots);
}

template <class Op, int N, class Io>
__global__ void __launch_bounds__(kSplitThreads, kSplitBlocksPerSm)
    split_rows_kernel(Io io, int64_t rows, int64_t cols, SplitLayout layout, SplitWorkspace<typename Op::State> ws) {
  wait_for_prior_grid();
  using State = typename Op::State;
  constexpr int U = kSplitBatch<N, Io>;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  __shared__ State slots[2][kMaxWarpsPerBlock];
  const PlanarPacks<Io, N> held{reinterpret_cast<typename PlanarPacks<Io, N>::Part*>(smem_bytes),
                                static_cast<int>(layout.held_packs)};
  const int64_t items = rows * layout.chunks;
  if (blockIdx.x >= items) return;
  // Each slice's copies start as soon as the previous slice's held packs are mapped (ptxas allocates
  // the kernel without spills this way; issued at the top of the loop, the fp32 gradients spilled).
  // The slice is worked out again when its turn comes: kept alive from its copies through the map of
  // the slice before, it spilled (fp32 absmax_scale 96 + 44 bytes, 7-15 points of copy).
  {
    const SplitSlice first = split_slice<N>(io, blockIdx.x, cols, layout);
    copy_held_slice<Op, N, Io>(io.row(first.row), held, first, layout.chunks, cols);
  }
  for (int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    const SplitSlice s = split_slice<N>(io, item, cols, layout);
    const auto row_io = io.row(s.row);
    State state = Op::identity();
    reduce_held_slice<Op, N, Io>(held, s, layout.chunks, state);
    state = Op::combine(state, reduce_streamed_packs<Op, N, U>(row_io, s.begin, s.end, s.phase, cols));
    state = block_allreduce(state, CombineOf<Op>{}, Op::identity(), slots[0]);

    if (threadIdx.x == 0) {
      ws.states[item] = state;
      add_release(&ws.arrived[s.row], 1);
      wait_at_least(&ws.arrived[s.row], static_cast<unsigned>(layout.chunks));
    }
    __syncthreads();  // the row's states are all published
    const State row_state = merge_row_states<Op>(ws.states + s.row * layout.chunks, layout.chunks, slots[1],
                                                 [](const State* p) { return load_from_l2(p); });
    if (ws.departed != nullptr && threadIdx.x == 0) {
      // Every CTA of the row has passed its wait once all have departed: the last one re-arms the row.
      unsigned* departed = &ws.departed[s.row];
      if (atomicAdd(departed, 1u) == static_cast<unsigned>(layout.chunks) - 1) {
        ws.arrived[s.row] = 0;
        *departed = 0;
      }
    }

    const auto fin = Op::finalize(row_state);
#pragma unroll 1
    for (int h = 0; h < s.held; ++h)
      map_and_store_pack<Op, N>(row_io, held.get(held_index(h)), fin, held_pack(s, layout.chunks, h) * N - s.phase,
                                cols);
    if (item + gridDim.x < items) {
      const SplitSlice next = split_slice<N>(io, item + gridDim.x, cols, layout);
      copy_held_slice<Op, N, Io>(io.row(next.row), held, next, layout.chunks, cols);
    }
    map_streamed_packs<Op, N, U>(row_io, fin, s.begin, s.end, s.phase, cols);
    if (threadIdx.x == 0 && s.held_first == 0) Op::emit(io, s.row, fin);  // the row's first CTA
    __syncthreads();  // slots are reused by the next item (held packs are each thread's own)
  }
}

}  // namespace rowwise
