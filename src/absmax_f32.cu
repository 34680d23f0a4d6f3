// absmax_scale for float: same-type scaling and int8 / fp8 e4m3 quantization.
#include <rowwise/rowwise.cuh>

template ROWWISE_ABSMAX_SIGNATURE(float, float);
template ROWWISE_ABSMAX_SIGNATURE(float, int8_t);
template ROWWISE_ABSMAX_SIGNATURE(float, __nv_fp8_e4m3);
