// Runs of consecutive elements of a thread's row in a shared-memory plane (strategy `tile`, a thread
// a row): read into values, and values written back.
#pragma once
#include <cstring>
#include <type_traits>

#include "numeric.cuh"

namespace rowwise {

// Bytes a run may read past its last element: the 32-bit word after it (16-bit elements).
inline constexpr int kStagedRunOverreachBytes = 4;

// A row of 16-bit elements in shared memory as 32-bit words: a row of odd length starts at either
// half of a word. `words` holds element 0 (in its high half where `shift` is 16); a pair of elements
// from an even index j is funnel-shifted out of words j / 2 and j / 2 + 1. Taken from the row's
// pointer, not an integer address, so that the compiler keeps the shared space; computed once a row,
// where from each run's address it cost 6-8 instructions a run.
struct WordRow {
  unsigned* words;
  int shift;
};
template <class T> __device__ inline WordRow word_row(const T* row) {
  static_assert(sizeof(T) == 2, "words of two elements");
  const int odd = static_cast<int>(__cvta_generic_to_shared(row) >> 1 & 1);
  return {reinterpret_cast<unsigned*>(const_cast<T*>(row - odd)), 16 * odd};
}

// The M elements of `row` from element j (even), as A. 16-bit elements go two a 32-bit access (bf16
// rows of 17 columns a thread each: one shared access and its address arithmetic an element in both
// passes made half the kernel's instructions). Reads up to kStagedRunOverreachBytes past the run; the
// caller's plane must hold them.
template <int M, class A, class T> __device__ inline void load_staged_run(const T* row, int j, A* v) {
  if constexpr (sizeof(T) == 2 && M % 2 == 0) {
    const WordRow r = word_row(row);
    const unsigned* words = r.words + (j >> 1);
    unsigned w[M / 2 + 1];
#pragma unroll
    for (int k = 0; k <= M / 2; ++k) w[k] = words[k];
#pragma unroll
    for (int k = 0; k < M / 2; ++k) {
      const unsigned pair = __funnelshift_r(w[k], w[k + 1], r.shift);
      T two[2];
      memcpy(two, &pair, sizeof(pair));
      v[2 * k] = load_as<A>(two[0]);
      v[2 * k + 1] = load_as<A>(two[1]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < M; ++i) v[i] = load_as<A>(row[j + i]);
  }
}

// Stores the M values v, converted to T, into `row` from element j (even). 16-bit elements from floats
// go two a cvt and two a 32-bit access where the pair fills a word (the words inside the run), the
// run's first and last elements one a 16-bit access: one code for both halves a row may start at,
// since a warp's rows start at both. Writes nothing outside the run.
template <int M, class T, class A> __device__ inline void store_staged_run(T* row, int j, const A* v) {
  if constexpr (sizeof(T) == 2 && std::is_same_v<A, float> && M % 2 == 0 && M > 2) {
    unsigned pairs[M / 2];
#pragma unroll
    for (int k = 0; k < M / 2; ++k) pairs[k] = pair_as<T>(v[2 * k], v[2 * k + 1]);
    const WordRow r = word_row(row);
    unsigned* words = r.words + (j >> 1);
    // Word k holds elements 2k - 1 and 2k where the row starts at a high half, else 2k and 2k + 1.
#pragma unroll
    for (int k = 1; k < M / 2; ++k) words[k] = __funnelshift_l(pairs[k - 1], pairs[k], r.shift);
    // Left over: element 0, and element 1 (row at a low half) or M - 1 (at a high half).
    T first[2], last[2];
    memcpy(first, &pairs[0], sizeof(first));
    memcpy(last, &pairs[M / 2 - 1], sizeof(last));
    row[j] = first[0];
    row[j + (r.shift != 0 ? M - 1 : 1)] = r.shift != 0 ? last[1] : first[1];
  } else {
    T y[M];
    store_all_as<T, M>(v, y);
#pragma unroll
    for (int i = 0; i < M; ++i) row[j + i] = y[i];
  }
}

}  // namespace rowwise
