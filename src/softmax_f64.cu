// softmax and log_softmax for double.
#include <rowwise/rowwise.cuh>

template ROWWISE_FORWARD_SIGNATURE(softmax, double);
template ROWWISE_FORWARD_SIGNATURE(log_softmax, double);
