// Strategy `block_smem`: a row lives in dynamic shared memory (opt-in beyond 48 KB), in its storage
// type, operand by operand (planar_packs.cuh): one pass copies it from global memory while reducing,
// the map pass reads it back. Rows of up to (dynamic shared memory / element size) elements, any
// block size.
// Each thread copies, reduces and maps the same packs (p = threadIdx.x + k * blockDim.x, whatever the
// row), so the buffer needs no barrier of its own: a thread done with a row starts the next one's
// copies while others still store.
#pragma once
#include "../primitives/async_copy.cuh"
#include "../primitives/block_reduce.cuh"
#include "block_rows.cuh"
#include "planar_packs.cuh"
#include "row_common.cuh"

namespace rowwise {

// Packs each thread loads (or reads back) before it touches them.
inline constexpr int kSmemBatch = 4;

// The thread's state over its packs of a row, the row copied into `buf` on the way. Io with async
// copies puts all of a thread's whole packs in flight at once and reads them back to reduce: loads
// through registers kept kSmemBatch packs a thread in flight (fp32 softmax of 24576 columns: 73 %
// of copy, 92 % with the copies) and took fp32 gradient blocks to 87-95 registers.
template <class Op, int N, class Io>
__device__ inline typename Op::State copy_and_reduce_row(const typename Io::Row& io, const PlanarPacks<Io, N>& buf,
                                                         int packs, int phase, int cols) {
  using RowIo = typename Io::Row;
  typename Op::State state = Op::identity();
  if constexpr (RowIo::template kAsyncCopy<N>) {
    for (int p = threadIdx.x; p < packs; p += blockDim.x) {
      const int col = p * N - phase;
      if (col >= 0 && col + N <= cols) buf.copy_async(io, p, col);
      else buf.put(p, load_pack_of_row<Op, N>(io, col, cols));  // a partial pack at the row's ends
    }
    commit_async_copies();
    wait_async_copies<0>();
    for (int p0 = threadIdx.x; p0 < packs; p0 += kSmemBatch * blockDim.x) {
      PackedOf<RowIo, N> v[kSmemBatch];
#pragma unroll
      for (int u = 0; u < kSmemBatch; ++u) {
        const int p = p0 + u * blockDim.x;
        v[u] = p < packs ? buf.get(p) : pad_pack<Op, N, RowIo>();
      }
      state = Op::combine(state, reduce_packs<Op, N, kSmemBatch, RowIo>(v));
    }
  } else {
    for (int p0 = threadIdx.x; p0 < packs; p0 += kSmemBatch * blockDim.x) {
      PackedOf<RowIo, N> v[kSmemBatch];
      load_strided_packs<Op, N, kSmemBatch>(io, v, p0, blockDim.x, packs, phase, cols);
#pragma unroll
      for (int u = 0; u < kSmemBatch; ++u) {
        const int p = p0 + u * blockDim.x;
        if (p < packs) buf.put(p, v[u]);
      }
      state = Op::combine(state, reduce_packs<Op, N, kSmemBatch, RowIo>(v));
    }
  }
  return state;
}

template <class Op, int N, class Io>
__global__ void __launch_bounds__(block_max_threads(kSmemBatch * kPackStoredBytes<N, Io>)) block_smem_rows_kernel(Io io, int64_t rows, int64_t cols) {
  using State = typename Op::State;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  // Planes as long as the launch's buffer allows: the planner sizes it for the longest row it saw.
  const PlanarPacks<Io, N> buf{reinterpret_cast<typename PlanarPacks<Io, N>::Part*>(smem_bytes),
                               static_cast<int>(dynamic_smem_bytes() / sizeof(PackedOf<typename Io::Row, N>))};
  __shared__ State slots[2][kMaxWarpsPerBlock];
  int parity = 0;
  const int row_cols = static_cast<int>(cols);  // a row fits shared memory: 32-bit indices
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x, parity ^= 1) {
    const auto [row_io, phase, packs] = row_span<N>(io, row, row_cols);
    State state = copy_and_reduce_row<Op, N, Io>(row_io, buf, packs, phase, row_cols);
    state = block_allreduce(state, CombineOf<Op>{}, Op::identity(), slots[parity]);
    const auto fin = Op::finalize(state);
    for (int p = threadIdx.x; p < packs; p += blockDim.x) {
      map_and_store_pack<Op, N>(row_io, buf.get(p), fin, p * N - phase, row_cols);
    }
    if (threadIdx.x == 0) Op::emit(io, row, fin);
  }
}

}  // namespace rowwise
