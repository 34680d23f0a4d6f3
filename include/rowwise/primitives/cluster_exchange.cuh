// A row's state merged over a thread-block cluster without cluster barriers (sm_90): each CTA pushes its
// state into every CTA's slots by remote asynchronous stores (st.async) that count their bytes on the
// receiver's mbarrier, and each CTA combines the cluster's states once its own barrier has them all.
// Why: a cluster barrier's arrive releases and its wait acquires, and the cluster kernels stalled on
// those memory barriers (ncu, fp32 softmax of 262144 columns: "membar" 2.6 and "barrier" 3.2 warps an
// issued instruction, where block rows have none of the first). Where clusters loop over rows, pushing
// the states took bf16 gradients of 262144 columns from 87 to 95 % of copy; a cluster a row lost 2-7
// (docs/perf.md "Cluster states pushed to peers, no cluster barriers").
// Slots and barriers come in two sets, by the parity of the cluster's row count: a peer pushes its state
// of row n + 2 only after it has this CTA's of row n + 1, which this CTA sends after it has read row n's.
// Every CTA receives only what it waits for, so none exits while a peer may still write to it; a last
// cluster barrier (cluster_exchange_done) keeps it from exiting while its own pushes are in flight, as
// the programming guide asks of distributed shared memory.
#pragma once
#include <cooperative_groups.h>
#include <cstdint>
#include <cstring>

#include "bulk_copy.cuh"
#include "warp_reduce.cuh"

namespace rowwise {

template <class State, int MaxCtas> struct ClusterStates {
  static_assert(sizeof(State) % 4 == 0, "states move as 32-bit words");
  State slots[2][MaxCtas];
  uint64_t bars[2];
};

// This CTA's shared address `local` as CTA `rank` of the cluster sees it.
__device__ inline unsigned cluster_address(const void* local, unsigned rank) {
  unsigned remote = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(shared_address(local)), "r"(rank));
#else
  __trap();
#endif
  return remote;
}

// Sets up the barriers; the cluster waits for all its CTAs' before any state is pushed.
template <class State, int MaxCtas> __device__ inline void cluster_exchange_init(ClusterStates<State, MaxCtas>& s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (cooperative_groups::this_cluster().num_blocks() > MaxCtas) __trap();
  if (threadIdx.x == 0) {
    mbarrier_init(&s.bars[0], 1);
    mbarrier_init(&s.bars[1], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cooperative_groups::this_cluster().sync();
#else
  __trap();
#endif
}

// The cluster's states of the `count`-th row this cluster takes (from 0), combined in rank order: the
// same in every thread of every CTA. `mine` is this CTA's, thread 0's pushed to all (a block reduction
// gives every thread the same state only where the op's combine is commutative to the bit). Every
// thread of the block calls this once a row, after a block barrier since its last call.
template <class Op, class State, int MaxCtas>
__device__ inline State cluster_exchange(const State& mine, unsigned size, unsigned rank, ClusterStates<State, MaxCtas>& s,
                                         unsigned count) {
  State all = Op::identity();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const int set = static_cast<int>(count & 1);
  const unsigned parity = count >> 1 & 1u;
  if (threadIdx.x == 0) mbarrier_arrive_expect_bytes(&s.bars[set], size * static_cast<unsigned>(sizeof(State)));
  const State first = threadIdx.x < kWarpSize ? shfl_from(mine, 0) : mine;  // warp 0 whole
  if (threadIdx.x < size) {  // thread t pushes to CTA t
    constexpr int kWords = sizeof(State) / 4;
    unsigned words[kWords];
    memcpy(words, &first, sizeof(State));
    const unsigned slot = cluster_address(&s.slots[set][rank], threadIdx.x);
    const unsigned bar = cluster_address(&s.bars[set], threadIdx.x);
#pragma unroll
    for (int w = 0; w < kWords; ++w)
      asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(slot + 4 * w),
                   "r"(words[w]), "r"(bar)
                   : "memory");
  }
  mbarrier_wait<true>(&s.bars[set], parity);
  for (unsigned i = 0; i < size; ++i) all = Op::combine(all, s.slots[set][i]);
#else
  __trap();
#endif
  return all;
}

// After the cluster's last exchange: every peer has waited for all it was sent, so every push has landed.
__device__ inline void cluster_exchange_done() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
#else
  __trap();
#endif
}

}  // namespace rowwise
