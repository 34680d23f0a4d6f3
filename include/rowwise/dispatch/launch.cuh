// Turns a Plan into a kernel launch: grid from occupancy, shared-memory opt-in, error check.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>
#include <tuple>
#include <cstdint>

#include "../kernels/block_rows.cuh"
#include "../kernels/block_smem_rows.cuh"
#include "../kernels/cluster_rows.cuh"
#include "../kernels/two_pass_rows.cuh"
#include "../kernels/warp_rows.cuh"
#include "strategy.cuh"

namespace rowwise {

// Grid size. Kernels loop over rows, but looping is only for grids past the hardware limit: a
// resident-sized (persistent) grid measured 86-90 % of copy on an H200 where one block per piece of
// work measured 96-98 % (fp32 and bf16, 512-12345 cols): the hardware starts a new block as an old
// one drains, overlapping one block's loads with another's math better than a loop does.
// Warp blocks of tiny rows carry little data, so each does enough iterations to move about
// kWarpBlockBytes (block launch rate, not bandwidth, limits below that).
inline unsigned grid_for(int64_t work_blocks, int64_t iterations_per_block) {
  const int64_t blocks = (work_blocks + iterations_per_block - 1) / iterations_per_block;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(blocks, INT32_MAX)));
}

template <class Op, int N, int I, class Io>
cudaError_t launch_warp(const Io& io, const RowShape& shape, const Plan& plan,
                        cudaStream_t stream) {
  constexpr WarpConfig c = kWarpConfigs[I];
  if (plan.packs_per_lane != c.packs_per_lane) {
    if constexpr (I + 1 < static_cast<int>(std::size(kWarpConfigs))) {
      return launch_warp<Op, N, I + 1>(io, shape, plan, stream);
    } else {
      return cudaErrorInvalidValue;
    }
  } else {
    auto kernel = warp_rows_kernel<Op, N, c.packs_per_lane, c.rows_per_group, Io>;
    const int64_t rows_per_block = int64_t(plan.threads / plan.width) * c.rows_per_group;
    const int64_t bytes_per_iteration = rows_per_block * shape.cols * shape.pack_bytes / shape.pack;
    const unsigned grid = grid_for((shape.rows + rows_per_block - 1) / rows_per_block,
                                   std::max<int64_t>(1, kWarpBlockBytes / bytes_per_iteration));
    kernel<<<grid, plan.threads, 0, stream>>>(io, shape.rows, shape.cols, plan.width);
    return cudaPeekAtLastError();
  }
}

// One block per row at a time, looping over rows.
template <class Kernel, class Io>
cudaError_t launch_row_blocks(Kernel kernel, const Io& io, const RowShape& shape, const Plan& plan,
                              cudaStream_t stream) {
  if (plan.smem_bytes > 0) {
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(plan.smem_bytes));
        e != cudaSuccess)
      return e;
  }
  kernel<<<grid_for(shape.rows, 1), plan.threads, plan.smem_bytes, stream>>>(io, shape.rows, shape.cols);
  return cudaPeekAtLastError();
}

// One cluster of plan.cluster_size CTAs per row. A device that cannot co-schedule such a cluster (too
// few free SMs per GPC, a non-portable size refused) falls back to the two_pass strategy.
template <class Op, int N, int K, class Io>
cudaError_t launch_cluster(const Io& io, const RowShape& shape, const Plan& plan, cudaStream_t stream) {
  auto kernel = cluster_rows_kernel<Op, N, K, Io>;
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeClusterDimension;
  attribute[0].val.clusterDim.x = plan.cluster_size;
  attribute[0].val.clusterDim.y = 1;
  attribute[0].val.clusterDim.z = 1;
  config.gridDim = grid_for(shape.rows * plan.cluster_size, plan.cluster_size) * plan.cluster_size;
  config.blockDim = plan.threads;
  config.stream = stream;
  config.attrs = attribute;
  config.numAttrs = 1;
  // Whether the device can co-schedule this cluster shape: asked once per device and shape (the
  // query costs microseconds, as much as a decode-sized launch).
  static std::mutex mutex;
  static std::map<std::tuple<int, int, int>, bool> schedulable;
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  bool ok = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto key = std::make_tuple(device, plan.cluster_size, plan.threads);
    auto it = schedulable.find(key);
    if (it == schedulable.end()) {
      if (plan.cluster_size > 8) cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
      int clusters = 0;
      const bool fits = cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) == cudaSuccess && clusters > 0;
      cudaGetLastError();  // a refusal is an answer, not an error to report later
      it = schedulable.emplace(key, fits).first;
    }
    ok = it->second;
  }
  if (!ok) {
    Plan fallback = plan;
    fallback.strategy = Strategy::kTwoPass;
    fallback.threads = stream_block_threads(shape, kTwoPassBatch);
    return launch_row_blocks(two_pass_rows_kernel<Op, N, Io>, io, shape, fallback, stream);
  }
  if (cudaError_t e = cudaLaunchKernelEx(&config, kernel, io, shape.rows, shape.cols); e != cudaSuccess) return e;
  return cudaPeekAtLastError();
}

template <class Op, int N, int I, class Io>
cudaError_t launch_block(const Io& io, const RowShape& shape, const Plan& plan,
                         cudaStream_t stream) {
  constexpr int k = kBlockPacksPerThread[I];
  if (plan.packs_per_thread == k) {
    if (plan.strategy == Strategy::kCluster) return launch_cluster<Op, N, k>(io, shape, plan, stream);
    return launch_row_blocks(block_rows_kernel<Op, N, k, Io>, io, shape, plan, stream);
  }
  if constexpr (I + 1 < static_cast<int>(std::size(kBlockPacksPerThread))) {
    return launch_block<Op, N, I + 1>(io, shape, plan, stream);
  } else {
    return cudaErrorInvalidValue;
  }
}

template <class Op, int N, class Io>
cudaError_t launch_plan(const Io& io, const RowShape& shape, const Plan& plan,
                        cudaStream_t stream) {
  switch (plan.strategy) {
    case Strategy::kWarp:
      return launch_warp<Op, N, 0>(io, shape, plan, stream);
    case Strategy::kBlock:
    case Strategy::kCluster:
      return launch_block<Op, N, 0>(io, shape, plan, stream);
    case Strategy::kBlockSmem:
      return launch_row_blocks(block_smem_rows_kernel<Op, N, Io>, io, shape, plan, stream);
    case Strategy::kTwoPass:
      return launch_row_blocks(two_pass_rows_kernel<Op, N, Io>, io, shape, plan, stream);
    case Strategy::kAuto:
      break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace rowwise
