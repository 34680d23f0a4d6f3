// Turns a Plan into a kernel launch: grid from occupancy, shared-memory opt-in, error check.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <iterator>
#include <cstdint>

#include "../kernels/block_rows.cuh"
#include "../kernels/block_smem_rows.cuh"
#include "../kernels/two_pass_rows.cuh"
#include "../kernels/warp_rows.cuh"
#include "device_info.cuh"
#include "strategy.cuh"

namespace rowwise {

// Blocks that loop over rows: as many as fit on the GPU at once, never more than the work.
template <class Kernel>
cudaError_t grid_for(Kernel kernel, int threads, int64_t smem, int64_t work_blocks, const DeviceInfo& dev,
                     unsigned* grid) {
  int per_sm = 0;
  if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem); e != cudaSuccess)
    return e;
  const int64_t resident = static_cast<int64_t>(std::max(per_sm, 1)) * dev.sm_count;
  *grid = static_cast<unsigned>(std::max<int64_t>(1, std::min(work_blocks, resident)));
  return cudaSuccess;
}

template <class Op, int N, int I, class Io>
cudaError_t launch_warp(const Io& io, const RowShape& shape, const Plan& plan, const DeviceInfo& dev,
                        cudaStream_t stream) {
  constexpr WarpConfig c = kWarpConfigs[I];
  if (plan.packs_per_lane != c.packs_per_lane) {
    if constexpr (I + 1 < static_cast<int>(std::size(kWarpConfigs))) {
      return launch_warp<Op, N, I + 1>(io, shape, plan, dev, stream);
    } else {
      return cudaErrorInvalidValue;
    }
  } else {
    auto kernel = warp_rows_kernel<Op, N, c.packs_per_lane, c.rows_per_group, Io>;
    const int64_t rows_per_block = int64_t(plan.threads / plan.width) * c.rows_per_group;
    unsigned grid = 0;
    if (cudaError_t e = grid_for(kernel, plan.threads, 0, (shape.rows + rows_per_block - 1) / rows_per_block, dev, &grid);
        e != cudaSuccess)
      return e;
    kernel<<<grid, plan.threads, 0, stream>>>(io, shape.rows, shape.cols, plan.width);
    return cudaPeekAtLastError();
  }
}

// One block per row at a time, looping over rows.
template <class Kernel, class Io>
cudaError_t launch_row_blocks(Kernel kernel, const Io& io, const RowShape& shape, const Plan& plan,
                              const DeviceInfo& dev, cudaStream_t stream) {
  if (plan.smem_bytes > 0) {
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(plan.smem_bytes));
        e != cudaSuccess)
      return e;
  }
  unsigned grid = 0;
  if (cudaError_t e = grid_for(kernel, plan.threads, plan.smem_bytes, shape.rows, dev, &grid); e != cudaSuccess)
    return e;
  kernel<<<grid, plan.threads, plan.smem_bytes, stream>>>(io, shape.rows, shape.cols);
  return cudaPeekAtLastError();
}

template <class Op, int N, int I, class Io>
cudaError_t launch_block(const Io& io, const RowShape& shape, const Plan& plan, const DeviceInfo& dev,
                         cudaStream_t stream) {
  constexpr int k = kBlockPacksPerThread[I];
  if (plan.packs_per_thread == k) return launch_row_blocks(block_rows_kernel<Op, N, k, Io>, io, shape, plan, dev, stream);
  if constexpr (I + 1 < static_cast<int>(std::size(kBlockPacksPerThread))) {
    return launch_block<Op, N, I + 1>(io, shape, plan, dev, stream);
  } else {
    return cudaErrorInvalidValue;
  }
}

template <class Op, int N, class Io>
cudaError_t launch_plan(const Io& io, const RowShape& shape, const Plan& plan, const DeviceInfo& dev,
                        cudaStream_t stream) {
  switch (plan.strategy) {
    case Strategy::kWarp:
      return launch_warp<Op, N, 0>(io, shape, plan, dev, stream);
    case Strategy::kBlock:
      return launch_block<Op, N, 0>(io, shape, plan, dev, stream);
    case Strategy::kBlockSmem:
      return launch_row_blocks(block_smem_rows_kernel<Op, N, Io>, io, shape, plan, dev, stream);
    case Strategy::kTwoPass:
      return launch_row_blocks(two_pass_rows_kernel<Op, N, Io>, io, shape, plan, dev, stream);
    case Strategy::kAuto:
      break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace rowwise
