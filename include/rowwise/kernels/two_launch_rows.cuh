// Strategy `two_launch`: rows far longer than the GPU holds on chip (a 1 GiB tensor as one row). A
// row's whole packs are cut into batches, taken in turn by the row's `chunks` CTAs; one launch reduces
// each CTA's batches to a state in a workspace, a second merges the row's states and maps the batches
// again, reading the row a second time. Split reads the part its CTAs hold once (~28 MB of a row on
// an H200) but streams the rest twice all the same, in loops bounded by its held packs' registers,
// with a grid-wide wait between; here each launch is a plain streaming loop, nothing co-resident, no
// counters, no waits.
#pragma once
#include "../primitives/async_copy.cuh"
#include "../primitives/block_reduce.cuh"
#include "planar_packs.cuh"
#include "row_common.cuh"
#include "split_rows.cuh"

namespace rowwise {

// Packs a thread loads before it reduces them (and maps them, for Io without asynchronous copies):
// 128 bytes, 8 fp32 packs (split streams 64 between its held packs).
inline constexpr int kTwoLaunchBatchBytes = 128;
template <int N, class Io> inline constexpr int kTwoLaunchBatch = kBatchPacks<kTwoLaunchBatchBytes, N, Io>;

// A row as the two launches walk it: whole packs [lo, hi) in batches, its partial first and last packs
// ([0, lo) and [hi, packs): at most one each) through the checked loops of row_common.cuh.
template <class Io> struct BatchedRow {
  typename Io::Row io;
  int phase;
  int64_t lo, hi, packs;
};
template <int N, class Io> __device__ inline BatchedRow<Io> batched_row(const Io& io, int64_t row, int64_t cols) {
  const RowSpan<Io, int64_t> span = row_span<N>(io, row, cols);
  const int64_t lo = span.phase != 0 ? 1 : 0;
  const int64_t hi = (cols + span.phase) / N;
  return {span.io, span.phase, lo, hi > lo ? hi : lo, span.packs};
}

// Where a CTA's batches of U packs a thread start: the row's CTAs take neighbouring batches in turn,
// so that all of them stream one stretch of the row at a time, as a copy's blocks do (each CTA a
// contiguous slice of its own: the map ran at 68 % of DRAM peak, ncu, H200, fp32 1 GiB).
struct BatchWalk {
  int64_t first, stride;
};
template <int U> __device__ inline BatchWalk batch_walk(int64_t lo, int64_t chunk, int64_t chunks) {
  return {lo + chunk * U * kSplitThreads, chunks * U * kSplitThreads};
}

// A thread's packs of the batch at `first`: first + threadIdx.x + u * kSplitThreads, those from hi on
// skipped. The stride is the kernels' block size as a constant, so that a batch takes one address
// register and offsets (with blockDim.x the fp32 softmax map spilled).
template <int N, int U, class RowIo>
__device__ inline void load_whole_batch(const RowIo& io, PackedOf<RowIo, N>* v, int64_t first, int64_t hi, int phase) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    if (first + threadIdx.x + u * kSplitThreads < hi)
      v[u] = io.template load_packed<N>((first + threadIdx.x) * N - phase + u * kSplitThreads * N);
  }
}

template <class Op, int N, int U, class Io>
__device__ inline typename Op::State reduce_whole_packs(const BatchedRow<Io>& r, BatchWalk walk) {
  using RowIo = typename Io::Row;
  typename Op::State state = Op::identity();
  for (int64_t first = walk.first; first < r.hi; first += walk.stride) {
    PackedOf<RowIo, N> v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = pad_pack<Op, N, RowIo>();
    load_whole_batch<N, U>(r.io, v, first, r.hi, r.phase);
    state = Op::combine(state, reduce_packs<Op, N, U, RowIo>(v));
  }
  return state;
}

// Maps a pack wholly inside the row and stores it (no bounds tests).
template <class Op, int N, class RowIo>
__device__ inline void map_and_store_whole_pack(const RowIo& io, const PackedOf<RowIo, N>& packed,
                                                const typename Op::Final& fin, int64_t col) {
  typename Op::In values[N];
  RowIo::template unpack<N>(packed, values);
  typename Op::Acc out[N];
#pragma unroll
  for (int i = 0; i < N; ++i) out[i] = Op::map(values[i], fin);
  io.template store<N>(out, col);
}

// The map through registers, for Io without asynchronous copies.
template <class Op, int N, int U, class Io>
__device__ inline void map_whole_packs(const BatchedRow<Io>& r, BatchWalk walk, const typename Op::Final& fin) {
  for (int64_t first = walk.first; first < r.hi; first += walk.stride) {
    PackedOf<typename Io::Row, N> v[U];
    load_whole_batch<N, U>(r.io, v, first, r.hi, r.phase);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (first + threadIdx.x + u * kSplitThreads < r.hi)
        map_and_store_whole_pack<Op, N>(r.io, v[u], fin, (first + threadIdx.x) * N - r.phase + u * kSplitThreads * N);
    }
  }
}

