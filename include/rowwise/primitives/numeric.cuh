// Element types, their accumulation types and the scalar math every op uses.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace rowwise {

// Half and bfloat16 accumulate in float, double in double (design contract).
template <class T> struct AccumulateOf { using type = float; };
template <> struct AccumulateOf<double> { using type = double; };
template <class T> using acc_t = typename AccumulateOf<T>::type;


// Conversions between storage and accumulation types, rounding to nearest on the way back.
template <class A, class T> __host__ __device__ inline A load_as(T v) { return static_cast<A>(v); }
template <> __host__ __device__ inline float load_as<float, __half>(__half v) { return __half2float(v); }
template <> __host__ __device__ inline float load_as<float, __nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <class T, class A> __host__ __device__ inline T store_as(A v) { return static_cast<T>(v); }
template <> __host__ __device__ inline __half store_as<__half, float>(float v) { return __float2half_rn(v); }
template <> __host__ __device__ inline __nv_bfloat16 store_as<__nv_bfloat16, float>(float v) {
  return __float2bfloat16_rn(v);
}

// load_as by other instructions: a second unpack of a value the compiler already unpacked once. Left
// to itself, ptxas reuses the first unpack's results (or hoists the second above the row's reduction)
// and keeps a whole row of unpacked floats alive across the reduction: 103 registers instead of 64
// for the bf16 log_softmax block kernel, which halved its blocks per SM.
template <class A, class T> __device__ inline A load_as_again(T v) { return load_as<A>(v); }
template <> __device__ inline float load_as_again<float, __nv_bfloat16>(__nv_bfloat16 v) {
  return __uint_as_float(static_cast<unsigned>(__bfloat16_as_ushort(v)) << 16);
}
template <> __device__ inline float load_as_again<float, __half>(__half v) {
  float f;
  const unsigned bits = __half_as_ushort(v);
  asm("{ .reg .b16 h; cvt.u16.u32 h, %1; cvt.f32.f16 %0, h; }" : "=f"(f) : "r"(bits));
  return f;
}

// Quantized output types: saturating, round-to-nearest conversion from float. NaN becomes 0 in int8
// (it has no NaN; the row's scale carries the NaN) and NaN in fp8 e4m3.
template <> __host__ __device__ inline int8_t store_as<int8_t, float>(float v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // Two instructions instead of six: cvt rounds to nearest even, saturates at 127 and maps NaN to 0;
  // max.NaN raises -128 to -127 and keeps NaN (16-bit int8 outputs were instruction-bound).
  float low_clamped;
  int r;
  asm("max.NaN.f32 %0, %1, 0fC2FE0000;" : "=f"(low_clamped) : "f"(v));  // -127
  asm("cvt.rni.s8.f32 %0, %1;" : "=r"(r) : "f"(low_clamped));
  return static_cast<int8_t>(r);
#else
  const float r = rintf(fminf(fmaxf(v, -127.f), 127.f));
  return v != v ? int8_t(0) : static_cast<int8_t>(r);
#endif
}
template <> __host__ __device__ inline int8_t store_as<int8_t, double>(double v) {
  const double r = rint(fmin(fmax(v, -127.0), 127.0));
  return v != v ? int8_t(0) : static_cast<int8_t>(r);
}
// Beyond ±448 saturates (satfinite); NaN of either sign becomes the one e4m3 NaN, 0x7F.
template <> __host__ __device__ inline __nv_fp8_e4m3 store_as<__nv_fp8_e4m3, float>(float v) {
  __nv_fp8_e4m3 r(v);
  if (v != v) r.__x = 0x7F;
  return r;
}
template <> __host__ __device__ inline __nv_fp8_e4m3 store_as<__nv_fp8_e4m3, double>(double v) {
  __nv_fp8_e4m3 r(v);
  if (v != v) r.__x = 0x7F;
  return r;
}
template <> __host__ __device__ inline float load_as<float, __nv_fp8_e4m3>(__nv_fp8_e4m3 v) { return float(v); }

// N values to U, as store_as converts one. fp8 e4m3 from float goes two at a time (one cvt for both)
// and gives NaN its one code 0x7F a 32-bit word at a time: 16-bit inputs quantized to fp8 were
// instruction-bound.
template <class U, int N, class A> __device__ inline void store_all_as(const A* src, U* dst) {
  if constexpr (std::is_same_v<U, __nv_fp8_e4m3> && std::is_same_v<A, float> && N % 4 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 4) {
      const unsigned low = __nv_cvt_float2_to_fp8x2(make_float2(src[i], src[i + 1]), __NV_SATFINITE, __NV_E4M3);
      const unsigned high = __nv_cvt_float2_to_fp8x2(make_float2(src[i + 2], src[i + 3]), __NV_SATFINITE, __NV_E4M3);
      unsigned word = low | high << 16;
      // A byte is NaN iff its low 7 bits are all set; adding 1 to them carries into bit 7 exactly then.
      word &= ~(((word & 0x7F7F7F7Fu) + 0x01010101u) & 0x80808080u);
      memcpy(dst + i, &word, 4);
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) dst[i] = store_as<U>(src[i]);
  }
}

