// Turns a Plan into a kernel launch: grid from occupancy, shared-memory opt-in, error check.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <cstdint>

#include "../kernels/block_rows.cuh"
#include "../kernels/block_smem_rows.cuh"
#include "../kernels/cluster_rows.cuh"
#include "../kernels/cluster_smem_rows.cuh"
#include "../kernels/split_rows.cuh"
#include "../kernels/tile_rows.cuh"
#include "../kernels/two_launch_rows.cuh"
#include "../kernels/two_pass_rows.cuh"
#include "../kernels/warp_rows.cuh"
#include "device_info.cuh"
#include "strategy.cuh"

namespace rowwise {

// A plan the launcher has no kernel for: the planner and the launcher disagree, a bug. Not
// cudaErrorInvalidValue, which is a forced strategy's refusal of a row (tests skip those).
inline constexpr cudaError_t kNoKernelForPlan = cudaErrorNotSupported;

// Most CTAs a launch of `plan` may have: the caller's bound (Options::max_ctas), else the hardware's.
inline int64_t cta_cap(const Plan& plan) {
  return plan.max_ctas > 0 ? std::min<int64_t>(plan.max_ctas, INT32_MAX) : INT32_MAX;
}
// The same in whole groups of CTAs that run together (a cluster, split's CTAs of a row), one at least.
inline int64_t cta_cap_in_groups(const Plan& plan, int64_t group) {
  return std::max(group, cta_cap(plan) / group * group);
}

// Grid size. Kernels loop over rows, but only for grids past the hardware limit or the caller's bound: a
// resident-sized (persistent) grid measured 86-90 % of copy on an H200 where one block per piece of
// work measured 96-98 % (fp32 and bf16, 512-12345 cols): the hardware starts a new block as an old
// one drains, overlapping one block's loads with another's math better than a loop does. So too for
// block_smem, one block an SM, whose looping threads could start the next row's copies early: fp32
// softmax 50257 columns 87 -> 80 % looping.
// Warp blocks of tiny rows carry little data, so each does enough iterations to move about
// warp_block_bytes (block launch rate, not bandwidth, limits below that), while the tensor leaves
// several blocks an SM (warp_block_iterations).
inline unsigned grid_for(int64_t work_blocks, int64_t iterations_per_block, const Plan& plan) {
  const int64_t blocks = (work_blocks + iterations_per_block - 1) / iterations_per_block;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(blocks, cta_cap(plan))));
}

// A launch's configuration for cudaLaunchKernelEx: `attribute` (split's cooperative launch, cluster's
// dimension) where given, and programmatic dependent launch where asked (Plan::programmatic_launch). It
// holds the attributes it points to, so it is built where it is used and never copied.
class LaunchConfig {
 public:
  LaunchConfig(unsigned grid, int threads, int64_t smem_bytes, cudaStream_t stream, bool programmatic,
               const cudaLaunchAttribute* attribute = nullptr) {
    config_.gridDim = grid;
    config_.blockDim = threads;
    config_.dynamicSmemBytes = static_cast<size_t>(smem_bytes);
    config_.stream = stream;
    if (attribute != nullptr) attributes_[config_.numAttrs++] = *attribute;
    if (programmatic) {
      cudaLaunchAttribute& a = attributes_[config_.numAttrs++];
      a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      a.val.programmaticStreamSerializationAllowed = 1;
    }
    config_.attrs = attributes_;
  }
  LaunchConfig(const LaunchConfig&) = delete;
  LaunchConfig& operator=(const LaunchConfig&) = delete;
  cudaLaunchConfig_t* get() { return &config_; }

 private:
  cudaLaunchAttribute attributes_[2] = {};
  cudaLaunchConfig_t config_ = {};
};

// kernel<<<grid, plan.threads, smem_bytes, stream>>>(args...), programmatic where the plan asks it,
// returning that launch's own error: cudaPeekAtLastError after a launch also returns any earlier failed
// runtime call of the thread's (the caller's, or one of ours, which then failed every later call too).
template <class... Params, class... Args>
cudaError_t launch_kernel(void (*kernel)(Params...), unsigned grid, const Plan& plan, int64_t smem_bytes,
                          cudaStream_t stream, const Args&... args) {
  LaunchConfig config(grid, plan.threads, smem_bytes, stream, plan.programmatic_launch);
  return cudaLaunchKernelEx(config.get(), kernel, args...);
}

