// Global-memory signalling between the CTAs that share a row (the `split` strategy): a CTA publishes a
// partial state, then counts itself in with release semantics; readers wait on the count with acquire
// loads and read the states past L1 (which is not coherent across SMs).
#pragma once
#include <cuda_runtime.h>

#include <cstring>

namespace rowwise {

__device__ inline void add_release(unsigned* counter, unsigned v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(counter), "r"(v) : "memory");
}

__device__ inline unsigned load_acquire(const unsigned* counter) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(counter) : "memory");
  return v;
}

// Spins until *counter >= target; the sleep keeps waiting CTAs off the memory system.
__device__ inline void wait_at_least(const unsigned* counter, unsigned target) {
  while (load_acquire(counter) < target) __nanosleep(128);
}

// A trivially copyable value read from L2 (another SM wrote it), 4 bytes at a time.
template <class S> __device__ inline S load_from_l2(const S* p) {
  static_assert(sizeof(S) % sizeof(unsigned) == 0, "states are whole 32-bit words");
  unsigned words[sizeof(S) / sizeof(unsigned)];
#pragma unroll
  for (size_t i = 0; i < sizeof(S) / sizeof(unsigned); ++i) words[i] = __ldcg(reinterpret_cast<const unsigned*>(p) + i);
  S s;
  memcpy(&s, words, sizeof(S));
  return s;
}

}  // namespace rowwise
