// Row I/O: how strategies read inputs and write outputs. An Io object says how many operands it reads
// per element (static constexpr int kInputs) and gives, for row r, io.row(r): a
// small object holding that row's addresses with
//   template <int N> int  phase()                         lane of element 0 in its pack
//   template <int N> void load(In* dst, int64_t col)       N inputs at [col, col + N)
//   template <int N> void store(const Acc* src, int64_t col)
//   Row opaque()                                            the same row, its addresses hidden from the
//                                                           compiler (pack.cuh: opaque_address)
// Strategies call load/store<N> only where (phase + col) % N == 0, else load/store<1>. Resolving the
// row once keeps 64-bit row arithmetic out of the per-pack path.
// Rows held on chip are kept as Packed<N>, the inputs in their storage type (16-bit types two to a
// register), and unpacked to In values where they are used:
//   template <int N> struct Packed
//   template <int N> Packed<N> load_packed(int64_t col)     one N-wide access
//   template <int N> static Packed<N> pack(const In* v)     exact for values loaded from the row and pads
//   template <int N> static void unpack(const Packed<N>&, In* v)
//   template <int N> static void launder(Packed<N>&)        forget earlier unpacks (see kernels)
//   template <int N> static void unpack_again(const Packed<N>&, In* v)   unpack by other instructions
//                                                           (see kernels)
//   template <int N> static constexpr bool kAsyncCopy         whether copy_async<N> exists for N
//   template <int N> void copy_async(void* shared, int64_t plane_bytes, int64_t col)
//                                                           load_packed into shared memory without
//                                                           registers (cp.async), operand i of the
//                                                           pack at shared + i * plane_bytes
// and, optionally (none: no bulk copies, kernels/row_common.cuh kRowBulkCopy), single-operand rows:
//   template <int N> static constexpr bool kBulkCopy          whether copy_bulk serves packs of N
//   void copy_bulk(void* shared, int64_t col, unsigned bytes, uint64_t* bar)
//                                                           `bytes` of the input from element col on,
//                                                           one bulk copy landing on `bar`
//                                                           (bulk_copy.cuh)
// Single-operand rows may also give the stored values (ops that reduce them as stored, row_common.cuh):
//   using Stored; template <int N> static Pack<Stored, N> stored(const Packed<N>&)
// Rows staged whole through shared memory (strategy `tile`, contiguous rows) also need, where
// static constexpr bool kStaged is true:
//   using Stored; using Out                                  an operand's element type; the output's
//   const Stored* input(int i); Out* output()                operand i's and the output's element 0
//   static In staged(const Stored* const* planes, int e)    element e, operand i read from planes[i]
//   template <int M> static void staged_run(const Stored* const* rows, int j, In* v)
//                                                           elements [j, j + M), j even, of the row
//                                                           whose element 0 is rows[i] in operand
//                                                           i's plane (load_staged_run: it reads a
//                                                           little past them)
// Fusing a scale, a mask or a cast means writing another Io, not another kernel.
#pragma once
#include "../primitives/async_copy.cuh"
#include "../primitives/bulk_copy.cuh"
#include "../primitives/numeric.cuh"
#include "../primitives/grad_in.cuh"
#include "../primitives/pack.cuh"
#include "../primitives/staged_run.cuh"

