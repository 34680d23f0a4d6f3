// Row I/O: how strategies read inputs and write outputs. An Io object provides
//   template <int N> int  phase(int64_t row)                       lane of element 0 in its pack
//   template <int N> void load(In* dst, int64_t row, int64_t col)   N inputs at [col, col + N)
//   template <int N> void store(const Acc* src, int64_t row, int64_t col)
// Strategies call load/store<N> only where (phase + col) % N == 0, else load/store<1>.
// Fusing a scale, a mask or a cast means writing another Io, not another kernel.
#pragma once
#include "../primitives/numeric.cuh"
#include "../primitives/pack.cuh"

namespace rowwise {

// Strided T input, strided U output, one input per element.
template <class T, class U = T> struct PointerIo {
  using Acc = acc_t<T>;
  const T* x;
  U* y;
  int64_t x_stride, y_stride;

  template <int N> __device__ int phase(int64_t row) const {
    return static_cast<int>((reinterpret_cast<uintptr_t>(x) / sizeof(T) + row * x_stride) % N);
  }
  template <int N> __device__ void load(Acc* dst, int64_t row, int64_t col) const {
    const Pack<T, N> p = load_pack<N>(x + row * x_stride + col);
#pragma unroll
    for (int i = 0; i < N; ++i) dst[i] = load_as<Acc>(p.v[i]);
  }
  template <int N> __device__ void store(const Acc* src, int64_t row, int64_t col) const {
    Pack<U, N> p;
#pragma unroll
    for (int i = 0; i < N; ++i) p.v[i] = store_as<U>(src[i]);
    store_pack<N>(y + row * y_stride + col, p);
  }
};

// Adapts user Load/Store functors with the OneFlow-style interface (load<N>(dst, row, col),
// store<N>(src, row, col)) to the Io concept. The caller promises N-wide accesses are legal at every
// col that is a multiple of N, so the phase is 0.
template <class Load, class Store> struct FunctorIo {
  Load load_fn;
  Store store_fn;

  template <int N> __device__ int phase(int64_t) const { return 0; }
  template <int N, class In> __device__ void load(In* dst, int64_t row, int64_t col) const {
    load_fn.template load<N>(dst, row, col);
  }
  template <int N, class Acc> __device__ void store(const Acc* src, int64_t row, int64_t col) const {
    store_fn.template store<N>(src, row, col);
  }
};

}  // namespace rowwise
