// Strategy `two_pass`: rows of any length. One block per row streams it twice: once to reduce, once to
// map; the second read finds the row (read moments before by the same block) in L2. Only when forced:
// for long gradient rows, where dispatch once chose it, `split` now measures faster (docs/perf.md#dispatch).
#pragma once
#include "../primitives/block_reduce.cuh"
#include "block_rows.cuh"
#include "row_common.cuh"

namespace rowwise {

inline constexpr int kTwoPassBatch = 4;

template <class Op, int N, class Io>
__global__ void __launch_bounds__(block_max_threads(kTwoPassBatch * kPackStoredBytes<N, Io>)) two_pass_rows_kernel(Io io, int64_t rows, int64_t cols) {
  wait_for_prior_grid();
  using State = typename Op::State;
  __shared__ State slots[2][kMaxWarpsPerBlock];
  int parity = 0;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x, parity ^= 1) {
    const auto [row_io, phase, packs] = row_span<N>(io, row, cols);
    State state = reduce_streamed_packs<Op, N, kTwoPassBatch>(row_io, int64_t{0}, packs, phase, cols);
    state = block_allreduce(state, CombineOf<Op>{}, Op::identity(), slots[parity]);
    const auto fin = Op::finalize(state);
    for (int64_t p = threadIdx.x; p < packs; p += blockDim.x) {
      map_and_store_pack<Op, N>(row_io, load_pack_of_row<Op, N>(row_io, p * N - phase, cols), fin, p * N - phase,
                                cols);
    }
    if (threadIdx.x == 0) Op::emit(io, row, fin);
  }
}

}  // namespace rowwise
