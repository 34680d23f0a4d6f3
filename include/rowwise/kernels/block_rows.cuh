// Strategy `block`: a row lives in the registers of a whole block (blockDim.x threads, K packs each),
// reduced across warps through shared memory. A block loops over rows, so the grid needs only as many
// blocks as fit on the GPU at once.
#pragma once
#include "../primitives/block_reduce.cuh"
#include "row_common.cuh"

namespace rowwise {

// The largest block for a thread holding `stored_bytes` of row: over 64 bytes 512 threads, which may
// take 128 registers each (the cluster, block_smem and two_pass kernels), else 1024 at 64. Block rows
// hold their threads to 64 registers whatever they store (below; row_common.cuh says why).
__host__ __device__ constexpr int block_max_threads(int stored_bytes) { return stored_bytes > 64 ? 512 : 1024; }

template <class Op, int N, int K, class Io>
__global__ void __launch_bounds__(block_max_threads(K * kPackStoredBytes<N, Io>),
                                  min_blocks_per_sm<Op>(block_max_threads(K * kPackStoredBytes<N, Io>),
                                                        K * kPackStoredBytes<N, Io>, 64))
    block_rows_kernel(Io io, int64_t rows, int64_t cols) {
  using RowIo = typename Io::Row;
  using State = typename Op::State;
  __shared__ State slots[2][kMaxWarpsPerBlock];
  int parity = 0;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x, parity ^= 1) {
    const auto row_io = io.row(row);
    const int phase = row_io.template phase<N>();
    const int64_t packs = packs_in_row(cols, phase, N);
    PackedOf<RowIo, N> v[K];
    load_strided_packs<Op, N, K>(row_io, v, threadIdx.x, blockDim.x, packs, phase, cols);
    const State state =
        block_allreduce(reduce_packs<Op, N, K, RowIo>(v), CombineOf<Op>{}, Op::identity(), slots[parity]);
    const auto fin = Op::finalize(state);
    map_and_store_strided_packs<Op, N, K, kOpUnpacksAgain<Op>>(row_io, v, fin, threadIdx.x, blockDim.x, packs, phase, cols);
    if (threadIdx.x == 0) Op::emit(io, row, fin);
  }
}

}  // namespace rowwise