template <class Op, int N, int I, class Io>
cudaError_t launch_warp(const Io& io, const RowShape& shape, const Plan& plan,
                        cudaStream_t stream) {
  constexpr WarpConfig c = kWarpConfigs[I];
  // Configurations not built for this op and these rows are passed over: they are never planned for
  // them (dispatch_test's WarpPlansAreLaunchedConfigs also wants a plan to match one table entry only).
  if constexpr (warp_config_built(c, kOpExpPerElement<Op>, kNarrowsOutput<typename Io::Row>, N,
                                  sizeof(PackedOf<typename Io::Row, 1>))) {
    if (plan.packs_per_lane == c.packs_per_lane && plan.rows_per_group == c.rows_per_group &&
        plan.edge == c.edge_lanes && warp_config_width(c, plan.width, plan.lanes)) {
      if (c.edge_lanes && c.lanes == 0 && plan.width < kMinEdgeThreads) return kNoKernelForPlan;  // edge slots
      auto kernel = warp_rows_kernel_for<Op, N, c.packs_per_lane, c.rows_per_group, c.edge_lanes, c.lanes,
                                         c.ends == PackEnds::kWhole, Io>();
      const int64_t rows_per_block = warp_rows_per_block(plan);
      const unsigned grid = grid_for((shape.rows + rows_per_block - 1) / rows_per_block, plan.block_iterations, plan);
      return launch_kernel(kernel, grid, plan, 0, stream, io, shape.rows, shape.cols, plan.width);
    }
  }
  if constexpr (I + 1 < static_cast<int>(std::size(kWarpConfigs))) {
    return launch_warp<Op, N, I + 1>(io, shape, plan, stream);
  } else {
    return kNoKernelForPlan;
  }
}

// Lets `kernel` use `bytes` of dynamic shared memory in the current context. The attribute is set
// once per kernel, context and larger size: setting it on every launch cost microseconds of host time,
// which a small launch's timing includes. Keyed by context, not device: a cudaDeviceReset forgets it.
template <class Kernel> cudaError_t allow_dynamic_smem(Kernel kernel, int64_t bytes) {
  static std::mutex mutex;
  static std::map<std::pair<const void*, unsigned long long>, int64_t> allowed;
  const unsigned long long context = current_context_id();
  std::lock_guard<std::mutex> lock(mutex);
  int64_t* most = context != 0 ? &allowed[{reinterpret_cast<const void*>(kernel), context}] : nullptr;
  if (most != nullptr && bytes <= *most) return cudaSuccess;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
      e != cudaSuccess)
    return e;
  if (most != nullptr) *most = bytes;
  return cudaSuccess;
}

// One block per row at a time, looping over rows.
template <class Kernel, class Io>
cudaError_t launch_row_blocks(Kernel kernel, const Io& io, const RowShape& shape, const Plan& plan,
                              cudaStream_t stream) {
  if (cudaError_t e = allow_dynamic_smem(kernel, plan.smem_bytes); e != cudaSuccess) return e;
  return launch_kernel(kernel, grid_for(shape.rows, 1, plan), plan, plan.smem_bytes, stream, io, shape.rows,
                       shape.cols);
}

// Tiles of plan.rows_per_tile rows, one block each; thread rows that keep their runs in a kernel with
// the registers for as many as they hold (kTileKeepsRuns).
template <class Op, class Io>
cudaError_t launch_tile(const Io& io, const RowShape& shape, const Plan& plan, cudaStream_t stream) {
  auto kernel = tile_rows_kernel<Op, Io, 0>;
  if constexpr (kTileKeepsRuns<Op, typename Io::Row>) {
    if (shape.cols <= kTileChunk) kernel = tile_rows_kernel<Op, Io, 1>;
    else if (shape.cols <= kTileKeptRuns * kTileChunk) kernel = tile_rows_kernel<Op, Io, kTileKeptRuns>;
  }
  if (cudaError_t e = allow_dynamic_smem(kernel, plan.smem_bytes); e != cudaSuccess) return e;
  return launch_kernel(kernel, grid_for(shape.rows, plan.rows_per_tile, plan), plan, plan.smem_bytes, stream, io,
                       shape.rows, shape.cols, plan.rows_per_tile, plan.width, plan.pair_split,
                       plan.out_in_input_plane);
}

