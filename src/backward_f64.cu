// softmax_backward and log_softmax_backward for double.
#include <rowwise/rowwise.cuh>

template ROWWISE_BACKWARD_SIGNATURE(softmax_backward, double);
template ROWWISE_BACKWARD_SIGNATURE(log_softmax_backward, double);
