// Public host functions: validate, choose a plan, launch. Every function returns cudaError_t;
// bad arguments give cudaErrorInvalidValue before anything touches the device.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "dispatch/device_info.cuh"
#include "dispatch/launch.cuh"
#include "dispatch/strategy.cuh"
#include "io/row_io.cuh"
#include "ops/softmax.cuh"
#include "primitives/pack.cuh"

namespace rowwise {

struct Options {
  Strategy strategy = Strategy::kAuto;  // force one strategy (tests, benchmarks); invalid if the row does not fit it
};

template <class T>
inline constexpr bool is_element_v = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                     std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

namespace detail {

inline bool shape_ok(int64_t rows, int64_t cols) { return rows >= 0 && cols >= 1; }

// A strided operand is usable if it is non-null, element-aligned, has rows at least `cols` apart and
// its last element's index fits in int64.
inline bool operand_ok(const void* p, int elem_bytes, int64_t stride, int64_t rows, int64_t cols) {
  if (p == nullptr || reinterpret_cast<uintptr_t>(p) % elem_bytes != 0 || stride < cols) return false;
  return rows <= 1 || stride <= (INT64_MAX - cols) / (rows - 1);
}

// Calls f(std::integral_constant<int, N>) for the runtime pack width N (a power of two <= Max).
template <int Max, class F> cudaError_t visit_pack(int pack, F&& f) {
  if (pack == Max) return f(std::integral_constant<int, Max>{});
  if constexpr (Max > 1) {
    return visit_pack<Max / 2>(pack, std::forward<F>(f));
  } else {
    return cudaErrorInvalidValue;
  }
}

template <class Op, int MaxPack, class Io>
cudaError_t run_rows(const Io& io, int64_t rows, int64_t cols, int pack, int elem_bytes, int64_t max_packs,
                     Options options, cudaStream_t stream) {
  DeviceInfo dev;
  if (cudaError_t e = current_device_info(&dev); e != cudaSuccess) return e;
  using Stored = typename Io::Row::template Packed<1>;
  const RowShape shape{rows, cols, pack, pack * elem_bytes, max_packs, static_cast<int>(sizeof(Stored))};
  Plan plan;
  if (!choose_plan(shape, dev, options.strategy, &plan)) return cudaErrorInvalidValue;
  return visit_pack<MaxPack>(pack, [&](auto n) { return launch_plan<Op, decltype(n)::value>(io, shape, plan, dev, stream); });
}

// Packs of the longest row: exact when every row has the first row's phase, else the worst case.
inline int64_t max_packs_for(const void* base, int elem_bytes, std::initializer_list<int64_t> strides, int64_t cols,
                             int pack) {
  bool same_phase = true;
  for (int64_t s : strides) same_phase = same_phase && s % pack == 0;
  if (!same_phase) return max_packs_in_row(cols, pack);
  return packs_in_row(cols, static_cast<int>(reinterpret_cast<uintptr_t>(base) / elem_bytes % pack), pack);
}

// Forward ops over strided pointers: y = op(x) row by row.
template <template <class> class OpOf, class T>
cudaError_t run_pointer_rows(const T* x, T* y, int64_t rows, int64_t cols, int64_t x_stride, int64_t y_stride,
                             cudaStream_t stream, Options options) {
  static_assert(is_element_v<T>, "rowwise: element type must be float, double, __half or __nv_bfloat16");
  if (!shape_ok(rows, cols)) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  constexpr int kBytes = sizeof(T);
  if (!operand_ok(x, kBytes, x_stride, rows, cols) || !operand_ok(y, kBytes, y_stride, rows, cols))
    return cudaErrorInvalidValue;
  if (static_cast<const void*>(x) == y && x_stride != y_stride && rows > 1) return cudaErrorInvalidValue;
  const int pack = common_pack_width(kBytes, {{x, x_stride}, {y, y_stride}});
  const int64_t max_packs = max_packs_for(x, kBytes, {x_stride, y_stride}, cols, pack);
  return run_rows<OpOf<acc_t<T>>, max_pack<T>()>(PointerIo<T>{x, y, x_stride, y_stride}, rows, cols, pack, kBytes,
                                                max_packs, options, stream);
}

// Forward ops over user Load/Store functors.
template <template <class> class OpOf, class A, class Load, class Store>
cudaError_t run_functor_rows(Load load, Store store, int64_t rows, int64_t cols, int pack, cudaStream_t stream,
                             Options options) {
  if (!shape_ok(rows, cols) || (pack != 1 && pack != 2 && pack != 4 && pack != 8)) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  return run_rows<OpOf<A>, 8>(FunctorIo<A, Load, Store>{load, store}, rows, cols, pack, sizeof(A),
                              packs_in_row(cols, 0, pack), options, stream);
}

template <class F> using if_functor_t = std::enable_if_t<std::is_class_v<F>, int>;

}  // namespace detail

// y[r, :] = softmax(x[r, :]) for r < rows; element (r, c) at x + r * x_row_stride + c.
// In-place (x == y, same stride) is allowed.
template <class T>
cudaError_t softmax(const T* x, T* y, int64_t rows, int64_t cols, int64_t x_row_stride, int64_t y_row_stride,
                    cudaStream_t stream = 0, Options options = {}) {
  return detail::run_pointer_rows<SoftmaxOp>(x, y, rows, cols, x_row_stride, y_row_stride, stream, options);
}
template <class T> cudaError_t softmax(const T* x, T* y, int64_t rows, int64_t cols, cudaStream_t stream = 0) {
  return softmax(x, y, rows, cols, cols, cols, stream);
}

// y[r, :] = log_softmax(x[r, :]); as softmax.
template <class T>
cudaError_t log_softmax(const T* x, T* y, int64_t rows, int64_t cols, int64_t x_row_stride, int64_t y_row_stride,
                        cudaStream_t stream = 0, Options options = {}) {
  return detail::run_pointer_rows<LogSoftmaxOp>(x, y, rows, cols, x_row_stride, y_row_stride, stream, options);
}
template <class T> cudaError_t log_softmax(const T* x, T* y, int64_t rows, int64_t cols, cudaStream_t stream = 0) {
  return log_softmax(x, y, rows, cols, cols, cols, stream);
}

// Fused variants: `load.load<N>(A* dst, row, col)` reads N inputs, `store.store<N>(const A* src, row, col)`
// writes N outputs, A the accumulation type (float, or double). They are called with N = `pack` at
// every col that is a multiple of `pack` (and N = 1 at the row's ragged end), so pack must be a width
// both functors can serve there: 1, 2, 4 or 8.
template <class A, class Load, class Store, detail::if_functor_t<Load> = 0>
cudaError_t softmax(Load load, Store store, int64_t rows, int64_t cols, int pack = 1, cudaStream_t stream = 0,
                    Options options = {}) {
  return detail::run_functor_rows<SoftmaxOp, A>(load, store, rows, cols, pack, stream, options);
}
template <class A, class Load, class Store, detail::if_functor_t<Load> = 0>
cudaError_t log_softmax(Load load, Store store, int64_t rows, int64_t cols, int pack = 1, cudaStream_t stream = 0,
                        Options options = {}) {
  return detail::run_functor_rows<LogSoftmaxOp, A>(load, store, rows, cols, pack, stream, options);
}

}  // namespace rowwise