// A split launch's workspace: two counters per row first (where a caller's zeroed workspace keeps
// them whatever the layout), then a state per slice.
inline size_t split_counter_bytes(int64_t rows) { return (2 * static_cast<size_t>(rows) * sizeof(unsigned) + 15) / 16 * 16; }
inline size_t split_workspace_bytes(int64_t rows, int64_t chunks, size_t state_bytes) {
  return split_counter_bytes(rows) + static_cast<size_t>(rows * chunks) * state_bytes;
}

// Runs launch(workspace, own) on the caller's workspace, or (own) on `bytes` taken from the stream's
// memory pool and given back after it; the launch's error comes before the free's. A device without
// stream-ordered pools (DeviceInfo::memory_pools false: some virtualized GPUs and drivers), where
// cudaMallocAsync fails, takes cudaMalloc, whose cudaFree waits for the device to finish.
template <class Launch>
cudaError_t with_workspace(void* workspace, size_t bytes, const DeviceInfo& dev, cudaStream_t stream,
                           Launch&& launch) {
  if (workspace != nullptr) return launch(workspace, false);
  if (cudaError_t e = dev.memory_pools ? cudaMallocAsync(&workspace, bytes, stream) : cudaMalloc(&workspace, bytes);
      e != cudaSuccess)
    return e;
  const cudaError_t e = launch(workspace, true);
  const cudaError_t freed = dev.memory_pools ? cudaFreeAsync(workspace, stream) : cudaFree(workspace);
  return e != cudaSuccess ? e : freed;
}

// Blocks of `kernel` one SM holds with `smem_bytes` of dynamic shared memory, asked once per device
// and size (the query costs microseconds, as much as a small launch).
template <class Kernel> cudaError_t resident_blocks_per_sm(Kernel kernel, int threads, int64_t smem_bytes, int* blocks) {
  static std::mutex mutex;
  static std::map<std::tuple<const void*, int, int, int64_t>, int> cache;  // kernels of one signature share it
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), device, threads, smem_bytes);
  if (auto it = cache.find(key); it != cache.end()) {
    *blocks = it->second;
    return cudaSuccess;
  }
  if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, threads, static_cast<size_t>(smem_bytes));
      e != cudaSuccess)
    return e;
  cache.emplace(key, *blocks);
  return cudaSuccess;
}

// A cooperative (co-resident) grid of whole rounds of plan.split.chunks CTAs. `workspace` holds
// split_workspace_bytes with zero counters (left zero again), or is null: then it is taken from the
// stream's memory pool for this launch.
template <class Op, int N, class Io>
cudaError_t launch_split(const Io& io, const RowShape& shape, const Plan& plan, cudaStream_t stream, void* workspace) {
  using State = typename Op::State;
  auto kernel = split_rows_kernel<Op, N, Io>;
  if (cudaError_t e = allow_dynamic_smem(kernel, plan.smem_bytes); e != cudaSuccess) return e;
  DeviceInfo dev;
  int per_sm = 0;
  if (cudaError_t e = current_device_info(&dev); e != cudaSuccess) return e;
  if (cudaError_t e = resident_blocks_per_sm(kernel, plan.threads, plan.smem_bytes, &per_sm); e != cudaSuccess) return e;
  const SplitLayout& layout = plan.split;
  // The plan's pieces are the kernel's (split_piece_packs of the same pack bytes); held packs in
  // part-pieces would overrun the shared buffer.
  if (layout.held_packs % kSplitPiecePacks<N, Io> != 0) return kNoKernelForPlan;
  const int64_t rounds_ctas = int64_t(per_sm) * dev.sm_count / layout.chunks * layout.chunks;
  if (rounds_ctas == 0) return cudaErrorCooperativeLaunchTooLarge;  // the plan assumed more residents
  const int64_t items = shape.rows * layout.chunks;

  const size_t bytes = split_workspace_bytes(shape.rows, layout.chunks, sizeof(State));
  const cudaError_t e = with_workspace(workspace, bytes, dev, stream, [&](void* w, bool own) {
    auto* counters = static_cast<unsigned*>(w);
    auto* states = reinterpret_cast<State*>(static_cast<unsigned char*>(w) + split_counter_bytes(shape.rows));
    const SplitWorkspace<State> ws{states, counters, own ? nullptr : counters + shape.rows};
    if (own) {
      if (cudaError_t z = cudaMemsetAsync(counters, 0, shape.rows * sizeof(unsigned), stream); z != cudaSuccess) return z;
    }
    cudaLaunchAttribute cooperative = {};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    // A row's CTAs wait for each other: a bound keeps one row's worth at least.
    const auto grid = static_cast<unsigned>(std::min({items, rounds_ctas, cta_cap_in_groups(plan, layout.chunks)}));
    LaunchConfig config(grid, plan.threads, plan.smem_bytes, stream, false, &cooperative);
    return cudaLaunchKernelEx(config.get(), kernel, io, shape.rows, shape.cols, layout, ws);
  });
  return e;
}

