// Strategy `warp`: a row lives in the registers of a group of `width` lanes (a power of two, 1..32),
// each lane holding K packs; a warp owns 32/width groups and each group R rows at a time, so tiny rows
// still put R*K packs per lane in flight. Rows of up to 32*K packs.
#pragma once
#include "../primitives/warp_reduce.cuh"
#include "row_common.cuh"

namespace rowwise {

template <class Op, int N, int K, int R, class Io>
__global__ void warp_rows_kernel(Io io, int64_t rows, int64_t cols, int width) {
  using RowIo = typename Io::Row;
  const int lane = threadIdx.x % kWarpSize;
  const int group_lane = lane & (width - 1);
  const int group = lane / width;
  const int groups = kWarpSize / width;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / kWarpSize;
  // The loop is uniform over the warp (shuffles need every lane); rows past the end only pad.
  // Within one load instruction the groups read consecutive rows, so the warp reads one span.
  for (int64_t base = warp * groups * R; base < rows; base += warps * groups * R) {
    PackedOf<RowIo, N> v[R][K];
    int phase[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int64_t row = base + r * groups + group;
      const auto row_io = io.row(row < rows ? row : 0);
      phase[r] = row_io.template phase<N>();
      const int64_t packs = row < rows ? packs_in_row(cols, phase[r], N) : 0;
      load_strided_packs<Op, N, K>(row_io, v[r], group_lane, width, packs, phase[r], cols);
    }
    // Reduce all R rows before the first shuffle: their chains are independent and interleave.
    typename Op::State state[R];
#pragma unroll
    for (int r = 0; r < R; ++r) state[r] = reduce_packs<Op, N, K, RowIo>(v[r]);
#pragma unroll
    for (int r = 0; r < R; ++r) state[r] = warp_allreduce(state[r], CombineOf<Op>{}, width);
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int64_t row = base + r * groups + group;
      if (row >= rows) continue;
      const auto fin = Op::finalize(state[r]);
      const int64_t packs = packs_in_row(cols, phase[r], N);
      map_and_store_strided_packs<Op, N, K>(io.row(row), v[r], fin, group_lane, width, packs, phase[r], cols);
      if (group_lane == 0) Op::emit(io, row, fin);
    }
  }
}

}  // namespace rowwise
