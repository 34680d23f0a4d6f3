// Runs one forward op case on the GPU with poisoned, guard-banded buffers and checks it against the
// float64 reference: every output written and close, no byte outside the outputs touched, inputs
// unchanged. Also the layouts every op's sweep draws from.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "element.h"
#include "guarded.h"
#include "inputs.h"
#include "ops.h"
#include "reference.h"

namespace rowwise_test {

// Where an op's operands sit: inputs (x; or y and dy for gradients) and the output.
struct Layout {
  const char* name;
  Placement in[2] = {};
  Placement out = {};
  int alias = -1;  // the input the output is written over (same buffer and stride), or -1
};

inline const std::vector<Layout>& forward_layouts() {
  static const std::vector<Layout> layouts = {
      {"contiguous"},
      {"strided-same-phase", {{8}}, {8}},
      {"strided-odd", {{5}}, {3}},
      {"misaligned-both", {{0, 1}}, {0, 1}},
      {"misaligned-x", {{0, 1}}, {}},
      {"in-place", {}, {}, 0},
      {"in-place-misaligned-strided", {{3, 3}}, {}, 0},
      {"misaligned-y-by-4", {}, {0, 4}},  // phases 4 elements apart: 16-bit rows in packs of 4
  };
  return layouts;
}
inline const Layout& forward_layout(const char* name) {
  for (const Layout& l : forward_layouts())
    if (std::string(l.name) == name) return l;
  throw std::invalid_argument(std::string("no forward layout ") + name);
}

// The output's buffer: its own, or the input it is written over.
template <class T> Guarded<T>& output_buffer(const Layout& layout, Guarded<T>& own, std::vector<Guarded<T>*> inputs) {
  return layout.alias < 0 ? own : *inputs[layout.alias];
}

struct Named {
  const char* name;
  double value;
};

// "" if close, else got, want and the inputs that gave them.
inline std::string mismatch(bool close, double got, double want, std::initializer_list<Named> inputs) {
  if (close) return {};
  std::ostringstream s;
  s.precision(9);
  s << "got " << got << " want " << want << " (";
  const char* sep = "";
  for (const Named& n : inputs) s << sep << n.name << "=" << n.value, sep = ", ";
  s << ")";
  return s.str();
}

// launch(x, y, x_stride, y_stride) runs the op on the device rows.
template <class T, class Launch>
CaseReport check_forward_launch(Op op, int64_t rows, int64_t cols, Values values, const Layout& layout, uint64_t seed,
                                Launch&& launch) {
  using E = Element<T>;
  CaseReport report;
  Guarded<T> x(Geometry::of(rows, cols, layout.in[0])), y_own(Geometry::of(rows, cols, layout.out));
  Guarded<T>& y = output_buffer(layout, y_own, {&x});
  const std::vector<double> xd = x.fill(make_values(values, rows, cols, seed));
  const std::vector<double> ref = reference_rows(op, xd, rows, cols);
  RW_CUDA_OK(x.upload());
  if (&y != &x) RW_CUDA_OK(y.upload());

  if (!launched(launch(x.rows(), y.rows(), x.geo.stride, y.geo.stride), report)) return report;
  RW_CUDA_OK(cudaDeviceSynchronize());

  std::vector<T> got;
  RW_CUDA_OK(y.download(got));
  scan_output(got, y.geo, [&](int64_t r, int64_t c, T v) {
    const double g = E::to_double(v), want = ref[r * cols + c];
    // softmax's outputs are probabilities, far below 1 in wide rows, where an absolute bound passes
    // anything: relative, but for what flushes or rounds to T's subnormals near zero. log_softmax's,
    // of size ~1 and more, take the absolute one.
    const bool ok = op == Op::kSoftmax ? close_enough(g, want, E::kUnderflow, E::kRtol + E::kAccRtol)
                                       : close_enough(g, want, E::kAtol, E::kRtol);
    return mismatch(ok, g, want, {{"x", xd[r * cols + c]}});
  }, report);
  if (&y != &x) RW_CUDA_OK(expect_unchanged(x, "x", report));
  return report;
}

template <class T>
CaseReport check_forward_case(Op op, int64_t rows, int64_t cols, Values values, const Layout& layout,
                              rowwise::Options options, uint64_t seed) {
  return check_forward_launch<T>(op, rows, cols, values, layout, seed, [&](const T* x, T* y, int64_t xs, int64_t ys) {
    return call_forward<T>(op, x, y, rows, cols, xs, ys, options);
  });
}

}  // namespace rowwise_test
