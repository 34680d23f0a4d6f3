// Vector packs: N contiguous elements moved by one load/store of up to 16 bytes.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace rowwise {

inline constexpr int kMaxPackBytes = 16;

template <class T> constexpr int max_pack() { return kMaxPackBytes / static_cast<int>(sizeof(T)); }

template <class T, int N> struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// One vector instruction per pack, in PTX (no "memory" clobber: every store's value depends on the
// loads of its row, so the compiler cannot move it before them, and a clobber per store made it keep
// far more registers live: 128 instead of 80 in the bf16 warp kernel): copying a Pack of __half or __nv_bfloat16 (class types),
// or even a uint4 built from them, lets the compiler split a 16-byte store into 2- or 4-byte pieces
// (seen in the bf16 block kernel), which multiplies L2 write transactions.
template <int Bytes> struct RawBits;
template <> struct RawBits<16> { using type = uint4; };
template <> struct RawBits<8> { using type = uint2; };
template <> struct RawBits<4> { using type = unsigned; };
template <> struct RawBits<2> { using type = unsigned short; };
template <> struct RawBits<1> { using type = unsigned char; };

__device__ inline void load_raw(const void* p, uint4& r) {
  asm volatile("ld.global.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
}
__device__ inline void load_raw(const void* p, uint2& r) {
  asm volatile("ld.global.v2.b32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p));
}
__device__ inline void load_raw(const void* p, unsigned& r) {
  asm volatile("ld.global.b32 %0, [%1];" : "=r"(r) : "l"(p));
}
template <class R> __device__ inline void load_raw(const void* p, R& r) { r = *static_cast<const R*>(p); }

__device__ inline void store_raw(void* p, const uint4& r) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(r.x), "r"(r.y), "r"(r.z), "r"(r.w));
}
__device__ inline void store_raw(void* p, const uint2& r) {
  asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p), "r"(r.x), "r"(r.y));
}
__device__ inline void store_raw(void* p, const unsigned& r) {
  asm volatile("st.global.b32 [%0], %1;" ::"l"(p), "r"(r));
}
template <class R> __device__ inline void store_raw(void* p, const R& r) { *static_cast<R*>(p) = r; }

// A row's address hidden from the compiler, so that it stays one register pair and each access adds
// its column to it: NVVM otherwise folds base + row * stride + col into one index and redoes the
// 64-bit multiply at every access (6 instructions a store in 16-bit warp rows, where time follows
// instructions). The accesses name the global space themselves (above), so the pointer's lost
// provenance costs nothing. Kernels bounded to few registers may prefer the recomputation (16-bit
// block rows of 7 packs spilled 8-16 bytes holding two addresses), so strategies opt in (Row::opaque).
template <class T> __device__ inline T* opaque_address(T* p) {
  // As bytes: NVVM mistyped isspacep on a pointer to a class type (fp8 e4m3) and stopped.
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(p);
  asm("" : "+l"(bytes));
  __builtin_assume(__isGlobal(bytes));
  return reinterpret_cast<T*>(const_cast<unsigned char*>(bytes));
}

// An empty asm that claims to change the registers: the compiler must unpack them again instead of
// keeping values it unpacked earlier alive (which would undo keeping the row packed).
__device__ inline void launder_raw(uint4& r) { asm volatile("" : "+r"(r.x), "+r"(r.y), "+r"(r.z), "+r"(r.w)); }
__device__ inline void launder_raw(uint2& r) { asm volatile("" : "+r"(r.x), "+r"(r.y)); }
__device__ inline void launder_raw(unsigned& r) { asm volatile("" : "+r"(r)); }
__device__ inline void launder_raw(unsigned short& r) { asm volatile("" : "+h"(r)); }
__device__ inline void launder_raw(unsigned char&) {}

// Assumptions: p is a global address aligned to sizeof(T) * N.
template <int N, class T> __device__ inline Pack<T, N> load_pack(const T* p) {
  typename RawBits<sizeof(T) * N>::type raw;
  load_raw(p, raw);
  Pack<T, N> v;
  memcpy(&v, &raw, sizeof(v));
  return v;
}
template <int N, class T> __device__ inline void store_pack(T* p, const Pack<T, N>& v) {
  typename RawBits<sizeof(T) * N>::type raw;
  memcpy(&raw, &v, sizeof(raw));
  store_raw(p, raw);
}

// How a row's packs meet an output off its inputs' packs (dispatch/out_packs.cuh: out_packs_for): kShared,
// every operand shares the packs' phase (the common pack width, one element if need be); kSplitStores,
// the packs follow the inputs and each output pack is stored in the widest accesses its address allows
// (store_pack_any_alignment); kOnOutput, the packs follow the output and each input pack is read as the
// aligned pieces of memory that hold it (load_funneled).
enum class OutPacks { kShared, kSplitStores, kOnOutput };

