// softmax_backward and log_softmax_backward for __nv_bfloat16.
#include <rowwise/rowwise.cuh>

template ROWWISE_BACKWARD_SIGNATURE(softmax_backward, __nv_bfloat16);
template ROWWISE_BACKWARD_SIGNATURE(log_softmax_backward, __nv_bfloat16);
