// Runs of consecutive elements read from a shared-memory plane (strategy `tile`, a thread a row).
#pragma once
#include <cstring>

#include "numeric.cuh"

namespace rowwise {

// Bytes a run may read past its last element: the 32-bit word after it (16-bit elements).
inline constexpr int kStagedRunOverreachBytes = 4;

// The M elements of `plane` from element e, as A. 16-bit elements go two a 32-bit access: a row of
// odd length starts at either half of a word, so the words covering the run are read and each pair
// realigned by one funnel shift (bf16 rows of 17 columns a thread each: one shared access and its
// address arithmetic an element in both passes made half the kernel's instructions). Reads up to
// kStagedRunOverreachBytes past the run; the caller's plane must hold them.
template <int M, class A, class T> __device__ inline void load_staged_run(const T* plane, int e, A* v) {
  if constexpr (sizeof(T) == 2 && M % 2 == 0) {
    const T* first = plane + e;
    const int odd = static_cast<int>(__cvta_generic_to_shared(first) >> 1 & 1);
    // From the run's pointer, not an integer address: the compiler then keeps the shared space.
    const unsigned* words = reinterpret_cast<const unsigned*>(first - odd);
    unsigned w[M / 2 + 1];
#pragma unroll
    for (int k = 0; k <= M / 2; ++k) w[k] = words[k];
#pragma unroll
    for (int k = 0; k < M / 2; ++k) {
      const unsigned pair = __funnelshift_r(w[k], w[k + 1], 16 * odd);
      T two[2];
      memcpy(two, &pair, sizeof(pair));
      v[2 * k] = load_as<A>(two[0]);
      v[2 * k + 1] = load_as<A>(two[1]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < M; ++i) v[i] = load_as<A>(plane[e + i]);
  }
}

}  // namespace rowwise