// Two launches of up to the resident CTAs (plan.row_ctas a row), the states between them in
// `workspace` (after the counters split keeps there, which it leaves untouched), or in memory from the
// stream's pool.
template <class Op, int N, class Io>
cudaError_t launch_two_launch(const Io& io, const RowShape& shape, const Plan& plan, cudaStream_t stream,
                              void* workspace) {
  using State = typename Op::State;
  DeviceInfo dev;
  if (cudaError_t e = current_device_info(&dev); e != cudaSuccess) return e;
  const size_t bytes = split_workspace_bytes(shape.rows, plan.row_ctas, sizeof(State));
  return with_workspace(workspace, bytes, dev, stream, [&](void* w, bool own) {
    auto* states = reinterpret_cast<State*>(static_cast<unsigned char*>(w) + split_counter_bytes(shape.rows));
    const unsigned grid =
        static_cast<unsigned>(std::min<int64_t>({shape.rows * plan.row_ctas, split_resident_ctas(dev), cta_cap(plan)}));
    // The reduction right after its workspace's allocation launches as usual (Options::programmatic_launch).
    Plan reduce_plan = plan;
    reduce_plan.programmatic_launch = plan.programmatic_launch && !own;
    cudaError_t e = launch_kernel(two_launch_reduce_kernel<Op, N, Io>, grid, reduce_plan, 0, stream, io, shape.rows,
                                  shape.cols, plan.row_ctas, states);
    constexpr int64_t ring_bytes = Io::Row::template kAsyncCopy<N> ? kTwoLaunchRingBytes<N, Io> : 0;
    auto map_kernel = two_launch_map_kernel<Op, N, Io>;
    if (e == cudaSuccess) e = allow_dynamic_smem(map_kernel, ring_bytes);
    if (e == cudaSuccess) {
      e = launch_kernel(map_kernel, grid, plan, ring_bytes, stream, io, shape.rows, shape.cols, plan.row_ctas, states);
    }
    return e;
  });
}

// The plan of `strategy` for `shape` that a launcher falls back to, keeping `from`'s CTA bound;
// cudaErrorInvalidValue where that strategy takes no such row.
inline cudaError_t fallback_plan(Strategy strategy, const RowShape& shape, const Plan& from, Plan* to) {
  DeviceInfo dev;
  if (cudaError_t e = current_device_info(&dev); e != cudaSuccess) return e;
  if (!plan_for(strategy, shape, dev, to)) return cudaErrorInvalidValue;
  to->max_ctas = from.max_ctas;
  to->programmatic_launch = from.programmatic_launch && waits_for_prior_grid(strategy);
  return cudaSuccess;
}

