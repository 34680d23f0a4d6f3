// Runs one op case on the GPU with poisoned, guard-banded buffers and checks it against the float64
// reference: every output written and close, no byte outside the outputs touched, inputs unchanged.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "element.h"
#include "inputs.h"
#include "ops.h"
#include "reference.h"

namespace rowwise_test {

// Where the rows sit in their buffers (all in elements).
struct Layout {
  const char* name;
  int64_t x_pad = 0;  // extra elements between rows: stride = cols + pad
  int64_t y_pad = 0;
  int64_t x_offset = 0;  // elements from an aligned allocation to row 0
  int64_t y_offset = 0;
  bool in_place = false;
};

inline const std::vector<Layout>& all_layouts() {
  static const std::vector<Layout> layouts = {
      {"contiguous"},
      {"strided-same-phase", 8, 8},
      {"strided-odd", 5, 3},
      {"misaligned-both", 0, 0, 1, 1},
      {"misaligned-x", 0, 0, 1, 0},
      {"in-place", 0, 0, 0, 0, true},
      {"in-place-misaligned-strided", 3, 3, 3, 3, true},
  };
  return layouts;
}

inline constexpr int64_t kGuard = 64;  // poisoned elements before and after every buffer
inline constexpr unsigned char kPoisonByte = 0xFF;  // all-ones: a NaN in every float type

struct CaseReport {
  cudaError_t status = cudaSuccess;
  int64_t mismatches = 0, unwritten = 0, stray_writes = 0, input_changed = 0;
  std::string first_problem;
  bool ok() const { return status == cudaSuccess && mismatches + unwritten + stray_writes + input_changed == 0; }
};

#define RW_CUDA_OK(expr)                                                                         \
  do {                                                                                           \
    cudaError_t e_ = (expr);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      report.status = e_;                                                                        \
      report.first_problem = std::string(#expr) + ": " + cudaGetErrorString(e_);                 \
      return report;                                                                             \
    }                                                                                            \
  } while (0)

template <class T> struct DeviceBuffer {
  T* ptr = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr); }
  cudaError_t allocate(int64_t n) { return cudaMalloc(&ptr, n * sizeof(T)); }
};

template <class T> bool is_poison(const T& v) {
  const unsigned char* b = reinterpret_cast<const unsigned char*>(&v);
  for (size_t i = 0; i < sizeof(T); ++i)
    if (b[i] != kPoisonByte) return false;
  return true;
}

template <class T>
CaseReport check_forward_case(Op op, int64_t rows, int64_t cols, Values values, const Layout& layout,
                              rowwise::Options options, uint64_t seed) {
  CaseReport report;
  using E = Element<T>;
  const int64_t xs = cols + layout.x_pad, ys = layout.in_place ? xs : cols + layout.y_pad;
  const int64_t x_off = kGuard + layout.x_offset, y_off = layout.in_place ? x_off : kGuard + layout.y_offset;
  const int64_t x_len = x_off + (rows - 1) * xs + cols + kGuard;
  const int64_t y_len = y_off + (rows - 1) * ys + cols + kGuard;

  // Inputs rounded to T; the reference sees exactly what the kernel sees.
  std::vector<double> xd = make_values(values, rows, cols, seed);
  std::vector<T> x_host(x_len);
  std::memset(x_host.data(), kPoisonByte, x_len * sizeof(T));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      x_host[x_off + r * xs + c] = E::from_double(xd[r * cols + c]);
      xd[r * cols + c] = E::to_double(x_host[x_off + r * xs + c]);
    }
  const std::vector<double> ref = reference_rows(op, xd, rows, cols);

  DeviceBuffer<T> x_buf, y_buf;
  RW_CUDA_OK(x_buf.allocate(x_len));
  T* x_dev = x_buf.ptr;
  T* y_dev = x_dev;
  if (!layout.in_place) {
    RW_CUDA_OK(y_buf.allocate(y_len));
    y_dev = y_buf.ptr;
    RW_CUDA_OK(cudaMemset(y_dev, kPoisonByte, y_len * sizeof(T)));
  }
  RW_CUDA_OK(cudaMemcpy(x_dev, x_host.data(), x_len * sizeof(T), cudaMemcpyHostToDevice));

  report.status = call_forward<T>(op, x_dev + x_off, y_dev + y_off, rows, cols, xs, ys, options);
  if (report.status != cudaSuccess) {
    report.first_problem = std::string("launch: ") + cudaGetErrorString(report.status);
    return report;
  }
  RW_CUDA_OK(cudaDeviceSynchronize());

  std::vector<T> y_host(y_len);
  RW_CUDA_OK(cudaMemcpy(y_host.data(), y_dev, y_len * sizeof(T), cudaMemcpyDeviceToHost));
  auto note = [&](const std::string& what) {
    if (report.first_problem.empty()) report.first_problem = what;
  };
  std::vector<char> is_output(y_len, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t i = y_off + r * ys + c;
      is_output[i] = 1;
      const double got = E::to_double(y_host[i]), want = ref[r * cols + c];
      if (is_poison(y_host[i])) {
        ++report.unwritten;
        note("unwritten at row " + std::to_string(r) + " col " + std::to_string(c));
      } else if (!close_enough(got, want, E::kAtol, E::kRtol)) {
        ++report.mismatches;
        std::ostringstream s;
        s << "row " << r << " col " << c << ": got " << got << " want " << want << " (x=" << xd[r * cols + c] << ")";
        note(s.str());
      }
    }
  for (int64_t i = 0; i < y_len; ++i) {
    if (!is_output[i] && !is_poison(y_host[i])) {
      ++report.stray_writes;
      note("write outside the outputs at element " + std::to_string(i - y_off));
    }
  }
  if (!layout.in_place) {
    std::vector<T> x_after(x_len);
    RW_CUDA_OK(cudaMemcpy(x_after.data(), x_dev, x_len * sizeof(T), cudaMemcpyDeviceToHost));
    if (std::memcmp(x_after.data(), x_host.data(), x_len * sizeof(T)) != 0) {
      ++report.input_changed;
      note("input buffer changed");
    }
  }
  return report;
}

#undef RW_CUDA_OK

}  // namespace rowwise_test
