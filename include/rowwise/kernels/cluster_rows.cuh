// Strategy `cluster` (Hopper and newer): a row split over the C CTAs of a thread-block cluster, each
// holding its slice in registers as the `block` strategy does (blockDim.x threads, K packs each). Each
// CTA reduces its slice, publishes the state in shared memory, and every CTA merges the C states
// through distributed shared memory: the row is read once and written once, whatever its length up
// to C * blockDim.x * K packs (more with tail slices, below), and a few long rows still spread over C SMs
// each.
#pragma once
#include <cooperative_groups.h>

#include "../primitives/async_copy.cuh"
#include "../primitives/block_reduce.cuh"
#include "../primitives/cluster_exchange.cuh"
#include "block_rows.cuh"
#include "block_smem_rows.cuh"
#include "planar_packs.cuh"
#include "row_common.cuh"

namespace rowwise {

// Split arrive/wait of the cluster barrier: a CTA's shared state must outlive its peers' reads, but
// nothing else needs to wait for that.
__device__ inline void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ inline void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

// The row's state from each CTA's (`mine`, the same in all its threads) over the cluster's `size` CTAs:
// published in `cta_state`, gathered over distributed shared memory by one warp into `row_state`. Ends
// arrived at the cluster barrier: call cluster_wait before `cta_state` is written again.
template <class Op>
__device__ inline typename Op::State cluster_allreduce(const typename Op::State& mine, unsigned size,
                                                       typename Op::State* cta_state, typename Op::State* row_state) {
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) *cta_state = mine;
  cluster.sync();
  if (threadIdx.x < kWarpSize) {  // one warp gathers the cluster's states (size <= 32)
    typename Op::State s = threadIdx.x < size ? *cluster.map_shared_rank(cta_state, threadIdx.x) : Op::identity();
    s = warp_allreduce(s, CombineOf<Op>{});
    if (threadIdx.x == 0) *row_state = s;
  }
  cluster_arrive();
  __syncthreads();
  return *row_state;
}

template <class Op, int N, int K, class Io>
inline constexpr int kClusterMinBlocksPerSm = kOpBoundsClusterSlices<Op> ? kBlockMinBlocksPerSm<Op, N, K, Io> : 0;

// Dense slices: 16-bit gradient slices of kDenseSlicePacks packs a thread in CTAs of at most
// kDenseSliceThreads threads, bounded so that an SM holds kDenseSliceCtasPerSm of them (48 registers,
// where unbounded they take 54-62 and an SM two): more clusters of 16 resident at once, more of their
// rows in flight (dispatch/block_plan.cuh: dense_cluster_slices).
inline constexpr int kDenseSlicePacks = 4;
inline constexpr int kDenseSliceThreads = 416;
inline constexpr int kDenseSliceCtasPerSm = 3;
// Ios whose output moves in the inputs' packs say so (Io::kOutputOnInputPacks); the others' dense slices
// spill (20-72 bytes), and are not built.
template <class Io, class = void> inline constexpr bool kOutputOnInputPacks = false;
template <class Io>
inline constexpr bool kOutputOnInputPacks<Io, std::void_t<decltype(Io::kOutputOnInputPacks)>> = Io::kOutputOnInputPacks;
template <int N, int K, class Io>
inline constexpr bool kDenseClusterSlices =
    Io::kInputs == 2 && kBlockEdgePacks<N, Io> && K == kDenseSlicePacks && kOutputOnInputPacks<Io>;

// Hopper's largest (non-portable) cluster.
inline constexpr int kMaxClusterCtas = 16;