// Split's grid must be co-resident: a context holding fewer CTAs than the device's SMs suggest (an MPS
// client's share, a green context) refuses it, and its rows go to two_launch, which needs no
// co-residence.
template <class Op, int N, class Io>
cudaError_t launch_split_or_two_launch(const Io& io, const RowShape& shape, const Plan& plan, cudaStream_t stream,
                                       void* workspace) {
  const cudaError_t e = launch_split<Op, N>(io, shape, plan, stream, workspace);
  if (e != cudaErrorCooperativeLaunchTooLarge) return e;
  // A refusal by the driver is ours, answered here (launch_split also returns it without launching,
  // where a caller's pending error must stay).
  if (cudaPeekAtLastError() == cudaErrorCooperativeLaunchTooLarge) cudaGetLastError();
  Plan fallback;
  if (cudaError_t f = fallback_plan(Strategy::kTwoLaunch, shape, plan, &fallback); f != cudaSuccess) return f;
  return launch_two_launch<Op, N>(io, shape, fallback, stream, workspace);
}

// How many clusters of plan.cluster_size CTAs of `kernel` (plan.threads threads and `smem_bytes` of
// dynamic shared memory each) the device holds at once; 0 where it cannot co-schedule one (too few free
// SMs per GPC, a non-portable size refused) or the kernel was built from code older than sm_90 (a build
// without sm_90, its sm_80 PTX compiled for this GPU: the kernel's body is its trap). Asked once per
// context, kernel and launch shape: the query costs microseconds, as much as a decode-sized launch; the
// context holds the non-portable size allowed, which a cudaDeviceReset forgets.
// Clusters are scheduled load-balancing (the hardware may put several of a cluster's CTAs on one SM),
// not spread (each on an SM of its own): spread, an H200 held 28 clusters of 16 CTAs of 256 threads
// at once, 448 of its 528 CTA slots, and a GPC of fewer than 16 free SMs none; load-balancing, 30
// (docs/perf.md "Clusters scheduled load-balancing").
template <class Kernel>
int clusters_held_at_once(Kernel kernel, const Plan& plan, int64_t smem_bytes, LaunchConfig& query) {
  static std::mutex mutex;
  static std::map<std::tuple<unsigned long long, const void*, int, int, int64_t>, int> held_clusters;
  const unsigned long long context = current_context_id();
  std::lock_guard<std::mutex> lock(mutex);
  const auto key =
      std::make_tuple(context, reinterpret_cast<const void*>(kernel), plan.cluster_size, plan.threads, smem_bytes);
  if (auto it = held_clusters.find(key); it != held_clusters.end()) return it->second;
  if (plan.cluster_size > 8) cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaFuncAttributes built{};
  int clusters = 0;
  // Load-balancing where the driver takes it, else its default; a refusal is ours, not kept in the
  // thread's last error.
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeClusterSchedulingPolicyPreference,
                           cudaClusterSchedulingPolicyLoadBalancing) != cudaSuccess)
    cudaGetLastError();
  cudaError_t e = cudaFuncGetAttributes(&built, kernel);
  if (e == cudaSuccess && built.ptxVersion >= 90) e = cudaOccupancyMaxActiveClusters(&clusters, kernel, query.get());
  const int held = e == cudaSuccess && built.ptxVersion >= 90 ? clusters : 0;
  // A failed query is no answer (it may pass next time): cleared from the thread's last error (it is
  // ours), not cached.
  if (e != cudaSuccess) cudaGetLastError();
  if (context != 0 && e == cudaSuccess) held_clusters.emplace(key, held);
  return held;
}

