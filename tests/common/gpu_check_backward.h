// Runs one backward op case on the GPU (as gpu_check.h does the forward ops): y is a real forward
// output (softmax rows summing to 1, or log-probabilities) computed in double and rounded to T.
#pragma once
#include "gpu_check.h"
#include "reference_backward.h"

namespace rowwise_test {

// in[0] places y, in[1] dy, out dx; dx may be written over dy (the in-place gradient) or over y.
inline const std::vector<Layout>& backward_layouts() {
  static const std::vector<Layout> layouts = {
      {"contiguous"},
      {"strided-same-phase", {{8}, {8}}, {8}},
      {"strided-odd", {{5}, {3}}, {7}},
      {"misaligned-all", {{0, 1}, {0, 1}}, {0, 1}},
      {"misaligned-dy", {{}, {0, 1}}, {}},
      {"misaligned-dx", {{}, {}}, {0, 2}},
      {"misaligned-dx-by-1", {{}, {}}, {0, 1}},  // fp32 dx off y's and dy's packs: split stores
      {"dx-over-dy", {}, {}, 1},
      {"dx-over-dy-misaligned-strided", {{3, 3}, {3, 3}}, {}, 1},
      {"dx-over-y", {{0, 1}, {0, 1}}, {}, 0},
      {"misaligned-dx-by-4", {{}, {}}, {0, 4}},  // 16-bit rows in packs of 4
  };
  return layouts;
}

// launch(y, dy, dx, y_stride, dy_stride, dx_stride) runs the op on the device rows.
template <class T, class Launch>
CaseReport check_backward_launch(GradOp op, int64_t rows, int64_t cols, Values values, const Layout& layout,
                                 uint64_t seed, Launch&& launch) {
  CaseReport report;
  Guarded<T> y(Geometry::of(rows, cols, layout.in[0])), dy(Geometry::of(rows, cols, layout.in[1])),
      dx_own(Geometry::of(rows, cols, layout.out));
  Guarded<T>& dx = output_buffer(layout, dx_own, {&y, &dy});
  // The special rows reach the gradient through y (NaN rows, zeros, -inf log-probabilities); dy is
  // randn at the value kind's scale and shift (shifted: Σ y·dy cancels most of dy).
  const std::vector<double> x = make_values(values, rows, cols, seed);
  const std::vector<double> yd = y.fill(reference_rows(forward_of(op), x, rows, cols));
  const Values dy_values = values == Values::kSpecialRows ? Values::kNormal : values;
  const std::vector<double> dyd = dy.fill(make_values(dy_values, rows, cols, seed ^ 0x5eed));
  const GradReference ref = reference_backward_rows(op, yd, dyd, rows, cols);
  RW_CUDA_OK(y.upload());
  RW_CUDA_OK(dy.upload());
  if (&dx == &dx_own) RW_CUDA_OK(dx.upload());

  if (!launched(launch(y.rows(), dy.rows(), dx.rows(), y.geo.stride, dy.geo.stride, dx.geo.stride), report))
    return report;
  RW_CUDA_OK(cudaDeviceSynchronize());

  std::vector<T> got;
  RW_CUDA_OK(dx.download(got));
  scan_output(got, dx.geo, [&](int64_t r, int64_t c, T v) {
    const int64_t i = r * cols + c;
    const double g = Element<T>::to_double(v);
    return mismatch(gradient_close<T>(g, ref.dx[i], ref.magnitude[i]), g, ref.dx[i],
                    {{"y", yd[i]}, {"dy", dyd[i]}, {"magnitude", ref.magnitude[i]}});
  }, report);
  if (&dx != &y) RW_CUDA_OK(expect_unchanged(y, "y", report));
  if (&dx != &dy) RW_CUDA_OK(expect_unchanged(dy, "dy", report));
  return report;
}

template <class T>
CaseReport check_backward_case(GradOp op, int64_t rows, int64_t cols, Values values, const Layout& layout,
                               rowwise::Options options, uint64_t seed) {
  return check_backward_launch<T>(op, rows, cols, values, layout, seed,
                                  [&](const T* y, const T* dy, T* dx, int64_t ys, int64_t dys, int64_t dxs) {
                                    return call_backward<T>(op, y, dy, dx, rows, cols, ys, dys, dxs, options);
                                  });
}

}  // namespace rowwise_test