// kEdge: the first threads of rank 0 take the row's edge and the cluster holds its whole packs only, as
// block rows do (dispatch/block_plan.cuh: cluster_rows_take_edge). kPush: the row's states merge by
// cluster_exchange, else at cluster barriers (cluster_allreduce). kTail: each CTA's slice goes on past its
// threads' K packs in dynamic shared memory (tail slices, below).
template <class Op, int N, int K, bool kEdge, bool kPush, class Io, bool kTail = false>
__device__ inline void cluster_rows(Io io, int64_t rows, int64_t cols) {
  wait_for_prior_grid();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // clusters need sm_90; dispatch never picks this strategy below compute capability 9
#else
  using RowIo = typename Io::Row;
  using State = typename Op::State;
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned size = cluster.num_blocks();
  const int slice_packs = blockDim.x * K;
  const int row_cols = static_cast<int>(cols);  // at most 16 CTAs * 1024 threads * 8 packs: 32-bit indices
  // fp32 softmax and log_softmax rows of whole packs (no phase, cols a multiple of N: every row of an
  // aligned tensor) on looping clusters move without the bounds tests of partial packs: H200, 256 MiB,
  // fp32 softmax / log_softmax of 100000-200000 columns +4.3 to +6.2 points, 262144 +1.3 to +1.7, 131072
  // -0.2 / -0.4. The other ops and dtypes lost so, most by 11-29 points (bf16 log_softmax, gradients and
  // abs-max, fp32 abs-max; bf16 log_softmax's slices of 8 packs took 93 registers, 79 before), or gained
  // less than they lost (bf16 softmax_backward -0.9 to +2.9); cluster-a-row slices of bf16 softmax lost
  // 1.5-3.5 (docs/perf.md "Whole rows on looping clusters; softmax's exps kept in bf16").
  constexpr bool kWholeRowPath = kPush && kOpExpPerElement<Op> && kPackStoredBytes<N, Io> == 4 * N;
  // Two sets of block slots where no cluster barrier keeps a warp's next row from overwriting a slot that
  // another warp has yet to read.
  __shared__ State slots[kPush ? 2 : 1][kMaxWarpsPerBlock];
  __shared__ State cta_state;
  __shared__ State row_state;
  __shared__ ClusterStates<State, kMaxClusterCtas> pushed;
  if constexpr (kPush) cluster_exchange_init(pushed);
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  const PlanarPacks<Io, N> tail{reinterpret_cast<typename PlanarPacks<Io, N>::Part*>(smem_bytes),
                                kTail ? static_cast<int>(dynamic_smem_bytes() / sizeof(PackedOf<RowIo, N>)) : 0};
  unsigned count = 0;  // rows this cluster has taken (only its two low bits matter: it may wrap)
  for (int64_t row = blockIdx.x / size; row < rows; row += gridDim.x / size, ++count) {
    const auto [row_io, phase, packs] = row_span<N>(io, row, row_cols);
    const HeldPacks held = held_packs<N, kEdge>(row_cols, phase, packs);  // the cluster's
    const int cta_packs = kTail ? slice_packs + tail.capacity : slice_packs;
    const int first = held.first + rank * cta_packs + threadIdx.x;  // this thread's first pack
    // The tail's packs (each thread its own: no barrier) are copied first, in flight beside the loads.
    // Tail code stays under `if constexpr`: only dead in the other kernels, it changed their registers
    // (fp32 log_softmax looping slices of 8 packs 64 -> 78, down to -34 points of copy).
    int tail_held = 0, tail_phase = 0;
    if constexpr (kTail) {
      const int tail_first = held.first + rank * cta_packs + slice_packs;
      tail_held = max(0, min(tail.capacity, packs - tail_first));
      tail_phase = phase - tail_first * N;
      for (int q = threadIdx.x; q < tail_held; q += blockDim.x)
        copy_held_pack<N, Io>(row_io, tail, q, tail_phase, row_cols);
      commit_async_copies();
      if (tail_held > 0) copy_edge_packs<Op, N, Io>(row_io, tail, tail_held, tail_phase, row_cols);
    }
    const RowEdge edge = kEdge && rank == 0 ? row_edge<N>(row_cols, phase) : RowEdge{};
    PackedOf<RowIo, N> v[K];
    const bool whole_row = kWholeRowPath && phase == 0 && row_cols % N == 0;
    State slice_state;
    if (whole_row) {
      load_strided_packs<Op, N, K, true, false, true>(row_io, v, first, blockDim.x, held.end, 0, row_cols);
      slice_state = reduce_packs<Op, N, K, RowIo>(v);
    } else {
      slice_state =
          load_and_reduce_held<Op, N, K, kEdge>(row_io, v, edge, first, blockDim.x, held.end, phase, row_cols);
    }
    if constexpr (kTail) {
      wait_async_copies<0>();
      for (int q = threadIdx.x; q < tail_held; q += blockDim.x) {
        PackedOf<RowIo, N> t[1] = {tail.get(q)};
        slice_state = Op::combine(slice_state, reduce_packs<Op, N, 1, RowIo>(t));
      }
    }
    const State mine = block_allreduce(slice_state, CombineOf<Op>{}, Op::identity(), slots[kPush ? count & 1 : 0]);
    const auto fin = Op::finalize(kPush ? cluster_exchange<Op>(mine, size, rank, pushed, count)
                                        : cluster_allreduce<Op>(mine, size, &cta_state, &row_state));
    if (whole_row)
      map_and_store_strided_packs<Op, N, K, kOpUnpacksAgain<Op>, true>(row_io, v, fin, first, blockDim.x, held.end,
                                                                       0, row_cols);
    else
      map_and_store_strided_packs<Op, N, K, kOpUnpacksAgain<Op>, kEdge, true>(row_io, v, fin, first, blockDim.x,
                                                                              held.end, phase, row_cols);
    if constexpr (kEdge) map_and_store_edge_again<Op, Op, N>(row_io, fin, edge, blockDim.x, row_cols);
    if constexpr (kTail) {
      for (int q = threadIdx.x; q < tail_held; q += blockDim.x)
        map_and_store_pack<Op, N>(row_io, tail.get(q), fin, q * N - tail_phase, row_cols);
    }
    if (rank == 0 && threadIdx.x == 0) Op::emit(io, row, fin);
    if constexpr (!kPush) cluster_wait();  // peers have read cta_state; the next row may overwrite it
  }
  if constexpr (kPush) cluster_exchange_done();
#endif
}

