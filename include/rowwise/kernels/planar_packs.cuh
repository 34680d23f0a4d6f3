// A row's packs in shared memory operand by operand: all of a row's y packs, then all of its dy packs
// (gradient ops), so that a warp's packs of one operand lie in consecutive bytes. Interleaved ({y, dy}
// a pack, 32 bytes apart), a warp's 16-byte cp.async copies had L2 serve each sector twice (ncu, bf16
// gradients of 32768 columns in block_smem: L2 hit rate 69 % against 35 % through registers, 2.3
// against 3.8 TB/s).
#pragma once
#include <cstdint>
#include <cstring>

#include "../primitives/pack.cuh"
#include "row_common.cuh"

namespace rowwise {

// The unit one operand of a pack moves as: the pack itself where there is one operand (any size).
template <class Packed, int Inputs> struct PackPart {
  using type = typename RawBits<sizeof(Packed) / Inputs>::type;
};
template <class Packed> struct PackPart<Packed, 1> {
  using type = Packed;
};

// Bytes of dynamic shared memory this block was launched with.
__device__ inline unsigned dynamic_smem_bytes() {
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

template <class Io, int N> struct PlanarPacks {
  using RowIo = typename Io::Row;
  using Packed = PackedOf<RowIo, N>;
  static constexpr int kPartBytes = static_cast<int>(sizeof(Packed)) / Io::kInputs;
  static_assert(kPartBytes * Io::kInputs == static_cast<int>(sizeof(Packed)), "a pack is its operands' parts");
  using Part = typename PackPart<Packed, Io::kInputs>::type;

  Part* base;
  int capacity;  // packs of one operand's plane (shared memory: 32-bit indices)

  __device__ Packed get(int p) const {
    Part parts[Io::kInputs];
#pragma unroll
    for (int i = 0; i < Io::kInputs; ++i) parts[i] = base[i * capacity + p];
    Packed v;
    memcpy(&v, parts, sizeof(v));
    return v;
  }
  __device__ void put(int p, const Packed& v) const {
    Part parts[Io::kInputs];
    memcpy(parts, &v, sizeof(v));
#pragma unroll
    for (int i = 0; i < Io::kInputs; ++i) base[i * capacity + p] = parts[i];
  }
  // Pack p from row element `col` on, asynchronously; only where RowIo::kAsyncCopy<N>.
  __device__ void copy_async(const RowIo& io, int p, int64_t col) const {
    io.template copy_async<N>(base + p, capacity * kPartBytes, col);
  }
};

}  // namespace rowwise
