// Strategy `block_smem`: a row lives in dynamic shared memory (opt-in beyond 48 KB), in its storage
// type, operand by operand (planar_packs.cuh): one pass copies it from global memory while reducing,
// the map pass reads it back. Rows of up to (dynamic shared memory / element size) elements, and,
// where a block has all of an SM's shared memory (kFillsSm below), somewhat longer: the first packs
// stay in shared memory and the rest is streamed twice, read to reduce and read again to map, the
// second time from L2 (a block streams a few tens of KB, read microseconds before).
// Each thread copies, reduces and maps the same packs (p = threadIdx.x + k * blockDim.x, whatever the
// row), so the buffer needs no barrier of its own; but where thread 0 copies the held packs by bulk
// copies (kBulk: dispatch/block_plan.cuh block_smem_bulk_copies), a group's copy waits for the block
// to have mapped the buffer's last row, and the block for the group's barrier.
#pragma once
#include "../primitives/async_copy.cuh"
#include "../primitives/block_reduce.cuh"
#include "../primitives/bulk_copy.cuh"
#include "block_rows.cuh"
#include "planar_packs.cuh"
#include "row_common.cuh"

namespace rowwise {

// Packs each thread loads (or reads back) before it touches them.
inline constexpr int kSmemBatch = 4;

// Where one block fills an SM, its held packs are copied in kSmemCopyGroups commit groups and each
// group reduced as soon as it has landed, so that the reduction's math overlaps the copies still in
// flight: the SM has no other block to overlap it with (16-bit rows of 65536-100000 columns +4-5
// points). Where blocks share an SM, they overlap each other, and the groups' registers (bf16 32 ->
// 44 a thread) cost the second block: bf16 32769 columns 88 -> 65 %.
inline constexpr int kSmemCopyGroups = 4;

// A thread's held packs, p = threadIdx.x + k * blockDim.x < held, in groups of whole batches: group g
// holds k in [g * per_group, (g + 1) * per_group) (a batch's empty slots are reduced as pads).
// Bulk copies take thread 0's groups in every thread (`uniform`), so that group g is one run of packs,
// [begin(g) * blockDim.x, begin(g + 1) * blockDim.x).
struct CopyGroups {
  int mine, per_group;
  __device__ static int mine_of(int held, int thread) {
    return held > thread ? (held - thread + blockDim.x - 1) / blockDim.x : 0;
  }
  __device__ explicit CopyGroups(int held, bool uniform = false)
      : mine(mine_of(held, threadIdx.x)),
        per_group(((mine_of(held, uniform ? 0 : threadIdx.x) + kSmemBatch - 1) / kSmemBatch + kSmemCopyGroups - 1) /
                  kSmemCopyGroups * kSmemBatch) {}
  __device__ int begin(int g) const { return g * per_group; }
  __device__ int end(int g) const { return mine < (g + 1) * per_group ? mine : (g + 1) * per_group; }
};

// Starts copying pack p of the row into the buffer, asynchronously, where it lies whole in the row;
// the row's partial first and last packs are copy_edge_packs' work.
template <int N, class Io>
__device__ inline void copy_held_pack(const typename Io::Row& io, const PlanarPacks<Io, N>& buf, int p, int phase,
                                      int cols) {
  const int col = p * N - phase;
  if (col >= 0 && col + N <= cols) buf.copy_async(io, p, col);
}

// The row's partial first and last held packs, through registers, each by the thread that holds it,
// once that thread's whole packs are in flight: loaded in line, their latency held up the copies
// issued after them, and a block that fills its SM has no other block to hide that (fp32 gradients
// of 14645 columns 86 -> 94 %, bf16 of 30001 80 -> 92 %).
template <class Op, int N, class Io>
__device__ inline void copy_edge_packs(const typename Io::Row& io, const PlanarPacks<Io, N>& buf, int held, int phase,
                                       int cols) {
  for (int p : {0, held - 1}) {
    const int col = p * N - phase;
    const bool partial = col < 0 || col + N > cols;
    if (partial && p % static_cast<int>(blockDim.x) == static_cast<int>(threadIdx.x) && (p == 0 || held > 1))
      buf.put(p, load_pack_of_row<Op, N>(io, col, cols));
  }
}

// Starts copying the thread's held packs, a commit group per CopyGroups group.
template <int N, class Io>
__device__ inline void copy_in_groups(const typename Io::Row& io, const PlanarPacks<Io, N>& buf, const CopyGroups& groups,
                                      int phase, int cols) {
#pragma unroll
  for (int g = 0; g < kSmemCopyGroups; ++g) {
#pragma unroll 1
    for (int k = groups.begin(g); k < groups.end(g); ++k) {
      copy_held_pack<N, Io>(io, buf, threadIdx.x + k * blockDim.x, phase, cols);
    }
    commit_async_copies();
  }
}

// Thread 0 starts copying the held whole packs of a row of one operand, a bulk copy a group, each group
// landing on its barrier (bars[g]). The partial first and last packs are copy_edge_packs'. Every thread
// must be done with the buffer's previous row.
template <int N, class Io>
__device__ inline void bulk_copy_groups(const typename Io::Row& io, const PlanarPacks<Io, N>& buf,
                                        const CopyGroups& groups, uint64_t* bars, int held, int phase, int cols) {
  if (threadIdx.x != 0) return;
  fence_proxy_async_shared();
  const HeldPacks whole = held_packs<N, true>(cols, phase, held);  // the row's whole packs
  const int whole_end = min(whole.end, held);
  constexpr int kBytes = PlanarPacks<Io, N>::kPartBytes;
#pragma unroll
  for (int g = 0; g < kSmemCopyGroups; ++g) {
    const int begin = max(whole.first, groups.begin(g) * static_cast<int>(blockDim.x));
    const int end = min(whole_end, groups.begin(g + 1) * static_cast<int>(blockDim.x));
    const unsigned bytes = end > begin ? static_cast<unsigned>((end - begin) * kBytes) : 0u;
    mbarrier_arrive_expect_bytes(&bars[g], bytes);
    if (bytes > 0) io.copy_bulk(buf.base + begin, int64_t{begin} * N - phase, bytes, &bars[g]);
  }
}

// Combines the thread's held packs into `state`, each group as soon as it has landed: on its barrier
// (kBulk: bars, phase `parity`), or as the thread's commit group. No copies newer than the groups' may
// be in flight.
template <class Op, int N, class Io, bool kBulk = false>
__device__ inline typename Op::State reduce_in_groups(const PlanarPacks<Io, N>& buf, const CopyGroups& groups,
                                                      typename Op::State state, uint64_t* bars = nullptr,
                                                      unsigned parity = 0) {
  using RowIo = typename Io::Row;
#pragma unroll
  for (int g = 0; g < kSmemCopyGroups; ++g) {
    if constexpr (kBulk) mbarrier_wait(&bars[g], parity);
    else wait_async_copies_at_most<kSmemCopyGroups - 1>(kSmemCopyGroups - 1 - g);
    const int end = groups.end(g);
    for (int k0 = groups.begin(g); k0 < end; k0 += kSmemBatch) {
      PackedOf<RowIo, N> v[kSmemBatch];
#pragma unroll
      for (int u = 0; u < kSmemBatch; ++u) {
        v[u] = k0 + u < end ? buf.get(threadIdx.x + (k0 + u) * blockDim.x) : pad_pack<Op, N, RowIo>();
      }
      state = Op::combine(state, reduce_packs<Op, N, kSmemBatch, RowIo>(v));
    }
  }
  return state;
}

// The thread's state over its packs of a row: the first `held` copied into `buf` on the way, the rest
// (kFillsSm only) streamed meanwhile. Io with async copies puts all of a thread's whole held packs in
// flight at once and reads them back to reduce: loads through registers kept kSmemBatch packs a
// thread in flight (fp32 softmax of 24576 columns: 73 % of copy, 92 % with the copies) and took fp32
// gradient blocks to 87-95 registers.
template <class Op, int N, bool kFillsSm, bool kBulk, class Io>
__device__ inline typename Op::State copy_and_reduce_row(const typename Io::Row& io, const PlanarPacks<Io, N>& buf,
                                                         int packs, int held, int phase, int cols, uint64_t* bars,
                                                         unsigned parity) {
  using RowIo = typename Io::Row;
  typename Op::State state = Op::identity();
  if constexpr (kBulk) {
    const CopyGroups groups(held, true);
    bulk_copy_groups<N, Io>(io, buf, groups, bars, held, phase, cols);
    copy_edge_packs<Op, N, Io>(io, buf, held, phase, cols);
    state = reduce_streamed_packs<Op, N, kSmemBatch>(io, held, packs, phase, cols);  // while the copies fly
    state = reduce_in_groups<Op, N, Io, true>(buf, groups, state, bars, parity);
  } else if constexpr (!RowIo::template kAsyncCopy<N>) {
    for (int p0 = threadIdx.x; p0 < held; p0 += kSmemBatch * blockDim.x) {
      PackedOf<RowIo, N> v[kSmemBatch];
      load_strided_packs<Op, N, kSmemBatch>(io, v, p0, blockDim.x, held, phase, cols);
#pragma unroll
      for (int u = 0; u < kSmemBatch; ++u) {
        const int p = p0 + u * blockDim.x;
        if (p < held) buf.put(p, v[u]);
      }
      state = Op::combine(state, reduce_packs<Op, N, kSmemBatch, RowIo>(v));
    }
    if constexpr (kFillsSm) {
      state = Op::combine(state, reduce_streamed_packs<Op, N, kSmemBatch>(io, held, packs, phase, cols));
    }
  } else if constexpr (kFillsSm) {
    const CopyGroups groups(held);
    copy_in_groups<N, Io>(io, buf, groups, phase, cols);
    copy_edge_packs<Op, N, Io>(io, buf, held, phase, cols);
    state = reduce_streamed_packs<Op, N, kSmemBatch>(io, held, packs, phase, cols);  // while the copies fly
    state = reduce_in_groups<Op, N, Io>(buf, groups, state);
  } else {
    for (int p = threadIdx.x; p < held; p += blockDim.x) copy_held_pack<N, Io>(io, buf, p, phase, cols);
    commit_async_copies();
    copy_edge_packs<Op, N, Io>(io, buf, held, phase, cols);
    wait_async_copies<0>();
    for (int p0 = threadIdx.x; p0 < held; p0 += kSmemBatch * blockDim.x) {
      PackedOf<RowIo, N> v[kSmemBatch];
#pragma unroll
      for (int u = 0; u < kSmemBatch; ++u) {
        const int p = p0 + u * blockDim.x;
        v[u] = p < held ? buf.get(p) : pad_pack<Op, N, RowIo>();
      }
      state = Op::combine(state, reduce_packs<Op, N, kSmemBatch, RowIo>(v));
    }
  }
  return state;
}

// kFillsSm: the block has all the shared memory a block may opt in to (one block an SM): its copies
// go in groups and rows longer than the buffer stream the rest. Blocks that share an SM take the
// kernel without either (fewer registers: two or three blocks an SM). One block an SM may take all
// the registers its threads allow; left to itself, ptxas held 16-bit kernels of narrow packs to 32
// and spilled (the 0 leaves the other kernel's bound as it was).
// kBulk (kFillsSm, one operand, sm_90, 16-byte packs): thread 0 copies the held whole packs by bulk
// copies, a group each, and the block waits on the groups' barriers.
template <class Op, int N, bool kFillsSm, class Io, bool kBulk = false>
__global__ void __launch_bounds__(block_max_threads(kSmemBatch * kPackStoredBytes<N, Io>), kFillsSm ? 1 : 0)
    block_smem_rows_kernel(Io io, int64_t rows, int64_t cols) {
  wait_for_prior_grid();
  __shared__ uint64_t bars[kBulk ? kSmemCopyGroups : 1];
  if constexpr (kBulk) {
    static_assert(kFillsSm && Io::kInputs == 1 && kRowBulkCopy<typename Io::Row, N>,
                  "bulk copies: one block an SM, one operand, 16-byte packs");
    if (threadIdx.x == 0) {
      for (int g = 0; g < kSmemCopyGroups; ++g) mbarrier_init(&bars[g], 1);
      fence_proxy_async_shared();
    }
  }
  using State = typename Op::State;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  // Planes as long as the launch's buffer allows: the planner sizes it for the longest row it saw, or
  // for all the shared memory a block may have.
  const PlanarPacks<Io, N> buf{reinterpret_cast<typename PlanarPacks<Io, N>::Part*>(smem_bytes),
                               static_cast<int>(dynamic_smem_bytes() / sizeof(PackedOf<typename Io::Row, N>))};
  __shared__ State slots[2][kMaxWarpsPerBlock];
  int parity = 0;
  const int row_cols = static_cast<int>(cols);  // the planner keeps rows to 32-bit indices
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x, parity ^= 1) {
    const auto [row_io, phase, packs] = row_span<N>(io, row, row_cols);
    const int held = kFillsSm && packs > buf.capacity ? buf.capacity : packs;
    if constexpr (kBulk) __syncthreads();  // the barriers are set up and the buffer's last row is mapped
    State state = copy_and_reduce_row<Op, N, kFillsSm, kBulk, Io>(row_io, buf, packs, held, phase, row_cols, bars,
                                                                  static_cast<unsigned>(parity));
    state = block_allreduce(state, CombineOf<Op>{}, Op::identity(), slots[parity]);
    const auto fin = Op::finalize(state);
    if constexpr (kFillsSm) map_streamed_packs<Op, N, kSmemBatch>(row_io, fin, held, packs, phase, row_cols);
    for (int p = threadIdx.x; p < held; p += blockDim.x) {
      map_and_store_pack<Op, N>(row_io, buf.get(p), fin, p * N - phase, row_cols);
    }
    if (threadIdx.x == 0) Op::emit(io, row, fin);
  }
}

}  // namespace rowwise
