// absmax_scale for __half: same-type scaling and int8 / fp8 e4m3 quantization.
#include <rowwise/rowwise.cuh>

template ROWWISE_ABSMAX_SIGNATURE(__half, __half);
template ROWWISE_ABSMAX_SIGNATURE(__half, int8_t);
template ROWWISE_ABSMAX_SIGNATURE(__half, __nv_fp8_e4m3);
