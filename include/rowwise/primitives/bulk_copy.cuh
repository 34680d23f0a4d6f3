// Hopper's bulk copies (cp.async.bulk, sm_90 and newer): one instruction of one thread moves a run of
// 16-byte multiples from global to shared memory through the tensor memory accelerator, and the copy
// signals its bytes on a shared-memory barrier (mbarrier) that the block's threads wait on. Below sm_90
// these trap: dispatch never asks for them there.
#pragma once
#include <cstdint>

namespace rowwise {

__device__ inline unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// A barrier that completes a phase when `arrivals` threads have arrived and the bytes they expect landed.
__device__ inline void mbarrier_init(uint64_t* bar, unsigned arrivals) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
#else
  __trap();
#endif
}

// Orders this thread's generic-proxy accesses to shared memory (reads of a buffer, a barrier's
// initialisation) before the async proxy's later ones (bulk copies into it, their completion).
__device__ inline void fence_proxy_async_shared() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#else
  __trap();
#endif
}

// Arrives on `bar`, its phase now waiting for `bytes` more to land.
__device__ inline void mbarrier_arrive_expect_bytes(uint64_t* bar, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
#else
  __trap();
#endif
}

// Waits until the phase of `bar` of parity `parity` has completed. kCluster: acquires at cluster scope,
// so that what peers of the cluster stored into this CTA's shared memory (st.async) is seen.
template <bool kCluster = false> __device__ inline void mbarrier_wait(uint64_t* bar, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned done = 0;
  while (!done) {
    if constexpr (kCluster) {
      asm volatile(
          "{\n .reg .pred p;\n mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
          : "=r"(done)
          : "r"(shared_address(bar)), "r"(parity)
          : "memory");
    } else {
      asm volatile(
          "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
          : "=r"(done)
          : "r"(shared_address(bar)), "r"(parity)
          : "memory");
    }
  }
#else
  __trap();
#endif
}

// Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from global `src` to shared `dst`,
// the bytes counted on `bar` as they land.
__device__ inline void bulk_copy(void* dst, const void* src, unsigned bytes, uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(dst)),
               "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
#else
  __trap();
#endif
}

}  // namespace rowwise
