// Vector packs: N contiguous elements moved by one load/store of up to 16 bytes.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <initializer_list>

namespace rowwise {

inline constexpr int kMaxPackBytes = 16;

template <class T> constexpr int max_pack() { return kMaxPackBytes / static_cast<int>(sizeof(T)); }

template <class T, int N> struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// Assumptions: p is aligned to sizeof(T) * N.
template <int N, class T> __device__ inline Pack<T, N> load_pack(const T* p) {
  return *reinterpret_cast<const Pack<T, N>*>(p);
}
template <int N, class T> __device__ inline void store_pack(T* p, const Pack<T, N>& v) {
  *reinterpret_cast<Pack<T, N>*>(p) = v;
}

// A strided row-major operand: element (r, c) at base + r * row_stride + c.
struct StridedOperand {
  const void* base;
  int64_t row_stride;  // in elements
};

// Packs are aligned in memory, not in the row: row r's element c sits in lane
// (phase(r) + c) % N of its pack, where phase(r) = (base/elem + r*stride) % N. One N-wide access
// per pack is therefore legal for every operand of an op when all operands share that phase on every
// row: equal base phases and equal stride residues. The widest such N (a power of two, at most
// 16 bytes) is the pack width; rows with any start address or length still use full packs in their
// interior and element accesses only in their first and last pack.
inline int common_pack_width(int elem_bytes, std::initializer_list<StridedOperand> operands) {
  for (int n = kMaxPackBytes / elem_bytes; n > 1; n /= 2) {
    bool ok = true;
    const StridedOperand& first = *operands.begin();
    const uintptr_t first_phase = reinterpret_cast<uintptr_t>(first.base) / elem_bytes % n;
    const int64_t first_residue = first.row_stride % n;
    for (const StridedOperand& o : operands) {
      ok = ok && reinterpret_cast<uintptr_t>(o.base) / elem_bytes % n == first_phase &&
           o.row_stride % n == first_residue;
    }
    if (ok) return n;
  }
  return 1;
}

}  // namespace rowwise
