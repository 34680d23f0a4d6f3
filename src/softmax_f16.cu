// softmax and log_softmax for __half.
#include <rowwise/rowwise.cuh>

template ROWWISE_FORWARD_SIGNATURE(softmax, __half);
template ROWWISE_FORWARD_SIGNATURE(log_softmax, __half);
