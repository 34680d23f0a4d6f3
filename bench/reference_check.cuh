// Correctness of rowwise-bench's results: float64 references of a row (forward, gradient, abs-max
// scaling), the tolerance an output of each type gets, and the check of sampled rows.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "bench_cases.h"
#include "device_timing.cuh"

namespace rowwise_bench {

struct Tolerance {
  double atol;
  double rtol;
};

template <class T> Tolerance tolerance() {
  if constexpr (std::is_same_v<T, float>) return {1e-6, 1e-5};
  if constexpr (std::is_same_v<T, double>) return {1e-12, 1e-10};
  if constexpr (std::is_same_v<T, __half>) return {1e-3, 1e-3};
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return {8e-3, 1.6e-2};
}

constexpr double kQuantSlack = 1e-5;  // relative: float rounding of x * qmax / absmax before rounding
constexpr double kScaleRtol = 1e-6;   // row scales are floats: one rounding of a float64 value

// Spacing of fp8 e4m3 values near magnitude a: 3 mantissa bits; subnormals below 2^-6 are 2^-9 apart.
inline double e4m3_spacing(double a) {
  if (a < 0x1p-6) return 0x1p-9;
  int e = 0;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1)
  return std::ldexp(1.0, e - 4);
}

// How far an output of type U may lie from the float64 reference: the dtype's tolerance, or for the
// quantized types half a unit of their grid (round to nearest, so -128 or a wrong rounding fails).
template <class U> double error_limit(double ref) {
  const double a = std::fabs(ref);
  if constexpr (std::is_same_v<U, int8_t>) {
    return 0.5 + kQuantSlack * a;
  } else if constexpr (std::is_same_v<U, __nv_fp8_e4m3>) {
    return 0.5 * e4m3_spacing(a) + kQuantSlack * a;
  } else {
    const Tolerance t = tolerance<U>();
    return t.atol + t.rtol * a;
  }
}

inline double scale_limit(double ref) { return kScaleRtol * std::fabs(ref); }

template <class U> constexpr double quant_max() {
  if constexpr (std::is_same_v<U, int8_t>) return 127;
  if constexpr (std::is_same_v<U, __nv_fp8_e4m3>) return 448;
  return 1;
}

inline double to_double(float v) { return v; }
inline double to_double(double v) { return v; }
inline double to_double(__half v) { return __half2float(v); }
inline double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }
inline double to_double(int8_t v) { return v; }
inline double to_double(__nv_fp8_e4m3 v) { return static_cast<float>(v); }

template <class T> std::vector<double> row_to_host(const T* base, int64_t row, int64_t cols) {
  std::vector<T> raw(cols);
  CUDA_CHECK(cudaMemcpy(raw.data(), base + row * cols, cols * sizeof(T), cudaMemcpyDeviceToHost));
  std::vector<double> values(cols);
  std::transform(raw.begin(), raw.end(), values.begin(), [](T v) { return to_double(v); });
  return values;
}

inline std::vector<double> reference_row(Op op, const std::vector<double>& x) {
  const double m = *std::max_element(x.begin(), x.end());
  double sum = 0;
  for (double v : x) sum += std::exp(v - m);
  const double log_sum = std::log(sum);
  std::vector<double> ref(x.size());
  for (size_t i = 0; i < x.size(); ++i) ref[i] = op == Op::kSoftmax ? std::exp(x[i] - m) / sum : x[i] - m - log_sum;
  return ref;
}

// dx from y (softmax or log_softmax output) and dy.
inline std::vector<double> reference_grad(Op op, const std::vector<double>& y, const std::vector<double>& dy) {
  double sum = 0;  // sum(y * dy) for softmax, sum(dy) for log_softmax
  for (size_t i = 0; i < y.size(); ++i) sum += op == Op::kSoftmaxBackward ? y[i] * dy[i] : dy[i];
  std::vector<double> dx(y.size());
  for (size_t i = 0; i < y.size(); ++i)
    dx[i] = op == Op::kSoftmaxBackward ? y[i] * (dy[i] - sum) : dy[i] - std::exp(y[i]) * sum;
  return dx;
}

struct AbsmaxReference {
  std::vector<double> y;  // unrounded: x * qmax / absmax
  double scale;           // absmax / qmax
};

inline AbsmaxReference reference_absmax(const std::vector<double>& x, double qmax) {
  double absmax = 0;
  for (double v : x) absmax = std::max(absmax, std::fabs(v));
  AbsmaxReference ref{std::vector<double>(x.size()), absmax / qmax};
  for (size_t i = 0; i < x.size(); ++i) ref.y[i] = absmax == 0 ? 0 : x[i] * qmax / absmax;
  return ref;
}

// First, middle and last row.
inline std::vector<int64_t> sample_rows(int64_t rows) {
  std::vector<int64_t> sample{0, rows / 2, rows - 1};
  sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
  return sample;
}

// Whether every got[i] lies within limit(ref[i]) of ref[i]; reports the first that does not.
template <class Limit>
bool matches(const Case& c, const char* what, int64_t row, const std::vector<double>& got,
             const std::vector<double>& ref, Limit limit) {
  for (size_t col = 0; col < ref.size(); ++col) {
    const double allowed = limit(ref[col]);
    if (!(std::fabs(got[col] - ref[col]) <= allowed)) {  // negated so NaN fails
      std::fprintf(stderr, "FAIL %s %s %lldx%lld: %s row %lld col %zu got %.17g ref %.17g (tolerance %.3g)\n",
                   op_name(c.op), dtype_name(c.dtype), static_cast<long long>(c.rows), static_cast<long long>(c.cols),
                   what, static_cast<long long>(row), col, got[col], ref[col], allowed);
      return false;
    }
  }
  return true;
}

}  // namespace rowwise_bench
