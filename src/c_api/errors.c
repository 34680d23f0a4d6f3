/* rowwise_error_string: the C ABI's error codes in words. Compiled as C, which also checks that
 * rowwise_c.h is a C header. */
#include <cuda_runtime.h>

#include "rowwise_c.h"

const char* rowwise_error_string(int code) {
  switch (code) {
    case ROWWISE_OK: return "no error";
    case ROWWISE_ERROR_DTYPE: return "unsupported dtype (or input/output dtype combination)";
    case cudaErrorInvalidValue:
      return "invalid argument: rows < 0, cols < 1, a row stride < cols, rows spanning more than 64-bit "
             "offsets, a null or misaligned pointer, an output overlapping an input other than in place "
             "(same pointer and dtype, and the same stride unless one row), row_scale within the span "
             "of x or y, or a negative max_ctas (or a CUDA call's invalid value)";
    default: return cudaGetErrorString((cudaError_t)code);
  }
}
