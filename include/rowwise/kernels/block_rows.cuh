// Strategy `block`: a row lives in the registers of a whole block (blockDim.x threads, K packs each),
// reduced across warps through shared memory. A block loops over rows, so the grid needs only as many
// blocks as fit on the GPU at once. The first threads take the row's edge (row_common.cuh) where
// the op opts in or the plan asks (kEdge below).
#pragma once
#include "../primitives/block_reduce.cuh"
#include "../primitives/pack.cuh"
#include "row_common.cuh"

namespace rowwise {

// The largest block for a thread holding `stored_bytes` of row: over 64 bytes 512 threads, which may
// take 128 registers each (the cluster, block_smem and two_pass kernels), else 1024 at 64. Block rows
// hold their threads to 64 registers whatever they store (below; row_common.cuh says why).
__host__ __device__ constexpr int block_max_threads(int stored_bytes) { return stored_bytes > 64 ? 512 : 1024; }

// Block rows of K packs a thread: the largest block, the registers a thread may take and the most row
// it may hold (kStoredBytesPerThread but for the wide K).
// K = kNarrowBlockPacks is for rows that 8 packs a thread would end in a mostly empty eighth pack (a
// 12345-column 16-bit row is 1544 packs: 7 warps of 8 hold 1792, 7 warps of 7 hold 1568): at 56
// registers in blocks of up to 384 threads, 5 such blocks fit an SM where 4 of 8 packs fit at 64.
// K = kWideBlockPacks is for 16-bit rows of 257-352 packs (2049-2816 columns), which 8 packs a thread
// put in two-warp blocks mostly idle in their second warp (16 an SM, ~70 KB of row in flight): one
// warp of 11 packs, bounded to 88 registers (ptxas takes 80, 25 blocks an SM; bounded to 80 it took
// 72 and spilled 12-16 bytes). K = 9 and 10 (kMinWideBlockPacks up) are one warp of 16-bit rows too,
// bounded to 80 (ptxas takes 72; fp16 log_softmax of 10 spills 4-8 bytes): where the planner spares
// idle slots, rows of 257-288 / 289-320 packs, which 11 packs a thread left 18-27 % of the warp idle.
// K = kGradBlockPacks is for 16-bit gradient rows (two operands: 32 bytes a pack), which hold 4 packs
// a thread within kStoredBytesPerThread: rows of 12325-13435 columns took 13-14 warps at 55
// registers, 2 blocks an SM (~100 KB of row in flight, 81-87 % of copy on the H200, ncu). Blocks of
// up to 9 warps of 6 packs, bounded to 3 an SM (ptxas takes 70 registers, no spills), run them at 99 %.
// The same K serves 16-bit rows of one operand in one warp (96 bytes a thread, so the 64 registers of
// kStoredBytesPerThread; ptxas: no spills): rows of 160-192 whole packs, which the planner gives it
// rather than 7 or 8 where it spares idle slots (dispatch/block_plan.cuh, one_warp_trim_packs).
struct BlockBudget {
  int max_threads;
  int registers;
  int max_stored_bytes;
};
inline constexpr int kNarrowBlockPacks = 7;
inline constexpr int kWideBlockPacks = 11;
inline constexpr int kMinWideBlockPacks = 9;
inline constexpr int kGradBlockPacks = 6;
__host__ __device__ constexpr bool wide_block_packs(int packs_per_thread) {
  return packs_per_thread >= kMinWideBlockPacks;
}
__host__ __device__ constexpr BlockBudget block_budget(int packs_per_thread, int stored_bytes) {
  if (packs_per_thread == kNarrowBlockPacks) return {384, 56, kStoredBytesPerThread};
  if (packs_per_thread == kGradBlockPacks && stored_bytes <= kStoredBytesPerThread)
    return {32, 64, kStoredBytesPerThread};
  if (packs_per_thread == kGradBlockPacks) return {288, 72, kGradBlockPacks * 2 * kMaxPackBytes};
  if (wide_block_packs(packs_per_thread))
    return {32, packs_per_thread == kWideBlockPacks ? 88 : 80, packs_per_thread * kMaxPackBytes};
  return {block_max_threads(stored_bytes), 64, kStoredBytesPerThread};
}
// The narrow, wide and gradient K: for block rows chosen by residency only (cluster slices never
// take them).
__host__ __device__ constexpr bool residency_only_packs(int packs_per_thread) {
  return packs_per_thread == kNarrowBlockPacks || wide_block_packs(packs_per_thread) ||
         packs_per_thread == kGradBlockPacks;
}

template <int N, int K, class Io> inline constexpr int kBlockStoredBytes = K * kPackStoredBytes<N, Io>;
template <int N, int K, class Io>
inline constexpr BlockBudget kBlockBudgetOf = block_budget(K, kBlockStoredBytes<N, K, Io>);
// The blocks an SM must hold (__launch_bounds__) for a thread of K packs to stay within its budget's
// registers: block rows, and cluster slices (kernels/cluster_rows.cuh).
template <class Op, int N, int K, class Io>
inline constexpr int kBlockMinBlocksPerSm =
    min_blocks_per_sm<Op>(kBlockBudgetOf<N, K, Io>.max_threads, kBlockStoredBytes<N, K, Io>,
                          kBlockBudgetOf<N, K, Io>.registers, kBlockBudgetOf<N, K, Io>.max_stored_bytes);

// Packs for which block rows also come with the edge (kEdge below, for the plan's `edge`): the widest
// packs of 16-bit elements in memory, the only ones dispatch gives it (functor Io has none in memory).
template <class RowIo, class = void> inline constexpr int kStoredElementBytes = 0;
template <class RowIo>
inline constexpr int kStoredElementBytes<RowIo, std::void_t<typename RowIo::Stored>> = sizeof(typename RowIo::Stored);
template <int N, class Io>
inline constexpr bool kBlockEdgePacks = kStoredElementBytes<typename Io::Row> == 2 && N * 2 == kMaxPackBytes;

// The K a block row kernel is instantiated for: those whose row fits the budget, the wide K only for
// 16-bit rows of one operand in 16-byte packs and the gradient K only for 16-bit rows in 16-byte packs
// (the only rows dispatch gives them).
template <int N, int K, class Io>
inline constexpr bool kBlockRowsInstantiated =
    kBlockStoredBytes<N, K, Io> <= kBlockBudgetOf<N, K, Io>.max_stored_bytes &&
    (!wide_block_packs(K) || (kBlockEdgePacks<N, Io> && Io::kInputs == 1)) &&
    (K != kGradBlockPacks || kBlockEdgePacks<N, Io>);

// kEdge: the block's first threads take the row's edge and the block holds its whole packs only
// (cols / N of them, where a ragged row spans up to two more): gradient ops always
// (kOpTakesEdgeInBlockRows), the others for 16-bit rows with partial packs (the plan's `edge`).
template <class Op, int N, int K, bool kEdge, class Io>
__global__ void __launch_bounds__(kBlockBudgetOf<N, K, Io>.max_threads, kBlockMinBlocksPerSm<Op, N, K, Io>)
    block_rows_kernel(Io io, int64_t rows, int64_t cols) {
  using RowIo = typename Io::Row;
  using State = typename Op::State;
  // Whole packs of rows quantized to a narrower output (int8 / fp8) move without the row's bounds
  // tests: H200, 16-bit rows of 1289-16383 columns +0.4 to +6.7 points (1289: 87-90 -> 94-97 %).
  // Softmax and log_softmax lost up to 5.9 so (docs/perf.md "Whole packs stored without bounds tests").
  constexpr bool kUntestedWhole = kNarrowsOutput<RowIo>;
  __shared__ State slots[2][kMaxWarpsPerBlock];
  int parity = 0;
  const int row_cols = static_cast<int>(cols);  // at most 1024 threads * 8 packs: 32-bit indices
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x, parity ^= 1) {
    const auto [row_io, phase, packs] = row_span<N>(io, row, row_cols);
    const HeldPacks held = held_packs<N, kEdge>(row_cols, phase, packs);
    const int first = held.first + threadIdx.x;  // this thread's first pack
    PackedOf<RowIo, N> v[K];
    // The edge worked out where it is used, not kept across the row's reduction.
    State state = load_and_reduce_held<Op, N, K, kEdge, kUntestedWhole>(
        row_io, v, kEdge ? row_edge<N>(row_cols, phase) : RowEdge{}, first, blockDim.x, held.end, phase, row_cols);
    state = block_allreduce(state, CombineOf<Op>{}, Op::identity(), slots[parity]);
    const auto fin = Op::finalize(state);
    // Structured bindings are captured by name (C++17 lambdas cannot capture them).
    with_map_op<Op>(fin, [&, &row_io = row_io, phase = phase](auto map_op) {
      using MapOp = decltype(map_op);
      map_and_store_strided_packs<MapOp, N, K, kOpUnpacksAgain<Op>, kEdge, !kUntestedWhole>(
          row_io, v, fin, first, blockDim.x, held.end, phase, row_cols);
      if constexpr (kEdge)
        map_and_store_edge_again<Op, MapOp, N>(row_io, fin, row_edge<N>(row_cols, phase), blockDim.x, row_cols);
    });
    if (threadIdx.x == 0) Op::emit(io, row, fin);
  }
}

}  // namespace rowwise
