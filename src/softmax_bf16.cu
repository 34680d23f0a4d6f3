// softmax and log_softmax for __nv_bfloat16.
#include <rowwise/rowwise.cuh>

template ROWWISE_FORWARD_SIGNATURE(softmax, __nv_bfloat16);
template ROWWISE_FORWARD_SIGNATURE(log_softmax, __nv_bfloat16);
