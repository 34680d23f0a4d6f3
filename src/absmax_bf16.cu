// absmax_scale for __nv_bfloat16: same-type scaling and int8 / fp8 e4m3 quantization.
#include <rowwise/rowwise.cuh>

template ROWWISE_ABSMAX_SIGNATURE(__nv_bfloat16, __nv_bfloat16);
template ROWWISE_ABSMAX_SIGNATURE(__nv_bfloat16, int8_t);
template ROWWISE_ABSMAX_SIGNATURE(__nv_bfloat16, __nv_fp8_e4m3);