// Register cluster slices. kPush: clusters that loop over rows (Plan::clusters_loop) push their states to
// their peers rather than meet at cluster barriers (primitives/cluster_exchange.cuh).
template <class Op, int N, int K, bool kEdge, bool kPush, class Io>
__global__ void __launch_bounds__(kBlockBudgetOf<N, K, Io>.max_threads, kClusterMinBlocksPerSm<Op, N, K, Io>)
    cluster_rows_kernel(Io io, int64_t rows, int64_t cols) {
  cluster_rows<Op, N, K, kEdge, kPush>(io, rows, cols);
}

// Dense slices take a cluster a row (dispatch/block_plan.cuh: dense_cluster_slices).
template <class Op, int N, int K, bool kEdge, class Io>
__global__ void __launch_bounds__(kDenseSliceThreads, kDenseSliceCtasPerSm)
    cluster_rows_dense_kernel(Io io, int64_t rows, int64_t cols) {
  cluster_rows<Op, N, K, kEdge, false>(io, rows, cols);
}

// Tail slices: many rows of 1-2 MB on chip, more than register slices of 16 CTAs hold, on clusters that
// loop over rows. Each CTA (two an SM, kStoredBytesPerThread a thread) holds its slice's first
// blockDim.x * K packs in registers and the rest, its tail, in dynamic shared memory, copied by cp.async
// while the registers' packs load (dispatch/block_plan.cuh: plan_tail_cluster). Built for 4-byte elements
// and the gradients (16-bit rows of one operand are not planned there).
template <class Op, int N, int K, class Io>
inline constexpr bool kTailClusterSlices =
    kBlockStoredBytes<N, K, Io> == kStoredBytesPerThread && Io::Row::template kAsyncCopy<N> &&
    sizeof(typename Op::Acc) == 4 && (Io::kInputs == 2 || kStoredElementBytes<typename Io::Row> == 4);
inline constexpr int kTailSliceCtasPerSm = 2;
template <class Op, int N, int K, class Io>
__global__ void __launch_bounds__(kBlockBudgetOf<N, K, Io>.max_threads, kTailSliceCtasPerSm)
    cluster_rows_tail_kernel(Io io, int64_t rows, int64_t cols) {
  cluster_rows<Op, N, K, false, true, Io, true>(io, rows, cols);
}

}  // namespace rowwise