namespace rowwise {

// Strided T input, strided U output, one input per element; P: how its packs meet an output off the
// input's packs (pack.cuh: OutPacks).
template <class T, class U = T, OutPacks P = OutPacks::kShared> struct PointerIo {
  using Acc = acc_t<T>;
  static constexpr int kInputs = 1;
  const T* x;
  U* y;
  int64_t x_stride, y_stride;
  const T* x_end = nullptr;  // past the input's last element: kOnOutput's funneled reads stop there

  struct Row {
    const T* x;
    U* y;
    const T* x_end;
    template <int N> struct Packed {
      typename RawBits<N * sizeof(T)>::type bits;
    };
    template <int N> __device__ Packed<N> load_packed(int64_t col) const {
      Packed<N> p;
      if constexpr (P == OutPacks::kOnOutput && N > 1) p.bits = load_funneled<N>(x + col, x_end);
      else load_raw(x + col, p.bits);
      return p;
    }
    template <int N> __device__ static Packed<N> pack(const Acc* v) {
      Pack<T, N> t;
#pragma unroll
      for (int i = 0; i < N; ++i) t.v[i] = store_as<T>(v[i]);
      Packed<N> p;
      memcpy(&p.bits, &t, sizeof(t));
      return p;
    }
    template <int N> __device__ static void unpack(const Packed<N>& p, Acc* v) {
      Pack<T, N> t;
      memcpy(&t, &p.bits, sizeof(t));
#pragma unroll
      for (int i = 0; i < N; ++i) v[i] = load_as<Acc>(t.v[i]);
    }
    template <int N> __device__ static Pack<T, N> stored(const Packed<N>& p) {
      Pack<T, N> t;
      memcpy(&t, &p.bits, sizeof(t));
      return t;
    }
    template <int N> __device__ static void launder(Packed<N>& p) { launder_raw(p.bits); }
    template <int N> __device__ static void unpack_again(const Packed<N>& p, Acc* v) {
      Pack<T, N> t;
      memcpy(&t, &p.bits, sizeof(t));
#pragma unroll
      for (int i = 0; i < N; ++i) v[i] = load_as_again<Acc>(t.v[i]);
    }
    template <int N> static constexpr bool kAsyncCopy = P != OutPacks::kOnOutput && kAsyncCopyable<N * sizeof(T)>;
    template <int N> __device__ void copy_async(void* shared, int64_t /*plane_bytes: one operand*/, int64_t col) const {
      rowwise::copy_async<N * sizeof(T)>(shared, x + col);
    }
    template <int N> static constexpr bool kBulkCopy = kAsyncCopy<N> && N * sizeof(T) == 16;
    __device__ void copy_bulk(void* shared, int64_t col, unsigned bytes, uint64_t* bar) const {
      bulk_copy(shared, x + col, bytes, bar);
    }
    template <int N> __device__ int phase() const {
      if constexpr (P == OutPacks::kOnOutput) return static_cast<int>(reinterpret_cast<uintptr_t>(y) / sizeof(U) % N);
      else return static_cast<int>(reinterpret_cast<uintptr_t>(x) / sizeof(T) % N);
    }
    // The N-element piece of memory (numbered from address 0) that holds element 0: pack p of the row
    // is piece first_piece + p (where the packs follow the input: not kOnOutput, whose 16-bit rows never
    // ask, kWarpLanesOnLines).
    template <int N> __device__ uintptr_t first_piece() const {
      return reinterpret_cast<uintptr_t>(x) / (N * sizeof(T));
    }
    __device__ Row opaque() const { return {opaque_address(x), opaque_address(y), x_end}; }
    static constexpr bool kStaged = true;
    using Stored = T;
    using Out = U;
    __device__ const T* input(int) const { return x; }
    __device__ U* output() const { return y; }
    __device__ static Acc staged(const T* const* planes, int e) { return load_as<Acc>(planes[0][e]); }
    template <int M> __device__ static void staged_run(const T* const* rows, int j, Acc* v) {
      load_staged_run<M>(rows[0], j, v);
    }
    template <int N> __device__ void load(Acc* dst, int64_t col) const {
      static_assert(P != OutPacks::kOnOutput || N == 1, "packs on the output: inputs load_packed (funneled)");
      const Pack<T, N> p = load_pack<N>(x + col);
#pragma unroll
      for (int i = 0; i < N; ++i) dst[i] = load_as<Acc>(p.v[i]);
    }
    template <int N> __device__ void store(const Acc* src, int64_t col) const {
      Pack<U, N> p;
      store_all_as<U, N>(src, p.v);
      if constexpr (P == OutPacks::kSplitStores && N > 1) store_pack_any_alignment<N>(y + col, p);
      else store_pack<N>(y + col, p);
    }
  };
  __device__ Row row(int64_t r) const { return {x + r * x_stride, y + r * y_stride, x_end}; }
};

// PointerIo plus the per-row float written by ops that emit one (abs-max scaling); may be null.
template <class T, class U, OutPacks P = OutPacks::kShared> struct RowScaleIo : PointerIo<T, U, P> {
  float* row_scale;
  __device__ void store_row_scale(int64_t row, float v) const {
    if (row_scale != nullptr) row_scale[row] = v;
  }
};

// Gradient ops: strided y and dy in, strided dx out; P as PointerIo's (y and dy share their packs).
template <class T, OutPacks P = OutPacks::kShared> struct GradPointerIo {
  using Acc = acc_t<T>;
  static constexpr int kInputs = 2;
  static constexpr bool kOutputOnInputPacks = P == OutPacks::kShared;  // dx in y's and dy's packs
  using In = GradIn<Acc>;
  const T* y;
  const T* dy;
  T* dx;
  int64_t y_stride, dy_stride, dx_stride;
  const T* y_end = nullptr;  // kOnOutput: past y's and dy's last elements (PointerIo::x_end)
  const T* dy_end = nullptr;

  struct Row {
    const T* y;
    const T* dy;
    T* dx;
    const T* y_end;
    const T* dy_end;
    using Half = typename PointerIo<T, T, P>::Row;  // an input (x) or the output (y) alone
    template <int N> struct Packed {
      typename Half::template Packed<N> y, dy;
    };
    template <int N> __device__ int phase() const {
      if constexpr (P == OutPacks::kOnOutput) return Half{nullptr, dx, nullptr}.template phase<N>();
      else return Half{y, nullptr, nullptr}.template phase<N>();
    }
    __device__ Row opaque() const {
      return {opaque_address(y), opaque_address(dy), opaque_address(dx), y_end, dy_end};
    }
    static constexpr bool kStaged = true;
    using Stored = T;
    using Out = T;
    __device__ const T* input(int i) const { return i == 0 ? y : dy; }
    __device__ T* output() const { return dx; }
    __device__ static In staged(const T* const* planes, int e) {
      return {load_as<Acc>(planes[0][e]), load_as<Acc>(planes[1][e])};
    }
    template <int M> __device__ static void staged_run(const T* const* rows, int j, In* v) {
      Acc ys[M], dys[M];
      load_staged_run<M>(rows[0], j, ys);
      load_staged_run<M>(rows[1], j, dys);
#pragma unroll
      for (int i = 0; i < M; ++i) v[i] = {ys[i], dys[i]};
    }
    template <int N> __device__ void load(In* dst, int64_t col) const {
      Acc ys[N], dys[N];
      Half{y, nullptr, y_end}.template load<N>(ys, col);
      Half{dy, nullptr, dy_end}.template load<N>(dys, col);
#pragma unroll
      for (int i = 0; i < N; ++i) dst[i] = {ys[i], dys[i]};
    }
    template <int N> __device__ void store(const Acc* src, int64_t col) const {
      Half{nullptr, dx, nullptr}.template store<N>(src, col);
    }
    template <int N> __device__ Packed<N> load_packed(int64_t col) const {
      return {Half{y, nullptr, y_end}.template load_packed<N>(col),
              Half{dy, nullptr, dy_end}.template load_packed<N>(col)};
    }
    template <int N> __device__ static Packed<N> pack(const In* v) {
      Acc ys[N], dys[N];
#pragma unroll
      for (int i = 0; i < N; ++i) ys[i] = v[i].y, dys[i] = v[i].dy;
      return {Half::template pack<N>(ys), Half::template pack<N>(dys)};
    }
    template <int N> __device__ static void unpack(const Packed<N>& p, In* v) {
      Acc ys[N], dys[N];
      Half::template unpack<N>(p.y, ys);
      Half::template unpack<N>(p.dy, dys);
#pragma unroll
      for (int i = 0; i < N; ++i) v[i] = {ys[i], dys[i]};
    }
    template <int N> __device__ static void launder(Packed<N>& p) {
      Half::template launder<N>(p.y);
      Half::template launder<N>(p.dy);
    }
    template <int N> __device__ static void unpack_again(const Packed<N>& p, In* v) {
      Acc ys[N], dys[N];
      Half::template unpack_again<N>(p.y, ys);
      Half::template unpack_again<N>(p.dy, dys);
#pragma unroll
      for (int i = 0; i < N; ++i) v[i] = {ys[i], dys[i]};
    }
    template <int N> static constexpr bool kAsyncCopy = Half::template kAsyncCopy<N>;
    template <int N> __device__ void copy_async(void* shared, int64_t plane_bytes, int64_t col) const {
      Half{y, nullptr, nullptr}.template copy_async<N>(shared, 0, col);
      Half{dy, nullptr, nullptr}.template copy_async<N>(static_cast<unsigned char*>(shared) + plane_bytes, 0, col);
    }
  };
  __device__ Row row(int64_t r) const {
    return {y + r * y_stride, dy + r * dy_stride, dx + r * dx_stride, y_end, dy_end};
  }
};

// The same operands with packs of kind Q (api.cuh: an output off its inputs' packs); rows of cols
// elements, the last one (rows - 1) strides on, where kOnOutput's funneled reads stop.
template <OutPacks Q, class T, class U>
PointerIo<T, U, Q> with_out_packs(const PointerIo<T, U>& io, int64_t rows, int64_t cols) {
  return {io.x, io.y, io.x_stride, io.y_stride, io.x + (rows - 1) * io.x_stride + cols};
}
template <OutPacks Q, class T, class U>
RowScaleIo<T, U, Q> with_out_packs(const RowScaleIo<T, U>& io, int64_t rows, int64_t cols) {
  return {with_out_packs<Q>(static_cast<const PointerIo<T, U>&>(io), rows, cols), io.row_scale};
}
template <OutPacks Q, class T>
GradPointerIo<T, Q> with_out_packs(const GradPointerIo<T>& io, int64_t rows, int64_t cols) {
  return {io.y,         io.dy,         io.dx, io.y_stride, io.dy_stride, io.dx_stride,
          io.y + (rows - 1) * io.y_stride + cols, io.dy + (rows - 1) * io.dy_stride + cols};
}

// Adapts user Load/Store functors with the OneFlow-style interface (load<N>(dst, row, col),
// store<N>(src, row, col)) to the Io concept. The caller promises N-wide accesses are legal at every
// col that is a multiple of N, so the phase is 0.
template <class In, class Load, class Store> struct FunctorIo {
  static constexpr int kInputs = 1;
  Load load_fn;
  Store store_fn;

  struct Row {
    Load load_fn;
    Store store_fn;
    int64_t r;
    template <int N> struct Packed {
      In v[N];
    };
    template <int N> __device__ Packed<N> load_packed(int64_t col) const {
      Packed<N> p;
      load_fn.template load<N>(p.v, r, col);
      return p;
    }
    template <int N> __device__ static Packed<N> pack(const In* v) {
      Packed<N> p;
#pragma unroll
      for (int i = 0; i < N; ++i) p.v[i] = v[i];
      return p;
    }
    template <int N> __device__ static void unpack(const Packed<N>& p, In* v) {
#pragma unroll
      for (int i = 0; i < N; ++i) v[i] = p.v[i];
    }
    template <int N> __device__ static void launder(Packed<N>&) {}
    template <int N> __device__ static void unpack_again(const Packed<N>& p, In* v) { unpack<N>(p, v); }
    template <int N> static constexpr bool kAsyncCopy = false;  // loads are the user's code
    static constexpr bool kStaged = false;                        // and so are the addresses
    template <int N> __device__ int phase() const { return 0; }
    __device__ Row opaque() const { return *this; }
    template <int N> __device__ void load(In* dst, int64_t col) const {
      load_fn.template load<N>(dst, r, col);
    }
    template <int N, class Acc> __device__ void store(const Acc* src, int64_t col) const {
      store_fn.template store<N>(src, r, col);
    }
  };
  __device__ Row row(int64_t r) const { return {load_fn, store_fn, r}; }
};

}  // namespace rowwise
