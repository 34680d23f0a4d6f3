// Global-to-shared copies that bypass registers (cp.async, sm_80 and newer): a thread can have all of
// its slice of a row in flight at once, where loads into registers stop at what the registers hold.
// A thread's copies complete in the order of its commit groups; each thread waits for its own.
#pragma once
#include <cuda_runtime.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "rowwise needs sm_80 or newer (cp.async, acquire loads): set CMAKE_CUDA_ARCHITECTURES / -arch to 80 or above"
#endif

namespace rowwise {

template <int Bytes> inline constexpr bool kAsyncCopyable = Bytes == 4 || Bytes == 8 || Bytes == 16;

template <int Bytes> __device__ inline void copy_async(void* shared_dst, const void* global_src) {
  static_assert(kAsyncCopyable<Bytes>, "cp.async moves 4, 8 or 16 bytes");
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  if constexpr (Bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(global_src) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(global_src), "n"(Bytes) : "memory");
  }
}

__device__ inline void commit_async_copies() { asm volatile("cp.async.commit_group;" ::: "memory"); }

// Waits until at most `Pending` of this thread's newest commit groups are still in flight.
template <int Pending> __device__ inline void wait_async_copies() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}

// The same with `pending` known at run time, 0 <= pending <= MaxPending (an unrolled loop's index
// folds the branches away).
template <int MaxPending> __device__ inline void wait_async_copies_at_most(int pending) {
  if constexpr (MaxPending > 0) {
    if (pending < MaxPending) {
      wait_async_copies_at_most<MaxPending - 1>(pending);
      return;
    }
  }
  wait_async_copies<MaxPending>();
}

}  // namespace rowwise
