// softmax_backward and log_softmax_backward for __half.
#include <rowwise/rowwise.cuh>

template ROWWISE_BACKWARD_SIGNATURE(softmax_backward, __half);
template ROWWISE_BACKWARD_SIGNATURE(log_softmax_backward, __half);
