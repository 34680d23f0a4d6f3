// Strategy `cluster_smem` (Hopper and newer): a row split over the C CTAs of a thread-block cluster as
// in `cluster`, each CTA holding its slice in dynamic shared memory as `block_smem` holds a row: its
// whole packs copied by cp.async in commit groups, each group reduced as it lands, the row's partial
// first and last packs loaded through registers once the copies are in flight. The CTAs' states merge
// through distributed shared memory; the row is read once and written once.
// Why beside `cluster`: register slices load a ragged row's partial packs in line, in the thread that
// holds them, ahead of its other loads (dispatch/strategy.cuh says where each runs faster).
// A CTA's slice is packs [rank * slice, rank * slice + held) of the row: its pack q lies at row column
// (rank * slice + q) * N - phase, which block_smem's copies reach as a row of phase phase - rank * slice * N.
// Each thread copies, reduces and maps the same packs of its slice, so the buffer needs no barrier of
// its own across rows.
#pragma once
#include <cooperative_groups.h>

#include "block_smem_rows.cuh"
#include "cluster_rows.cuh"

namespace rowwise {

inline constexpr int kClusterSmemThreads = 512;
// Slices of up to 112 KB leave two CTAs an SM (dispatch/block_plan.cuh plan_cluster_smem). The launch
// bound (three CTAs an SM: at most 42 registers a thread) is the one its measurements ran with; the
// kernels spill nothing under it.
inline constexpr int kClusterSmemMinBlocksPerSm = 3;

// Built for one operand of 16-byte packs with async copies and float math (dispatch/launch.cuh falls
// back to register clusters elsewhere).
template <class Op, int N, class Io>
inline constexpr bool kClusterSmemKernel = Io::kInputs == 1 && Io::Row::template kAsyncCopy<N> &&
                                           sizeof(PackedOf<typename Io::Row, N>) == kMaxPackBytes &&
                                           sizeof(typename Op::Acc) == 4;

template <class Op, int N, class Io>
__global__ void __launch_bounds__(kClusterSmemThreads, kClusterSmemMinBlocksPerSm)
    cluster_smem_rows_kernel(Io io, int64_t rows, int64_t cols) {
  wait_for_prior_grid();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // clusters need sm_90; dispatch never picks this strategy below compute capability 9
#else
  static_assert(kClusterSmemKernel<Op, N, Io>, "cluster_smem: one operand, 16-byte async packs, float math");
  using State = typename Op::State;
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int size = static_cast<int>(cluster.num_blocks());
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  const PlanarPacks<Io, N> buf{reinterpret_cast<typename PlanarPacks<Io, N>::Part*>(smem_bytes),
                               static_cast<int>(dynamic_smem_bytes() / sizeof(PackedOf<typename Io::Row, N>))};
  __shared__ State slots[kMaxWarpsPerBlock];
  __shared__ State cta_state;
  __shared__ State row_state;
  const int row_cols = static_cast<int>(cols);  // the planner keeps rows to 32-bit indices
  for (int64_t row = blockIdx.x / size; row < rows; row += gridDim.x / size) {
    const auto [row_io, phase, packs] = row_span<N>(io, row, row_cols);
    const int slice = (packs + size - 1) / size;  // at most the buffer, sized for the longest row
    const int held = max(0, min(slice, packs - rank * slice));
    const int slice_phase = phase - rank * slice * N;
    const CopyGroups groups(held);
    copy_in_groups<N, Io>(row_io, buf, groups, slice_phase, row_cols);
    if (held > 0) copy_edge_packs<Op, N, Io>(row_io, buf, held, slice_phase, row_cols);
    const State slice_state = reduce_in_groups<Op, N, Io>(buf, groups, Op::identity());
    const State mine = block_allreduce(slice_state, CombineOf<Op>{}, Op::identity(), slots);
    const auto fin = Op::finalize(cluster_allreduce<Op>(mine, size, &cta_state, &row_state));
    for (int q = threadIdx.x; q < held; q += blockDim.x) {
      map_and_store_pack<Op, N>(row_io, buf.get(q), fin, q * N - slice_phase, row_cols);
    }
    if (rank == 0 && threadIdx.x == 0) Op::emit(io, row, fin);
    cluster_wait();  // peers have read cta_state; the next row may overwrite it
  }
#endif
}

}  // namespace rowwise
