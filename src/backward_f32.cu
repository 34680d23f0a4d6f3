// softmax_backward and log_softmax_backward for float.
#include <rowwise/rowwise.cuh>

template ROWWISE_BACKWARD_SIGNATURE(softmax_backward, float);
template ROWWISE_BACKWARD_SIGNATURE(log_softmax_backward, float);
