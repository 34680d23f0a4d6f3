// Runs one absmax_scale<T, U> case on the GPU (as gpu_check.h does the forward ops), the per-row
// scale in a guard-banded buffer of its own (or null).
#pragma once
#include <cuda_fp8.h>

#include <type_traits>

#include "gpu_check.h"
#include "inputs_absmax.h"
#include "reference_absmax.h"

namespace rowwise_test {

template <class U> constexpr Quant quant_of() {
  if constexpr (std::is_same_v<U, int8_t>) return Quant::kInt8;
  if constexpr (std::is_same_v<U, __nv_fp8_e4m3>) return Quant::kFp8E4M3;
  return Quant::kNone;
}

// Calls f(Tag<U>{}) for the output type absmax_scale<T, U> writes for q.
template <class T, class F> void visit_output(Quant q, F&& f) {
  switch (q) {
    case Quant::kNone: return f(Tag<T>{});
    case Quant::kInt8: return f(Tag<int8_t>{});
    case Quant::kFp8E4M3: return f(Tag<__nv_fp8_e4m3>{});
  }
}

template <class U> double output_to_double(U v) {
  if constexpr (quant_of<U>() == Quant::kNone) return Element<U>::to_double(v);
  if constexpr (quant_of<U>() == Quant::kInt8) return v;
  return static_cast<float>(v);
}

// Layouts absmax_scale<T, U> takes: in place only where y has x's type. Static: cases keep pointers
// into it.
template <class T, class U> const std::vector<Layout>& absmax_layouts() {
  static const std::vector<Layout> layouts = [] {
    std::vector<Layout> kept;
    for (const Layout& l : forward_layouts())
      if (l.alias < 0 || std::is_same_v<T, U>) kept.push_back(l);
    return kept;
  }();
  return layouts;
}

// launch(x, y, row_scale, x_stride, y_stride) runs the op on the device rows (row_scale null unless
// with_scale).
template <class T, class U, class Launch>
CaseReport check_absmax_launch(int64_t rows, int64_t cols, Values values, const Layout& layout, bool with_scale,
                               uint64_t seed, Launch&& launch) {
  constexpr Quant q = quant_of<U>();
  CaseReport report;
  Guarded<T> x(Geometry::of(rows, cols, layout.in[0]));
  Guarded<U> y_own(Geometry::of(rows, cols, layout.out));
  Guarded<float> scale(Geometry::of(rows, 1, {}));
  Guarded<U>* y = &y_own;
  if constexpr (std::is_same_v<T, U>) y = &output_buffer(layout, y_own, {&x});
  const bool in_place = y != &y_own;
  const std::vector<double> xd = x.fill(make_absmax_values(values, q, rows, cols, seed));
  std::vector<double> absmax(rows);
  for (int64_t r = 0; r < rows; ++r) absmax[r] = row_absmax(&xd[r * cols], cols);
  RW_CUDA_OK(x.upload());
  if (!in_place) RW_CUDA_OK(y->upload());
  RW_CUDA_OK(scale.upload());

  if (!launched(launch(x.rows(), y->rows(), with_scale ? scale.rows() : nullptr, x.geo.stride, y->geo.stride),
                report))
    return report;
  RW_CUDA_OK(cudaDeviceSynchronize());

  std::vector<U> got;
  RW_CUDA_OK(y->download(got));
  scan_output(got, y->geo, [&](int64_t r, int64_t c, U v) {
    const double g = output_to_double(v), xv = xd[r * cols + c];
    if constexpr (std::is_same_v<U, __nv_fp8_e4m3>) {  // the API documents one NaN code (poison is 0xFF)
      if (g != g && v.__x != 0x7F) return std::string("NaN coded ") + std::to_string(v.__x) + ", not 0x7F";
    }
    if constexpr (q != Quant::kNone) {
      return check_quantized(q, g, xv, absmax[r]);
    } else {  // y = x / absmax, at most 1 in size: the forward tolerance of T
      const double want = scaled_value(xv, absmax[r], q);
      return mismatch(close_enough(g, want, Element<U>::kAtol, Element<U>::kRtol), g, want,
                      {{"x", xv}, {"absmax", absmax[r]}});
    }
  }, report);
  std::vector<float> scales;
  RW_CUDA_OK(scale.download(scales));
  if (!with_scale) scale.geo.rows = 0;  // nothing may be written: every slot stays poison
  scan_output(scales, scale.geo, [&](int64_t r, int64_t, float v) {
    return mismatch(scale_close(v, absmax[r], q), v, reference_scale(absmax[r], q), {{"absmax", absmax[r]}});
  }, report);
  if (!in_place) RW_CUDA_OK(expect_unchanged(x, "x", report));
  return report;
}

template <class T, class U>
CaseReport check_absmax_case(int64_t rows, int64_t cols, Values values, const Layout& layout, bool with_scale,
                             rowwise::Options options, uint64_t seed) {
  return check_absmax_launch<T, U>(rows, cols, values, layout, with_scale, seed,
                                   [&](const T* x, U* y, float* scale, int64_t xs, int64_t ys) {
                                     return rowwise::absmax_scale<T, U>(x, y, scale, rows, cols, xs, ys, 0, options);
                                   });
}

}  // namespace rowwise_test
