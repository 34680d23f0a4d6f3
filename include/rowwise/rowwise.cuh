// rowwise: row-wise reduce-then-map kernels (softmax family). Include this header, or link the
// precompiled library and define ROWWISE_PRECOMPILED to skip instantiating kernels in your code.
#pragma once
#include "api.cuh"
#include "tensor.cuh"
#include "instantiations.cuh"
