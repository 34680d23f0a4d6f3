// Strategy `block_smem`: a row lives in dynamic shared memory, in its storage type, (opt-in beyond 48 KB): one pass reads it
// from global memory into shared memory while reducing, the map pass reads shared memory back.
// Rows of up to (dynamic shared memory / element size) elements, any block size.
#pragma once
#include "../primitives/block_reduce.cuh"
#include "block_rows.cuh"
#include "row_common.cuh"

namespace rowwise {

// Packs each thread loads before it touches them: keeps U packs per thread in flight.
inline constexpr int kSmemBatch = 4;

template <class Op, int N, class Io>
__global__ void __launch_bounds__(block_max_threads(kSmemBatch * kPackStoredBytes<N, Io>)) block_smem_rows_kernel(Io io, int64_t rows, int64_t cols) {
  using RowIo = typename Io::Row;
  using State = typename Op::State;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  auto* row_buf = reinterpret_cast<PackedOf<RowIo, N>*>(smem_bytes);
  __shared__ State slots[2][kMaxWarpsPerBlock];
  int parity = 0;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x, parity ^= 1) {
    const auto row_io = io.row(row);
    const int phase = row_io.template phase<N>();
    const int64_t packs = packs_in_row(cols, phase, N);
    State state = Op::identity();
    for (int64_t p0 = threadIdx.x; p0 < packs; p0 += kSmemBatch * blockDim.x) {
      PackedOf<RowIo, N> v[kSmemBatch];
      load_strided_packs<Op, N, kSmemBatch>(row_io, v, p0, blockDim.x, packs, phase, cols);
#pragma unroll
      for (int u = 0; u < kSmemBatch; ++u) {
        const int64_t p = p0 + u * blockDim.x;
        if (p < packs) row_buf[p] = v[u];
      }
      state = Op::combine(state, reduce_packs<Op, N, kSmemBatch, RowIo>(v));
    }
    // The barrier inside also orders the buffer writes above before the reads below.
    state = block_allreduce(state, CombineOf<Op>{}, Op::identity(), slots[parity]);
    const auto fin = Op::finalize(state);
    for (int64_t p = threadIdx.x; p < packs; p += blockDim.x) {
      map_and_store_pack<Op, N>(row_io, row_buf[p], fin, p * N - phase, cols);
    }
    if (threadIdx.x == 0) Op::emit(io, row, fin);
    __syncthreads();  // the next row overwrites the buffer
  }
}

}  // namespace rowwise
