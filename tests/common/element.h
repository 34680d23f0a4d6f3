// Host-side facts about the element types under test: names, rounding, tolerances.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cfloat>
#include <cmath>
#include <string>

namespace rowwise_test {

enum class Dtype { kF32, kF64, kF16, kBF16 };

inline const char* dtype_name(Dtype d) {
  switch (d) {
    case Dtype::kF32: return "fp32";
    case Dtype::kF64: return "fp64";
    case Dtype::kF16: return "fp16";
    case Dtype::kBF16: return "bf16";
  }
  return "?";
}

// kAtol, kRtol: tolerance of an output of size about 1 stored in T. kAccRtol: relative error of the
// accumulation type the kernels compute in (float, or double for double). kUnderflow: absolute error
// allowed near zero, where results may flush (exp is ftz) or round to T's subnormal grid.
template <class T> struct Element;
template <> struct Element<float> {
  static constexpr Dtype kDtype = Dtype::kF32;
  static constexpr double kAtol = 1e-6, kRtol = 1e-5, kAccRtol = 1e-5, kUnderflow = FLT_MIN;
  static float from_double(double v) { return static_cast<float>(v); }
  static double to_double(float v) { return v; }
};
template <> struct Element<double> {
  static constexpr Dtype kDtype = Dtype::kF64;
  static constexpr double kAtol = 1e-12, kRtol = 1e-10, kAccRtol = 1e-10, kUnderflow = DBL_MIN;
  static double from_double(double v) { return v; }
  static double to_double(double v) { return v; }
};
// A 16-bit quiet NaN of the given sign: the host conversions give every NaN as 0x7FFF, and kernels
// that read NaN's bits (abs-max as stored) must see both signs.
template <class T, class Raw> T quiet_nan(bool negative, unsigned short positive_bits) {
  Raw raw;
  raw.x = static_cast<unsigned short>(positive_bits | (negative ? 0x8000 : 0));
  return T(raw);
}
template <> struct Element<__half> {
  static constexpr Dtype kDtype = Dtype::kF16;
  static constexpr double kAtol = 1e-3, kRtol = 1e-3, kAccRtol = 1e-5, kUnderflow = 0x1p-24;
  static __half from_double(double v) {
    if (std::isnan(v)) return quiet_nan<__half, __half_raw>(std::signbit(v), 0x7E00);
    return __float2half_rn(static_cast<float>(v));
  }
  static double to_double(__half v) { return __half2float(v); }
};
template <> struct Element<__nv_bfloat16> {
  static constexpr Dtype kDtype = Dtype::kBF16;
  static constexpr double kAtol = 8e-3, kRtol = 1.6e-2, kAccRtol = 1e-5, kUnderflow = FLT_MIN;
  static __nv_bfloat16 from_double(double v) {
    if (std::isnan(v)) return quiet_nan<__nv_bfloat16, __nv_bfloat16_raw>(std::signbit(v), 0x7FC0);
    return __float2bfloat16_rn(static_cast<float>(v));
  }
  static double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }
};

template <class T> struct Tag {
  using type = T;
};

// Calls f(Tag<T>{}) for the element type named by d.
template <class F> void visit_dtype(Dtype d, F&& f) {
  switch (d) {
    case Dtype::kF32: return f(Tag<float>{});
    case Dtype::kF64: return f(Tag<double>{});
    case Dtype::kF16: return f(Tag<__half>{});
    case Dtype::kBF16: return f(Tag<__nv_bfloat16>{});
  }
}

}  // namespace rowwise_test
