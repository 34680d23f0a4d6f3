// softmax and log_softmax, per row and whole-tensor, for float.
#include <rowwise/rowwise.cuh>

template ROWWISE_FORWARD_SIGNATURE(softmax, float);
template ROWWISE_FORWARD_SIGNATURE(log_softmax, float);
template ROWWISE_TENSOR_SIGNATURE(tensor_softmax, float);
template ROWWISE_TENSOR_POOL_SIGNATURE(tensor_softmax, float);
template ROWWISE_TENSOR_SIGNATURE(tensor_log_softmax, float);
template ROWWISE_TENSOR_POOL_SIGNATURE(tensor_log_softmax, float);
