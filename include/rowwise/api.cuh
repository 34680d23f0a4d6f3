// Public host functions: validate, choose a plan, launch. Every function returns cudaError_t;
// bad arguments give cudaErrorInvalidValue before anything touches the device. cudaErrorNotSupported
// is a plan the launcher has no kernel for: a rowwise bug, never the caller's.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "dispatch/device_info.cuh"
#include "dispatch/launch.cuh"
#include "dispatch/strategy.cuh"
#include "io/row_io.cuh"
#include "ops/absmax.cuh"
#include "ops/softmax.cuh"
#include "ops/softmax_backward.cuh"
#include "primitives/pack.cuh"

namespace rowwise {

struct Options {
  Strategy strategy = Strategy::kAuto;  // force one strategy (tests, benchmarks); invalid if the row does not fit it
  // At most this many CTAs (0: as many as the work takes), each looping over more rows: to leave SMs to
  // kernels running beside (a communication kernel, say). Where a strategy spreads a row over CTAs
  // that run together (a cluster, split's CTAs of a row), rounded up to one row's CTAs at least.
  int64_t max_ctas = 0;
  // Programmatic dependent launch (sm_90 and newer): the launch may begin while the kernel before it in
  // the stream still runs, its start overlapping that kernel's end; it waits for that kernel's writes
  // before it touches memory, and lets the kernel after it begin early in turn. H200, back-to-back
  // launches in a CUDA graph: 0.3 us less a launch of 1-8 rows of 128K-256K columns (~4-7 us), but
  // 1.0 us more for 8 fp32 rows of 1 MB and up to 0.6 us more for 64-row batches (docs/perf.md
  // "Programmatic launches"). Only the long-row strategies (cluster, cluster_smem, block_smem, split,
  // two_launch, two_pass) launch so; split's cooperative launches, launches right after the stream-ordered
  // allocation of their workspace and the short-row strategies (warp, tile, block) launch as usual.
  // Ignored below sm_90.
  bool programmatic_launch = false;
};

template <class T>
inline constexpr bool is_element_v = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                     std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

namespace detail {

inline bool shape_ok(int64_t rows, int64_t cols) { return rows >= 0 && cols >= 1; }
inline bool options_ok(const Options& options) { return options.max_ctas >= 0; }

// A strided operand is usable if it is non-null, element-aligned, has rows at least `cols` apart and
// its last element's index fits in int64.
inline bool operand_ok(const void* p, int elem_bytes, int64_t stride, int64_t rows, int64_t cols) {
  if (p == nullptr || reinterpret_cast<uintptr_t>(p) % elem_bytes != 0 || stride < cols) return false;
  return rows <= 1 || stride <= (INT64_MAX - cols) / (rows - 1);
}

// Calls f(std::integral_constant<int, N>) for the runtime pack width N (a power of two, Min <= N <= Max).
template <int Max, int Min = 1, class F> cudaError_t visit_pack(int pack, F&& f) {
  if (pack == Max) return f(std::integral_constant<int, Max>{});
  if constexpr (Max > Min) {
    return visit_pack<Max / 2, Min>(pack, std::forward<F>(f));
  } else {
    return cudaErrorInvalidValue;
  }
}

// `contiguous`: every operand's rows are cols apart (or there is one row). `out_like_last_input`: the
// output's elements are the last input's size, at its offset from 16 bytes (RowShape). Kernels are
// built for packs of MinPack to MaxPack elements.
template <class Op, int MaxPack, int MinPack = 1, class Io>
cudaError_t run_rows(const Io& io, int64_t rows, int64_t cols, int pack, int elem_bytes, int64_t max_packs,
                     bool contiguous, bool out_like_last_input, Options options, cudaStream_t stream,
                     void* workspace = nullptr) {
  DeviceInfo dev;
  if (cudaError_t e = current_device_info(&dev); e != cudaSuccess) return e;
  using RowIo = typename Io::Row;
  RowShape shape{rows, cols, pack, pack * elem_bytes, max_packs, static_cast<int>(sizeof(typename RowIo::template Packed<1>)),
                 Io::kInputs};
  shape.exp_per_element = kOpExpPerElement<Op>;
  shape.map_takes_terms = kOpKeepsTerms<Op>;
  shape.narrows_output = kNarrowsOutput<RowIo>;
  if constexpr (RowIo::kStaged) {
    shape.staged = contiguous;
    shape.out_bytes = sizeof(typename RowIo::Out);
    shape.out_like_last_input = out_like_last_input;
  }
  Plan plan;
  if (!choose_plan(shape, dev, options.strategy, &plan)) return cudaErrorInvalidValue;
  plan.max_ctas = options.max_ctas;
  plan.programmatic_launch = options.programmatic_launch && dev.cc_major >= 9 && waits_for_prior_grid(plan.strategy);
  return visit_pack<MaxPack, MinPack>(pack, [&](auto n) {
    return launch_plan<Op, decltype(n)::value>(io, shape, plan, stream, workspace);
  });
}

// Packs of the longest row: exact when every row has the first row's phase, else the worst case.
inline int64_t max_packs_for(const StridedOperand* operands, size_t count, int64_t cols, int pack) {
  for (size_t i = 0; i < count; ++i)
    if (operands[i].row_stride % pack != 0) return max_packs_in_row(cols, pack);
  const StridedOperand& first = operands[0];
  return packs_in_row(cols, static_cast<int>(reinterpret_cast<uintptr_t>(first.base) / first.elem_bytes % pack), pack);
}

// a / b rounded down (C++ rounds toward zero).
inline int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// Byte spans of operands past this count as sharing bytes with anything (the overlap checks below stay
// within int64; no device holds 2^59 bytes).
inline constexpr int64_t kMaxSpan = INT64_MAX / 16;

// Whether an output shares bytes with an input without being the very same elements. In place is safe:
// every strategy reads an element before the thread that writes it does (or before a barrier); any other
// overlap races. Spans in bytes: a real operand's fit in int64 (no device holds 2^63 bytes); others are
// refused as overlapping.
inline bool overlaps_partly(const StridedOperand& out, const StridedOperand& in, int64_t rows, int64_t cols) {
  const bool same_rows = out.row_stride == in.row_stride || rows == 1;
  if (out.base == in.base && out.elem_bytes == in.elem_bytes && same_rows) return false;  // in place
  if (out.row_stride > kMaxSpan / rows || in.row_stride > kMaxSpan / rows) return true;
  const int64_t out_len = cols * out.elem_bytes, in_len = cols * in.elem_bytes;
  const int64_t out_step = out.row_stride * out.elem_bytes, in_step = in.row_stride * in.elem_bytes;
  const int64_t d = static_cast<int64_t>(reinterpret_cast<uintptr_t>(out.base) - reinterpret_cast<uintptr_t>(in.base));
  if (d >= (rows - 1) * in_step + in_len || -d >= (rows - 1) * out_step + out_len) return false;  // spans apart
  if (out_step != in_step || rows == 1) return true;
  // One stride s (rows interleaved): output row i meets input row j iff -out_len < d + (i - j) s < in_len.
  const int64_t k_lo = std::max(floor_div(-out_len - d, out_step) + 1, -(rows - 1));
  const int64_t k_hi = std::min(-floor_div(d - in_len, out_step) - 1, rows - 1);
  return k_lo <= k_hi;
}

// Whether absmax_scale's per-row scales, rows floats at row_scale, share no byte with an operand's rows
// (a scale written into a row not yet read, or among the outputs, races). Spans past kMaxSpan bytes
// count as sharing.
inline bool scales_apart(const float* row_scale, int64_t rows, int64_t cols,
                         std::initializer_list<StridedOperand> operands) {
  if (rows > kMaxSpan / static_cast<int64_t>(sizeof(float))) return false;
  const uintptr_t scale = reinterpret_cast<uintptr_t>(row_scale);
  const uintptr_t scale_end = scale + static_cast<uintptr_t>(rows) * sizeof(float);
  for (const StridedOperand& o : operands) {
    if (cols < 0 || o.row_stride < 0 || o.row_stride > (kMaxSpan - cols) / rows) return false;
    const uintptr_t begin = reinterpret_cast<uintptr_t>(o.base);
    const uintptr_t end = begin + static_cast<uintptr_t>(((rows - 1) * o.row_stride + cols) * o.elem_bytes);
    if (scale < end && begin < scale_end) return false;
  }
  return true;
}

// Every operand usable, and no output overlapping an input other than exactly (in place).
inline bool operands_ok(int64_t rows, int64_t cols, std::initializer_list<StridedOperand> inputs,
                        std::initializer_list<StridedOperand> outputs) {
  for (const auto* list : {&inputs, &outputs})
    for (const StridedOperand& o : *list)
      if (!operand_ok(o.base, o.elem_bytes, o.row_stride, rows, cols)) return false;
  for (const StridedOperand& out : outputs)
    for (const StridedOperand& in : inputs)
      if (overlaps_partly(out, in, rows, cols)) return false;
  return true;
}

// The rows whose kernels are compiled for an output off their inputs' packs (dispatch/out_packs.cuh:
// out_packs_for; the others keep the common pack): split stores for fp32 inputs (fp32, int8 or fp8
// outputs, the gradients' dx), the packs on the output for 16-bit inputs.
template <class RowIo>
inline constexpr bool kSplitsOutputStores = sizeof(typename RowIo::Stored) == 4 && sizeof(typename RowIo::Out) <= 4;
template <class RowIo> inline constexpr bool kFunnelsInputs = sizeof(typename RowIo::Stored) == 2;

// Validates strided operands (the first input sets the phase), picks the pack width, launches Op.
template <class Op, int MaxPack, class Io>
cudaError_t run_strided_rows(const Io& io, int64_t rows, int64_t cols, std::initializer_list<StridedOperand> inputs,
                             std::initializer_list<StridedOperand> outputs, cudaStream_t stream, Options options,
                             void* workspace = nullptr) {
  if (!shape_ok(rows, cols) || !options_ok(options)) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  if (!operands_ok(rows, cols, inputs, outputs)) return cudaErrorInvalidValue;
  std::array<StridedOperand, 4> all{};
  size_t count = 0;
  for (const auto* list : {&inputs, &outputs})
    for (const StridedOperand& o : *list) all[count++] = o;
  const bool contiguous = rows == 1 || std::all_of(all.begin(), all.begin() + count,
                                                   [&](const StridedOperand& o) { return o.row_stride == cols; });
  const StridedOperand& last_input = *(inputs.end() - 1);
  const StridedOperand& output = *outputs.begin();
  const bool out_like_last_input = output.elem_bytes == last_input.elem_bytes &&
                                   reinterpret_cast<uintptr_t>(output.base) % kMaxPackBytes ==
                                       reinterpret_cast<uintptr_t>(last_input.base) % kMaxPackBytes;
  const int pack = common_pack_width(all.data(), count);
  const OutPacks out_packs = out_packs_for(pack, common_pack_width(inputs), MaxPack, cols, all[0].elem_bytes);
  if constexpr (kSplitsOutputStores<typename Io::Row>) {
    if (out_packs == OutPacks::kSplitStores) {
      const int64_t max_packs = max_packs_for(inputs.begin(), inputs.size(), cols, MaxPack);
      return run_rows<Op, MaxPack, MaxPack>(with_out_packs<OutPacks::kSplitStores>(io, rows, cols), rows, cols,
                                            MaxPack, all[0].elem_bytes, max_packs, contiguous, out_like_last_input,
                                            options, stream, workspace);
    }
  }
  if constexpr (kFunnelsInputs<typename Io::Row>) {
    if (out_packs == OutPacks::kOnOutput) {
      const int64_t max_packs = max_packs_for(outputs.begin(), 1, cols, MaxPack);
      return run_rows<Op, MaxPack, MaxPack>(with_out_packs<OutPacks::kOnOutput>(io, rows, cols), rows, cols,
                                            MaxPack, all[0].elem_bytes, max_packs, contiguous, out_like_last_input,
                                            options, stream, workspace);
    }
  }
  const int64_t max_packs = max_packs_for(all.data(), count, cols, pack);
  return run_rows<Op, MaxPack>(io, rows, cols, pack, all[0].elem_bytes, max_packs, contiguous, out_like_last_input,
                               options, stream, workspace);
}

template <class T> StridedOperand operand(const T* p, int64_t stride) {
  return {p, stride, static_cast<int>(sizeof(T))};
}

// Forward ops over strided pointers: y = op(x) row by row.
template <template <class> class OpOf, class T>
cudaError_t run_pointer_rows(const T* x, T* y, int64_t rows, int64_t cols, int64_t x_stride, int64_t y_stride,
                             cudaStream_t stream, Options options, void* workspace = nullptr) {
  static_assert(is_element_v<T>, "rowwise: element type must be float, double, __half or __nv_bfloat16");
  return run_strided_rows<OpOf<acc_t<T>>, max_pack<T>()>(PointerIo<T>{x, y, x_stride, y_stride}, rows, cols,
                                                         {operand(x, x_stride)}, {operand(y, y_stride)}, stream,
                                                         options, workspace);
}

// Forward ops over user Load/Store functors.
template <template <class> class OpOf, class A, class Load, class Store>
cudaError_t run_functor_rows(Load load, Store store, int64_t rows, int64_t cols, int pack, cudaStream_t stream,
                             Options options) {
  if (!shape_ok(rows, cols) || !options_ok(options) || (pack != 1 && pack != 2 && pack != 4 && pack != 8))
    return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  return run_rows<OpOf<A>, 8>(FunctorIo<A, Load, Store>{load, store}, rows, cols, pack, sizeof(A),
                              packs_in_row(cols, 0, pack), false, false, options, stream);
}

// Gradient ops over strided pointers: dx = op(y, dy) row by row.
template <template <class> class OpOf, class T>
cudaError_t run_grad_rows(const T* y, const T* dy, T* dx, int64_t rows, int64_t cols, int64_t y_stride,
                          int64_t dy_stride, int64_t dx_stride, cudaStream_t stream, Options options) {
  static_assert(is_element_v<T>, "rowwise: element type must be float, double, __half or __nv_bfloat16");
  return run_strided_rows<OpOf<acc_t<T>>, max_pack<T>()>(
      GradPointerIo<T>{y, dy, dx, y_stride, dy_stride, dx_stride}, rows, cols,
      {operand(y, y_stride), operand(dy, dy_stride)}, {operand(dx, dx_stride)}, stream, options);
}

template <class T, class U>
inline constexpr bool is_absmax_output_v = std::is_same_v<U, T> || std::is_same_v<U, int8_t> ||
                                           std::is_same_v<U, __nv_fp8_e4m3>;

template <class F> using if_functor_t = std::enable_if_t<std::is_class_v<F>, int>;

}  // namespace detail

// y[r, :] = softmax(x[r, :]) for r < rows; element (r, c) at x + r * x_row_stride + c.
// In-place (x == y, same stride) is allowed; otherwise an output sharing a byte with an input is refused,
// and so is one whose span (first to last byte) meets an input's where their row steps differ.
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

// dx[r, :] = y[r, :] * (dy[r, :] - sum(y[r, :] * dy[r, :])), y the softmax output. One pass: y and dy
// read once, dx written once. dx may alias dy or y (same stride).
template <class T>
cudaError_t softmax_backward(const T* y, const T* dy, T* dx, int64_t rows, int64_t cols, int64_t y_row_stride,
                             int64_t dy_row_stride, int64_t dx_row_stride, cudaStream_t stream = 0,
                             Options options = {}) {
  return detail::run_grad_rows<SoftmaxBackwardOp>(y, dy, dx, rows, cols, y_row_stride, dy_row_stride, dx_row_stride,
                                                  stream, options);
}
template <class T>
cudaError_t softmax_backward(const T* y, const T* dy, T* dx, int64_t rows, int64_t cols, cudaStream_t stream = 0) {
  return softmax_backward(y, dy, dx, rows, cols, cols, cols, cols, stream);
}

// dx[r, :] = dy[r, :] - exp(y[r, :]) * sum(dy[r, :]), y the log_softmax output; as softmax_backward.
template <class T>
cudaError_t log_softmax_backward(const T* y, const T* dy, T* dx, int64_t rows, int64_t cols, int64_t y_row_stride,
                                 int64_t dy_row_stride, int64_t dx_row_stride, cudaStream_t stream = 0,
                                 Options options = {}) {
  return detail::run_grad_rows<LogSoftmaxBackwardOp>(y, dy, dx, rows, cols, y_row_stride, dy_row_stride,
                                                     dx_row_stride, stream, options);
}
template <class T>
cudaError_t log_softmax_backward(const T* y, const T* dy, T* dx, int64_t rows, int64_t cols,
                                 cudaStream_t stream = 0) {
  return log_softmax_backward(y, dy, dx, rows, cols, cols, cols, cols, stream);
}

// Row abs-max scaling. With U = T: y = x / max|x[r, :]| and row_scale[r] = max|x[r, :]|. With U = int8_t or
// __nv_fp8_e4m3 (per-row symmetric quantization): y = round(x * qmax / max|x|) saturated (qmax 127 or 448)
// and row_scale[r] = max|x| / qmax, so x ≈ y * row_scale[r] (row_scale is float: an fp64 row's scale
// outside float's range comes out 0 or inf, as does max|x| / qmax of fp32 rows quantized with max|x| under
// ~1e-43 (int8) or ~3e-43 (fp8); y is still scaled in T's precision). A zero row gives zeros and scale 0;
// NaN in a row gives a NaN scale and a NaN row (0 in int8, which has no NaN). row_scale may be null;
// otherwise float-aligned and outside the spans (first to last byte) of x and y. y is computed as x · (qmax
// / max|x|), one rounding more than a division: in fp32 and fp64 outputs within an ulp of the quotient (the
// row's max may come out as 1 − 2^-24).
template <class T, class U>
cudaError_t absmax_scale(const T* x, U* y, float* row_scale, int64_t rows, int64_t cols, int64_t x_row_stride,
                         int64_t y_row_stride, cudaStream_t stream = 0, Options options = {}) {
  static_assert(is_element_v<T>, "rowwise: element type must be float, double, __half or __nv_bfloat16");
  static_assert(detail::is_absmax_output_v<T, U>, "rowwise: absmax_scale writes T, int8_t or __nv_fp8_e4m3");
  if (reinterpret_cast<uintptr_t>(row_scale) % alignof(float) != 0) return cudaErrorInvalidValue;
  if (row_scale != nullptr && rows > 0 &&
      !detail::scales_apart(row_scale, rows, cols, {detail::operand(x, x_row_stride), detail::operand(y, y_row_stride)}))
    return cudaErrorInvalidValue;
  return detail::run_strided_rows<AbsmaxScaleOp<acc_t<T>, U, !std::is_same_v<T, __half>>, max_pack<T>()>(
      RowScaleIo<T, U>{{x, y, x_row_stride, y_row_stride}, row_scale}, rows, cols,
      {detail::operand(x, x_row_stride)}, {detail::operand(y, y_row_stride)}, stream, options);
}
template <class T, class U>
cudaError_t absmax_scale(const T* x, U* y, float* row_scale, int64_t rows, int64_t cols, cudaStream_t stream = 0) {
  return absmax_scale(x, y, row_scale, rows, cols, cols, cols, stream);
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