// The map with its loads kTwoLaunchStages - 1 batches ahead, copied (cp.async) into a ring of stages
// in shared memory, each thread's own slots: through registers a thread had loads in flight only
// between its batches' stores.
inline constexpr int kTwoLaunchStages = 3;
inline constexpr int kTwoLaunchStageBytes = 64;  // a thread's batch: 3 stages of 256 threads, 48 KB a CTA
template <int N, class Io> inline constexpr int kTwoLaunchStagePacks = kBatchPacks<kTwoLaunchStageBytes, N, Io>;
template <int N, class Io>
inline constexpr int64_t kTwoLaunchRingBytes =
    int64_t{kTwoLaunchStages} * kTwoLaunchStagePacks<N, Io> * kSplitThreads * kPackStoredBytes<N, Io>;

template <class Op, int N, class Io>
__device__ inline void map_whole_packs_ahead(const BatchedRow<Io>& r, BatchWalk walk, const PlanarPacks<Io, N>& ring,
                                             const typename Op::Final& fin) {
  constexpr int U = kTwoLaunchStagePacks<N, Io>;
  constexpr int S = kTwoLaunchStages;
  auto copy_batch = [&](int64_t first, int stage) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int64_t p = first + threadIdx.x + u * kSplitThreads;
      if (p < r.hi) ring.copy_async(r.io, (stage * U + u) * kSplitThreads + threadIdx.x, p * N - r.phase);
    }
    commit_async_copies();  // empty past hi: every batch is one group, so the wait below counts batches
  };
#pragma unroll
  for (int s = 0; s < S - 1; ++s) copy_batch(walk.first + s * walk.stride, s);
  int stage = 0;
  for (int64_t first = walk.first; first < r.hi; first += walk.stride) {
    // Into the stage the previous batch was mapped from (this thread's slots: no barrier).
    copy_batch(first + (S - 1) * walk.stride, stage == 0 ? S - 1 : stage - 1);
    wait_async_copies<S - 1>();
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (first + threadIdx.x + u * kSplitThreads < r.hi)
        map_and_store_whole_pack<Op, N>(r.io, ring.get((stage * U + u) * kSplitThreads + threadIdx.x), fin,
                                        (first + threadIdx.x) * N - r.phase + u * kSplitThreads * N);
    }
    stage = stage == S - 1 ? 0 : stage + 1;
  }
}

// First launch: a state a CTA of every row (rows * chunks of them) into `states`.
template <class Op, int N, class Io>
__global__ void __launch_bounds__(kSplitThreads, kSplitBlocksPerSm)
    two_launch_reduce_kernel(Io io, int64_t rows, int64_t cols, int64_t chunks, typename Op::State* states) {
  wait_for_prior_grid();
  using State = typename Op::State;
  constexpr int U = kTwoLaunchBatch<N, Io>;
  __shared__ State slots[2][kMaxWarpsPerBlock];
  int parity = 0;
  for (int64_t item = blockIdx.x; item < rows * chunks; item += gridDim.x, parity ^= 1) {
    const int64_t row = item / chunks, chunk = item - row * chunks;
    const BatchedRow<Io> r = batched_row<N>(io, row, cols);
    State state = reduce_whole_packs<Op, N, U>(r, batch_walk<U>(r.lo, chunk, chunks));
    if (chunk == 0) {
      state = Op::combine(state, reduce_streamed_packs<Op, N, 1>(r.io, int64_t{0}, r.lo, r.phase, cols));
      state = Op::combine(state, reduce_streamed_packs<Op, N, 1>(r.io, r.hi, r.packs, r.phase, cols));
    }
    state = block_allreduce(state, CombineOf<Op>{}, Op::identity(), slots[parity]);
    if (threadIdx.x == 0) states[item] = state;
  }
}

// Second launch: each CTA's batches mapped with its row's merged states. Dynamic shared memory: the
// ring, kTwoLaunchRingBytes where the Io copies asynchronously.
template <class Op, int N, class Io>
__global__ void __launch_bounds__(kSplitThreads, kSplitBlocksPerSm)
    two_launch_map_kernel(Io io, int64_t rows, int64_t cols, int64_t chunks, const typename Op::State* states) {
  wait_for_prior_grid();
  using State = typename Op::State;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  __shared__ State slots[2][kMaxWarpsPerBlock];
  const PlanarPacks<Io, N> ring{reinterpret_cast<typename PlanarPacks<Io, N>::Part*>(smem_bytes),
                                kTwoLaunchStages * kTwoLaunchStagePacks<N, Io> * kSplitThreads};
  int parity = 0;
  for (int64_t item = blockIdx.x; item < rows * chunks; item += gridDim.x, parity ^= 1) {
    const int64_t row = item / chunks, chunk = item - row * chunks;
    const auto fin = Op::finalize(
        merge_row_states<Op>(states + row * chunks, chunks, slots[parity], [](const State* p) { return *p; }));
    const BatchedRow<Io> r = batched_row<N>(io, row, cols);
    if constexpr (Io::Row::template kAsyncCopy<N>) {
      map_whole_packs_ahead<Op, N>(r, batch_walk<kTwoLaunchStagePacks<N, Io>>(r.lo, chunk, chunks), ring, fin);
    } else {
      constexpr int U = kTwoLaunchBatch<N, Io>;
      map_whole_packs<Op, N, U>(r, batch_walk<U>(r.lo, chunk, chunks), fin);
    }
    if (chunk == 0) {
      map_streamed_packs<Op, N, 1>(r.io, fin, int64_t{0}, r.lo, r.phase, cols);
      map_streamed_packs<Op, N, 1>(r.io, fin, r.hi, r.packs, r.phase, cols);
      if (threadIdx.x == 0) Op::emit(io, row, fin);
    }
  }
}

}  // namespace rowwise