// One cluster of plan.cluster_size CTAs of `kernel` per row (cluster_rows_kernel, cluster_smem_rows_kernel),
// `smem_bytes` of dynamic shared memory each; where the device cannot co-schedule such a cluster
// (clusters_held_at_once), the rows fall back to the split strategy. Where the plan's clusters loop over
// rows (Plan::clusters_loop), the grid is the clusters the device holds at once.
template <class Op, int N, class Kernel, class Io>
cudaError_t launch_clusters(Kernel kernel, const Io& io, const RowShape& shape, const Plan& plan, int64_t smem_bytes,
                            cudaStream_t stream, void* workspace) {
  if (cudaError_t e = allow_dynamic_smem(kernel, smem_bytes); e != cudaSuccess) return e;
  cudaLaunchAttribute dimension = {};
  dimension.id = cudaLaunchAttributeClusterDimension;
  dimension.val.clusterDim.x = plan.cluster_size;
  dimension.val.clusterDim.y = 1;
  dimension.val.clusterDim.z = 1;
  // A cluster a row (the kernel loops past 2^31 CTAs or the caller's bound, one cluster at least).
  const int64_t grid_clusters =
      std::min<int64_t>(shape.rows, cta_cap_in_groups(plan, plan.cluster_size) / plan.cluster_size);
  const auto grid = static_cast<unsigned>(grid_clusters * plan.cluster_size);
  LaunchConfig config(grid, plan.threads, smem_bytes, stream, plan.programmatic_launch, &dimension);
  // Asked without programmatic launch, which changes nothing it counts.
  LaunchConfig query(grid, plan.threads, smem_bytes, stream, false, &dimension);
  const int held = clusters_held_at_once(kernel, plan, smem_bytes, query);
  if (held <= 0) {
    Plan fallback;
    if (cudaError_t f = fallback_plan(Strategy::kSplit, shape, plan, &fallback); f != cudaSuccess) return f;
    return launch_split_or_two_launch<Op, N>(io, shape, fallback, stream, workspace);
  }
  if (plan.clusters_loop && held < grid_clusters) config.get()->gridDim.x = static_cast<unsigned>(held * plan.cluster_size);
  return cudaLaunchKernelEx(config.get(), kernel, io, shape.rows, shape.cols);
}

// Register cluster slices: tail slices where the plan asks for them (they loop); clusters that loop over
// rows push their states (no plan that takes the edge loops); the dense kernel where the plan asks for it
// and it is built (kDenseClusterSlices: other Ios take the unbounded one).
template <class Op, int N, int K, bool kEdge, class Io>
cudaError_t launch_cluster_rows(const Io& io, const RowShape& shape, const Plan& plan, cudaStream_t stream,
                                void* workspace) {
  if constexpr (!kEdge && kTailClusterSlices<Op, N, K, Io>) {
    if (plan.tail_slices)
      return launch_clusters<Op, N>(cluster_rows_tail_kernel<Op, N, K, Io>, io, shape, plan, plan.smem_bytes, stream,
                                    workspace);
  }
  if constexpr (!kEdge) {
    if (plan.clusters_loop)
      return launch_clusters<Op, N>(cluster_rows_kernel<Op, N, K, false, true, Io>, io, shape, plan, 0, stream, workspace);
  }
  if constexpr (kDenseClusterSlices<N, K, Io>) {
    if (plan.dense_slices)
      return launch_clusters<Op, N>(cluster_rows_dense_kernel<Op, N, K, kEdge, Io>, io, shape, plan, 0, stream,
                                    workspace);
  }
  return launch_clusters<Op, N>(cluster_rows_kernel<Op, N, K, kEdge, false, Io>, io, shape, plan, 0, stream, workspace);
}

// Only the K that plan_block_slice can choose are instantiated (kBlockRowsInstantiated), and the narrow
// K for block rows of float math alone; cluster slices take none of the narrow, wide and gradient K.
template <class Op, int N, int I, class Io>
cudaError_t launch_block(const Io& io, const RowShape& shape, const Plan& plan, cudaStream_t stream,
                         void* workspace) {
  constexpr int k = kBlockPacksPerThread[I];
  if constexpr (kBlockRowsInstantiated<N, k, Io>) {
    if (plan.packs_per_thread == k) {
      if constexpr (!residency_only_packs(k)) {
        if (plan.strategy == Strategy::kCluster) {
          // Only gradient ops' 16-bit rows in 16-byte packs plan the edge (cluster_rows_take_edge).
          if constexpr (kOpTakesEdgeInBlockRows<Op> && kBlockEdgePacks<N, Io>) {
            if (plan.edge) return launch_cluster_rows<Op, N, k, true>(io, shape, plan, stream, workspace);
          }
          return launch_cluster_rows<Op, N, k, false>(io, shape, plan, stream, workspace);
        }
      }
      if constexpr (k != kNarrowBlockPacks || sizeof(typename Op::Acc) <= 4) {
        if (plan.strategy == Strategy::kBlock) {
          constexpr bool kOpEdge = kOpTakesEdgeInBlockRows<Op>;
          if constexpr (!kOpEdge && kBlockEdgePacks<N, Io>) {
            if (plan.edge) return launch_row_blocks(block_rows_kernel<Op, N, k, true, Io>, io, shape, plan, stream);
          }
          return launch_row_blocks(block_rows_kernel<Op, N, k, kOpEdge, Io>, io, shape, plan, stream);
        }
      }
    }
  }
  if constexpr (I + 1 < static_cast<int>(std::size(kBlockPacksPerThread))) {
    return launch_block<Op, N, I + 1>(io, shape, plan, stream, workspace);
  } else {
    return kNoKernelForPlan;
  }
}

