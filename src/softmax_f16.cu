// softmax and log_softmax, per row and whole-tensor, for __half.
#include <rowwise/rowwise.cuh>

template ROWWISE_FORWARD_SIGNATURE(softmax, __half);
template ROWWISE_FORWARD_SIGNATURE(log_softmax, __half);
template ROWWISE_TENSOR_SIGNATURE(tensor_softmax, __half);
template ROWWISE_TENSOR_POOL_SIGNATURE(tensor_softmax, __half);
template ROWWISE_TENSOR_SIGNATURE(tensor_log_softmax, __half);
template ROWWISE_TENSOR_POOL_SIGNATURE(tensor_log_softmax, __half);
