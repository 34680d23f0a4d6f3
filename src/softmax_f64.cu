// softmax and log_softmax, per row and whole-tensor, for double.
#include <rowwise/rowwise.cuh>

template ROWWISE_FORWARD_SIGNATURE(softmax, double);
template ROWWISE_FORWARD_SIGNATURE(log_softmax, double);
template ROWWISE_TENSOR_SIGNATURE(tensor_softmax, double);
template ROWWISE_TENSOR_POOL_SIGNATURE(tensor_softmax, double);
template ROWWISE_TENSOR_SIGNATURE(tensor_log_softmax, double);
template ROWWISE_TENSOR_POOL_SIGNATURE(tensor_log_softmax, double);
