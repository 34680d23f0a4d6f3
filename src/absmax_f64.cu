// absmax_scale for double: same-type scaling and int8 / fp8 e4m3 quantization.
#include <rowwise/rowwise.cuh>

template ROWWISE_ABSMAX_SIGNATURE(double, double);
template ROWWISE_ABSMAX_SIGNATURE(double, int8_t);
template ROWWISE_ABSMAX_SIGNATURE(double, __nv_fp8_e4m3);
