// softmax and log_softmax for float.
#include <rowwise/rowwise.cuh>

template ROWWISE_FORWARD_SIGNATURE(softmax, float);
template ROWWISE_FORWARD_SIGNATURE(log_softmax, float);