// Stores a pack at p, aligned to its element but maybe not to the pack (an output off its input's
// packs: OutPacks::kSplitStores), in the widest accesses p allows: an fp32 pack one element off 16 bytes
// takes 3 (4 + 8 + 4 bytes) where element by element took 4, and its loads stay whole. Bytes [Done, B)
// go at p + Done, whose offset from B bytes is (Off + Done) % B.
template <int B, int Off, int Done = 0>
__device__ inline void store_pieces(unsigned char* p, const unsigned char* bytes) {
  if constexpr (Done < B) {
    constexpr int at = (Off + Done) % B;
    constexpr int aligned = at == 0 ? B : (at & -at);  // the largest power of two dividing p + Done
    constexpr int rest = B - Done;
    constexpr int fits = rest >= 16 ? 16 : rest >= 8 ? 8 : rest >= 4 ? 4 : rest >= 2 ? 2 : 1;
    constexpr int w = aligned < fits ? aligned : fits;
    typename RawBits<w>::type raw;
    memcpy(&raw, bytes + Done, w);
    store_raw(p + Done, raw);
    store_pieces<B, Off, Done + w>(p, bytes);
  }
}
template <int B, int Element, int... Offsets>
__device__ inline void store_pieces_at(unsigned char* p, const unsigned char* bytes, int off,
                                       std::integer_sequence<int, Offsets...>) {
  ((off == Offsets * Element ? store_pieces<B, Offsets * Element>(p, bytes) : void()), ...);
}
template <int N, class T> __device__ inline void store_pack_any_alignment(T* p, const Pack<T, N>& v) {
  constexpr int B = N * sizeof(T);
  unsigned char bytes[B];
  memcpy(bytes, &v, B);
  const int off = static_cast<int>(reinterpret_cast<uintptr_t>(p) % B);
  store_pieces_at<B, sizeof(T)>(reinterpret_cast<unsigned char*>(p), bytes, off, std::make_integer_sequence<int, N>{});
}

// The bytes [k, k + 16) of lo and hi laid end to end (k < 16): whole words first (by 2, then 1), then
// the bytes left across word pairs.
__device__ inline uint4 funnel_bytes(const uint4& lo, const uint4& hi, int k) {
  const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  unsigned t[6], u[5];
#pragma unroll
  for (int i = 0; i < 6; ++i) t[i] = (k & 8) ? w[i + 2] : w[i];
#pragma unroll
  for (int i = 0; i < 5; ++i) u[i] = (k & 4) ? t[i + 1] : t[i];
  const unsigned bits = (k & 3) * 8;
  return {__funnelshift_r(u[0], u[1], bits), __funnelshift_r(u[1], u[2], bits),
          __funnelshift_r(u[2], u[3], bits), __funnelshift_r(u[3], u[4], bits)};
}

// The N elements at p, a 16-byte pack aligned to one element, maybe not to 16 bytes: where p is off them,
// the two aligned 16-byte pieces of memory that hold the pack, funneled (an input off its output's packs:
// OutPacks::kOnOutput, which takes 16-byte packs only). The second piece reaches up to 15 bytes past the
// pack: a pack whose piece would pass `end` is read element by element. The pieces' other bytes (which
// may be another operand's) are dropped.
template <int N, class T>
__device__ inline typename RawBits<N * sizeof(T)>::type load_funneled(const T* p, const T* end) {
  constexpr int B = N * sizeof(T);
  static_assert(B == kMaxPackBytes, "funnel_bytes takes 16-byte pieces");
  using Raw = typename RawBits<B>::type;
  const int k = static_cast<int>(reinterpret_cast<uintptr_t>(p) % B);
  Raw r;
  if (k == 0) {
    load_raw(p, r);
    return r;
  }
  const unsigned char* base = reinterpret_cast<const unsigned char*>(p) - k;
  if (base + 2 * B > reinterpret_cast<const unsigned char*>(end)) {
    Pack<T, N> v;
#pragma unroll
    for (int i = 0; i < N; ++i) v.v[i] = p[i];
    memcpy(&r, &v, B);
    return r;
  }
  Raw lo, hi;
  load_raw(base, lo);
  load_raw(base + B, hi);
  return funnel_bytes(lo, hi, k);
}

// A strided row-major operand: element (r, c) at base + r * row_stride + c.
struct StridedOperand {
  const void* base;
  int64_t row_stride;  // in elements
  int elem_bytes;
};

// Packs are aligned in memory, not in the row: row r's element c sits in lane
// (phase(r) + c) % N of its pack, where phase(r) = (base/elem + r*stride) % N. One N-wide access
// per pack is therefore legal for every operand of an op when all operands share that phase on every
// row: equal base phases and equal stride residues. The widest such N (a power of two, at most 16
// bytes for the widest operand) is the pack width; rows with any start address or length still use
// full packs in their interior and element accesses only in their first and last pack. (Where only
// the output is off the inputs' phase, the packs may keep their width another way: OutPacks.)
inline int common_pack_width(const StridedOperand* operands, size_t count) {
  int widest = 1;
  for (size_t i = 0; i < count; ++i) widest = operands[i].elem_bytes > widest ? operands[i].elem_bytes : widest;
  const StridedOperand& first = operands[0];
  for (int n = kMaxPackBytes / widest; n > 1; n /= 2) {
    bool ok = true;
    const uintptr_t first_phase = reinterpret_cast<uintptr_t>(first.base) / first.elem_bytes % n;
    for (size_t i = 0; i < count; ++i) {
      const StridedOperand& o = operands[i];
      ok = ok && reinterpret_cast<uintptr_t>(o.base) / o.elem_bytes % n == first_phase &&
           o.row_stride % n == first.row_stride % n;
    }
    if (ok) return n;
  }
  return 1;
}
inline int common_pack_width(std::initializer_list<StridedOperand> operands) {
  return common_pack_width(operands.begin(), operands.size());
}

}  // namespace rowwise
