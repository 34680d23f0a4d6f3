// Strategy `split`: rows of any length, on any architecture. Each row is cut into `chunks` slices of
// `chunk_packs` packs, one CTA each, over a co-resident (cooperative) grid. A CTA reduces its slice,
// keeping the first `held_packs` packs in shared memory, publishes its state in a global workspace
// and waits until the row's other slices have done the same; it then merges the row's states and maps
// its slice: the held part from shared memory (read once), the rest read again: that part was read
// last, so while a slice is not much larger than what all CTAs hold it still sits in L2.
//
// Held packs are copied asynchronously (cp.async), all in flight at once: loads through registers
// kept 32 KB in flight per CTA (~70 % of copy for 65536 fp32 columns, ~77 % with the copies). Copying
// the next slice into a second buffer while waiting measured slower (54 %: half the slice per buffer,
// twice the waits), and so did asking L2 to prefetch it (69 %: it evicted lines still to be read).
//
// No deadlock: the grid is co-resident and a multiple of `chunks` CTAs, so the slices of a row are
// always in one round of the grid, every one of them on a running CTA.
#pragma once
#include <algorithm>

#include "../primitives/async_copy.cuh"
#include "../primitives/block_reduce.cuh"
#include "../primitives/row_flags.cuh"
#include "planar_packs.cuh"
#include "row_common.cuh"