// cluster_smem rows where their kernel is built (kClusterSmemKernel: one operand of 16-byte packs with
// async copies, float math); other rows, forced there, take register clusters (or are refused where
// those hold no such row: past 1 MB on chip).
template <class Op, int N, class Io>
cudaError_t launch_cluster_smem(const Io& io, const RowShape& shape, const Plan& plan, cudaStream_t stream,
                                void* workspace) {
  if constexpr (kClusterSmemKernel<Op, N, Io>) {
    return launch_clusters<Op, N>(cluster_smem_rows_kernel<Op, N, Io>, io, shape, plan, plan.smem_bytes, stream,
                                  workspace);
  } else {
    Plan fallback;
    if (cudaError_t f = fallback_plan(Strategy::kCluster, shape, plan, &fallback); f != cudaSuccess) return f;
    return launch_block<Op, N, 0>(io, shape, fallback, stream, workspace);
  }
}

// `workspace`: for the split and two_launch strategies (see launch_split); null lets them allocate their own.
template <class Op, int N, class Io>
cudaError_t launch_plan(const Io& io, const RowShape& shape, const Plan& plan, cudaStream_t stream,
                        void* workspace = nullptr) {
  switch (plan.strategy) {
    case Strategy::kWarp:
      return launch_warp<Op, N, 0>(io, shape, plan, stream);
    case Strategy::kBlock:
    case Strategy::kCluster:
      return launch_block<Op, N, 0>(io, shape, plan, stream, workspace);
    case Strategy::kClusterSmem:
      return launch_cluster_smem<Op, N>(io, shape, plan, stream, workspace);
    case Strategy::kBlockSmem:
      if (plan.fills_sm) {
        // Bulk copies for the rows dispatch gives them (block_smem_bulk_copies): softmax and log_softmax
        // of fp32 and 16-bit rows.
        if constexpr (Io::kInputs == 1 && kOpExpPerElement<Op> && sizeof(typename Op::Acc) == 4 &&
                      kRowBulkCopy<typename Io::Row, N>) {
          if (plan.bulk_copies)
            return launch_row_blocks(block_smem_rows_kernel<Op, N, true, Io, true>, io, shape, plan, stream);
        }
        return launch_row_blocks(block_smem_rows_kernel<Op, N, true, Io>, io, shape, plan, stream);
      }
      if (plan.smem_bytes < shape.row_value_bytes()) return kNoKernelForPlan;  // only kFillsSm streams
      return launch_row_blocks(block_smem_rows_kernel<Op, N, false, Io>, io, shape, plan, stream);
    case Strategy::kSplit:
      return launch_split_or_two_launch<Op, N>(io, shape, plan, stream, workspace);
    case Strategy::kTwoLaunch:
      return launch_two_launch<Op, N>(io, shape, plan, stream, workspace);
    case Strategy::kTwoPass:
      return launch_row_blocks(two_pass_rows_kernel<Op, N, Io>, io, shape, plan, stream);
    case Strategy::kTile:
      if constexpr (Io::Row::kStaged) return launch_tile<Op>(io, shape, plan, stream);
      break;
    case Strategy::kAuto:
      break;
  }
  return kNoKernelForPlan;
}

}  // namespace rowwise