// Two floats as the 32-bit word of two 16-bit elements, `low` first in memory: one cvt for both.
template <class T> __device__ inline unsigned pair_as(float low, float high);
template <> __device__ inline unsigned pair_as<__nv_bfloat16>(float low, float high) {
  const __nv_bfloat162 two = __floats2bfloat162_rn(low, high);
  unsigned word;
  memcpy(&word, &two, sizeof(word));
  return word;
}
template <> __device__ inline unsigned pair_as<__half>(float low, float high) {
  const __half2 two = __floats2half2_rn(low, high);
  unsigned word;
  memcpy(&word, &two, sizeof(word));
  return word;
}

// The largest magnitude an output type takes in abs-max scaling: 1 for plain scaling to [-1, 1].
template <class Out> struct QuantLimits { static constexpr float qmax = 1.f; };
template <> struct QuantLimits<int8_t> { static constexpr float qmax = 127.f; };
template <> struct QuantLimits<__nv_fp8_e4m3> { static constexpr float qmax = 448.f; };

namespace math {

template <class A> __host__ __device__ inline A infinity();
template <> __host__ __device__ inline float infinity<float>() { return HUGE_VALF; }
template <> __host__ __device__ inline double infinity<double>() { return HUGE_VAL; }

// max that propagates NaN (fmax ignores it): one max.NaN on sm_80 and newer.
template <class A> __host__ __device__ inline A max_nan(A a, A b) { return (a != a || a > b) ? a : b; }
__host__ __device__ inline float max_nan(float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return (a != a || a > b) ? a : b;
#endif
}
// max |v| over M 16-bit floats (half or bfloat16; M even) as stored, NaN if any is NaN. With the sign
// bit cleared their bits order as their magnitudes do, NaN above inf, so an unsigned max two at a
// time (VIMNMX.U16x2 on sm_90) finds it: a mask and half a max a value, where unpacking first cost an
// unpack and a max.NaN a value (docs/perf.md: int8 / fp8 outputs of 16-bit rows +1-3 %).
template <int M, class T> __device__ inline float abs_max_stored(const T* v) {
  static_assert(sizeof(T) == 2 && M % 2 == 0, "pairs of 16-bit floats");
  unsigned m = 0;
#pragma unroll
  for (int i = 0; i < M; i += 2) {
    unsigned pair;
    memcpy(&pair, v + i, sizeof(pair));
    m = __vmaxu2(m, pair & 0x7FFF7FFFu);
  }
  const unsigned low = m & 0xFFFFu, high = m >> 16;
  const unsigned short top = static_cast<unsigned short>(low > high ? low : high);
  T t;
  memcpy(&t, &top, sizeof(t));
  return load_as<float>(t);
}
__host__ __device__ inline float abs(float x) { return fabsf(x); }
__host__ __device__ inline double abs(double x) { return fabs(x); }

// max ignoring NaN: one FMNMX.
__host__ __device__ inline float max(float a, float b) { return fmaxf(a, b); }
__host__ __device__ inline double max(double a, double b) { return fmax(a, b); }

// exp(x) for x <= 0 in softmax: on the device 2^(x·log2 e) by ex2.approx.ftz, ~2 ulp plus |x|·2^-24
// relative error, far inside the fp32 tolerance where results are not negligible: one FMUL and one
// MUFU.EX2. __expf without ftz adds a denormal fix-up of three instructions per call, a third of the
// softmax's per-element work. Results below 2^-126 flush to 0. The host versions serve CPU tests.
__host__ __device__ inline float exp(float x) {
#ifdef __CUDA_ARCH__
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
  return y;
#else
  return std::exp(x);
#endif
}
__host__ __device__ inline double exp(double x) { return ::exp(x); }
__host__ __device__ inline float log(float x) { return ::logf(x); }
// Correctly rounded 1/x (once per row and thread). One MUFU.RCP (rcp.approx) instead moved short warp
// rows -0.6 to +0.6 points and cost 16-bit block rows of 4096 columns 27-29 (H200; docs/perf.md history).
__device__ inline float reciprocal(float x) { return __frcp_rn(x); }
__device__ inline double reciprocal(double x) { return __drcp_rn(x); }
__host__ __device__ inline double log(double x) { return ::log(x); }

}  // namespace math
}  // namespace rowwise