namespace rowwise {

struct SplitLayout {
  int64_t chunks;       // slices per row
  int64_t chunk_packs;  // packs per slice (the last slice of a row may be shorter or empty)
  int64_t held_packs;   // packs of a slice kept in shared memory
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

// The packs of a slice that one thread holds: begin + threadIdx.x + h * blockDim.x, h < kSplitHeldPerThread.
// Each thread reads back only the packs it copied, so the held buffer needs no barrier.
__device__ inline int64_t held_pack(int64_t begin, int h) { return begin + threadIdx.x + int64_t(h) * blockDim.x; }

// Where item `item` lies: its row and its packs [begin, end), the first up to held_end held.
struct SplitSlice {
  int64_t row, chunk, begin, end, held_end;
  int phase;
};

template <int N, class Io>
__device__ inline SplitSlice split_slice(const Io& io, int64_t item, int64_t cols, const SplitLayout& layout) {
  SplitSlice s;
  s.row = item / layout.chunks;
  s.chunk = item - s.row * layout.chunks;
  const RowSpan<Io, int64_t> span = row_span<N>(io, s.row, cols);
  s.phase = span.phase;
  const int64_t packs = span.packs;
  s.begin = s.chunk * layout.chunk_packs;
  s.end = packs < s.begin + layout.chunk_packs ? packs : s.begin + layout.chunk_packs;
  s.held_end = s.end < s.begin + layout.held_packs ? s.end : s.begin + layout.held_packs;
  return s;
}

// Starts copying the held packs of `slice` (a row's packs [begin, held_end)) into `held`, in
// kSplitHeldGroups commit groups. Row-edge packs (partly outside the row) and Io without async copies
// go through registers.
template <class Op, int N, class Io>
__device__ inline void copy_held_slice(const typename Io::Row& io, const PlanarPacks<Io, N>& held,
                                       const SplitSlice& slice, int64_t cols) {
  const int64_t begin = slice.begin;
  constexpr int per_group = kSplitHeldPerThread / kSplitHeldGroups;
  // One group at a time: unrolled over all groups, ptxas spilled in the main kernels (fp32 gradients:
  // 48 + 104 bytes, 8-pack bf16: 32 + 32), which cost 7-9 points of copy (softmax_backward fp32 65536:
  // 69 -> 78 %, bf16 softmax 131072: 60 -> 68 %).
#pragma unroll 1
  for (int g = 0; g < kSplitHeldGroups; ++g) {
#pragma unroll
    for (int i = 0; i < per_group; ++i) {
      const int64_t p = held_pack(begin, g * per_group + i);
      if (p >= slice.held_end) continue;
      const int64_t col = p * N - slice.phase;
      if constexpr (Io::Row::template kAsyncCopy<N>) {
        if (col >= 0 && col + N <= cols) {
          held.copy_async(io, p - begin, col);
          continue;
        }
      }
      held.put(p - begin, load_pack_of_row<Op, N>(io, col, cols));
    }
    commit_async_copies();
  }
}

// The thread's state over its held packs, each commit group reduced as soon as it has landed. No
// copies newer than the slice's may be in flight.
template <class Op, int N, class Io, int G = 0>
__device__ inline void reduce_held_slice(const PlanarPacks<Io, N>& held, int64_t begin, int64_t held_end,
                                         typename Op::State& state) {
  using RowIo = typename Io::Row;
  if constexpr (G < kSplitHeldGroups) {
    constexpr int per_group = kSplitHeldPerThread / kSplitHeldGroups;
    wait_async_copies<kSplitHeldGroups - 1 - G>();
    PackedOf<RowIo, N> v[per_group];
#pragma unroll
    for (int i = 0; i < per_group; ++i) {
      const int64_t p = held_pack(begin, G * per_group + i);
      v[i] = p < held_end ? held.get(p - begin) : pad_pack<Op, N, RowIo>();
    }
    state = Op::combine(state, reduce_packs<Op, N, per_group, RowIo>(v));
    reduce_held_slice<Op, N, Io, G + 1>(held, begin, held_end, state);
  }
}

template <class Op, int N, class Io>
__global__ void __launch_bounds__(kSplitThreads, kSplitBlocksPerSm)
    split_rows_kernel(Io io, int64_t rows, int64_t cols, SplitLayout layout, SplitWorkspace<typename Op::State> ws) {
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
  SplitSlice s = split_slice<N>(io, blockIdx.x, cols, layout);
  copy_held_slice<Op, N, Io>(io.row(s.row), held, s, cols);
  for (int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    const auto row_io = io.row(s.row);
    State state = Op::identity();
    reduce_held_slice<Op, N, Io>(held, s.begin, s.held_end, state);
    state = Op::combine(state, reduce_streamed_packs<Op, N, U>(row_io, s.held_end, s.end, s.phase, cols));
    state = block_allreduce(state, CombineOf<Op>{}, Op::identity(), slots[0]);

    if (threadIdx.x == 0) {
      ws.states[item] = state;
      add_release(&ws.arrived[s.row], 1);
      wait_at_least(&ws.arrived[s.row], static_cast<unsigned>(layout.chunks));
    }
    __syncthreads();  // the row's states are all published
    State row_state = Op::identity();
    for (int64_t i = threadIdx.x; i < layout.chunks; i += blockDim.x)
      row_state = Op::combine(row_state, load_from_l2(ws.states + s.row * layout.chunks + i));
    row_state = block_allreduce(row_state, CombineOf<Op>{}, Op::identity(), slots[1]);
    if (ws.departed != nullptr && threadIdx.x == 0) {
      // Every CTA of the row has passed its wait once all have departed: the last one re-arms the row.
      unsigned* departed = &ws.departed[s.row];
      if (atomicAdd(departed, 1u) == static_cast<unsigned>(layout.chunks) - 1) {
        ws.arrived[s.row] = 0;
        *departed = 0;
      }
    }

    const auto fin = Op::finalize(row_state);
    for (int64_t p = s.begin + threadIdx.x; p < s.held_end; p += blockDim.x)
      map_and_store_pack<Op, N>(row_io, held.get(p - s.begin), fin, p * N - s.phase, cols);
    SplitSlice next = s;
    next.held_end = next.begin;  // no next slice: nothing to copy
    if (item + gridDim.x < items) next = split_slice<N>(io, item + gridDim.x, cols, layout);
    copy_held_slice<Op, N, Io>(io.row(next.row), held, next, cols);
    map_streamed_packs<Op, N, U>(row_io, fin, s.held_end, s.end, s.phase, cols);
    if (s.chunk == 0 && threadIdx.x == 0) Op::emit(io, s.row, fin);
    __syncthreads();  // slots are reused by the next item (held packs are each thread's own)
    s = next;
  }
}

}  // namespace rowwise
