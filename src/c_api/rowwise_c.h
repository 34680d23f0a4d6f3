/* librowwise: a C ABI over the rowwise kernels, for Python (through the rowwise package) and other hosts.
 *
 * Every function works on device pointers of the current CUDA device and enqueues its work on `stream`
 * (a cudaStream_t; NULL is the legacy default stream). Matrices are `rows` rows of `cols` elements; row
 * r starts `r * row_stride` elements after the base pointer (row_stride >= cols). Functions return
 * ROWWISE_OK (0) or an error code; rowwise_error_string() describes it. rows == 0 launches nothing
 * (dtype, cols, options and row_scale's alignment are still checked; pointers and strides are not, as
 * no row is touched). Each op's last parameter, `options`, tunes its launch (rowwise_options; NULL: the
 * defaults). A whole tensor of n elements as one row (C++'s tensor_softmax) is rows = 1, cols = n:
 * the same kernels, with their workspace taken from the stream's memory pool. */
#ifndef ROWWISE_C_H
#define ROWWISE_C_H

#include <stdint.h>

#if defined(_WIN32)
#define ROWWISE_C_API __declspec(dllexport)
#else
#define ROWWISE_C_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rowwise_dtype {
  ROWWISE_F32 = 0,
  ROWWISE_F64 = 1,
  ROWWISE_F16 = 2,
  ROWWISE_BF16 = 3,
  ROWWISE_I8 = 4,       /* absmax_scale output only */
  ROWWISE_FP8_E4M3 = 5  /* absmax_scale output only: OCP e4m3 (finite, max 448), torch.float8_e4m3fn */
} rowwise_dtype;

/* Error codes: 0 is success, ROWWISE_ERROR_DTYPE an unsupported dtype (combination); any other value is
 * the cudaError_t the call returned (1, cudaErrorInvalidValue: a bad shape, stride, pointer or option;
 * 2, cudaErrorMemoryAllocation: also host memory for rowwise's caches; 801, cudaErrorNotSupported: a
 * plan without a kernel, a rowwise bug to report). */
#define ROWWISE_OK 0
#define ROWWISE_ERROR_DTYPE (-1)

/* How an op launches; all zeros (or a NULL pointer) is the default. C++'s rowwise::Options, less the
 * strategy it may force for tests and benchmarks. */
typedef struct rowwise_options {
  /* At most this many CTAs (0: as many as the work takes), each looping over more rows: to leave SMs to
   * kernels running beside (a communication kernel, say). Where a strategy spreads a row over CTAs that
   * run together (a cluster, split's CTAs of a row), rounded up to one row's CTAs at least. Negative:
   * cudaErrorInvalidValue. */
  int64_t max_ctas;
  /* Nonzero: programmatic dependent launch (sm_90 and newer; ignored below). The launch may begin while
   * the kernel before it in the stream still runs, its start overlapping that kernel's end; it waits for
   * that kernel's writes before it touches memory, and lets the kernel after it begin early in turn.
   * Only the long-row strategies launch so (C++'s rowwise::Options::programmatic_launch says which, and
   * what it measured: a fraction of a microsecond a launch, gained or lost). */
  int32_t programmatic_launch;
} rowwise_options;

/* y = softmax(x) row by row. x, y: F32, F64, F16 or BF16. In place (x == y, same stride) is allowed;
 * otherwise an output sharing a byte with an input is refused (cudaErrorInvalidValue), and so is one
 * whose span (first to last byte) meets an input's where their row steps differ. */
ROWWISE_C_API int rowwise_softmax(rowwise_dtype dtype, const void* x, void* y, int64_t rows, int64_t cols,
                                  int64_t x_row_stride, int64_t y_row_stride, void* stream,
                                  const rowwise_options* options);

/* y = log_softmax(x) row by row; as rowwise_softmax. */
ROWWISE_C_API int rowwise_log_softmax(rowwise_dtype dtype, const void* x, void* y, int64_t rows, int64_t cols,
                                      int64_t x_row_stride, int64_t y_row_stride, void* stream,
                                      const rowwise_options* options);

/* dx = y * (dy - sum(y * dy)) row by row, y the softmax output. dx may alias y or dy (same stride). */
ROWWISE_C_API int rowwise_softmax_backward(rowwise_dtype dtype, const void* y, const void* dy, void* dx,
                                           int64_t rows, int64_t cols, int64_t y_row_stride,
                                           int64_t dy_row_stride, int64_t dx_row_stride, void* stream,
                                           const rowwise_options* options);

/* dx = dy - exp(y) * sum(dy) row by row, y the log_softmax output; as rowwise_softmax_backward. */
ROWWISE_C_API int rowwise_log_softmax_backward(rowwise_dtype dtype, const void* y, const void* dy, void* dx,
                                               int64_t rows, int64_t cols, int64_t y_row_stride,
                                               int64_t dy_row_stride, int64_t dx_row_stride, void* stream,
                                               const rowwise_options* options);

/* Row abs-max scaling of x (F32, F64, F16, BF16) into y. y_dtype == x_dtype: y = x / max|x| and
 * row_scale[r] = max|x|. y_dtype ROWWISE_I8 or ROWWISE_FP8_E4M3: y = round(x * qmax / max|x|) saturated
 * (qmax 127 or 448) and row_scale[r] = max|x| / qmax, so x ~ y * row_scale[r] (a float: 0 or inf where
 * it is outside float's range, as for F64 rows of tiny or huge max|x|). row_scale (float, one per
 * row, float-aligned, outside the spans of x and y) may be NULL. In place only where y_dtype == x_dtype. */
ROWWISE_C_API int rowwise_absmax_scale(rowwise_dtype x_dtype, rowwise_dtype y_dtype, const void* x, void* y,
                                       float* row_scale, int64_t rows, int64_t cols, int64_t x_row_stride,
                                       int64_t y_row_stride, void* stream, const rowwise_options* options);

/* A static, human-readable description of an error code returned above. */
ROWWISE_C_API const char* rowwise_error_string(int code);

#ifdef __cplusplus
}
#endif

#endif /* ROWWISE_C_H */
