"""cuDNN's softmax (cudnnSoftmaxForward / cudnnSoftmaxBackward, accurate and log algorithms) over the rows of
2-D CUDA tensors, through ctypes: a peer for bench/torch_peer.py, which PyTorch does not call for softmax.

The library is the one PyTorch was built with (loaded by torch.backends.cudnn, found again by its soname),
else the nvidia-cudnn wheel's, else the system's. A row is one instance of an N x C x 1 x 1 tensor.
"""
import ctypes
import os

import torch

_ACCURATE, _LOG = 1, 2           # cudnnSoftmaxAlgorithm_t
_MODE_INSTANCE = 0               # cudnnSoftmaxMode_t: over C, H, W of each N
_NCHW = 0                        # cudnnTensorFormat_t
_STATUS_NOT_SUPPORTED = 9        # cudnnStatus_t
_DATA_TYPES = {torch.float32: 0, torch.float64: 1, torch.float16: 2, torch.bfloat16: 9}


class CudnnError(RuntimeError):
    pass


class NotSupported(CudnnError):
    """cuDNN refuses this dtype or shape."""


def _load():
    torch.backends.cudnn.version()  # makes PyTorch load its cuDNN, if it has one
    names = ["libcudnn.so.9"]
    try:
        import nvidia.cudnn
        names += [os.path.join(p, "lib", "libcudnn.so.9") for p in nvidia.cudnn.__path__]
    except ImportError:
        pass
    names.append("libcudnn.so")
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise CudnnError("libcudnn not found (tried " + ", ".join(names) + ")")


class CudnnSoftmax:
    """Row-wise softmax and log_softmax, forward and backward, on PyTorch's current stream."""

    def __init__(self):
        v = ctypes.c_void_p
        self._lib = lib = _load()
        lib.cudnnGetErrorString.restype = ctypes.c_char_p
        lib.cudnnGetVersion.restype = ctypes.c_size_t
        lib.cudnnCreate.argtypes = [ctypes.POINTER(v)]
        lib.cudnnSetStream.argtypes = [v, v]
        lib.cudnnCreateTensorDescriptor.argtypes = [ctypes.POINTER(v)]
        lib.cudnnSetTensor4dDescriptor.argtypes = [v] + [ctypes.c_int] * 6
        lib.cudnnSoftmaxForward.argtypes = [v, ctypes.c_int, ctypes.c_int] + [v] * 6
        lib.cudnnSoftmaxBackward.argtypes = [v, ctypes.c_int, ctypes.c_int] + [v] * 8
        self.version = lib.cudnnGetVersion()
        self._handle = v()
        self._check(lib.cudnnCreate(ctypes.byref(self._handle)), "cudnnCreate")
        self._descriptors = {}  # (dtype, rows, cols) -> descriptor, kept for the process
        # Scaling factors: double for double data, float otherwise (host memory, read at the call).
        self._one_zero = {torch.float64: (ctypes.c_double(1), ctypes.c_double(0))}
        self._float_one_zero = (ctypes.c_float(1), ctypes.c_float(0))

    def _check(self, status, what):
        if status == 0:
            return
        message = f"{what}: {self._lib.cudnnGetErrorString(status).decode()}"
        raise NotSupported(message) if status == _STATUS_NOT_SUPPORTED else CudnnError(message)

    def _descriptor(self, t):
        if t.dim() != 2 or not t.is_contiguous() or not t.is_cuda or t.dtype not in _DATA_TYPES:
            raise NotSupported(f"cuDNN peer takes contiguous 2-D CUDA tensors of {list(_DATA_TYPES)}")
        if max(t.shape) > 2**31 - 1:
            raise NotSupported("cuDNN's tensor dimensions are 32-bit")
        key = (t.dtype, *t.shape)
        if key not in self._descriptors:
            d = ctypes.c_void_p()
            self._check(self._lib.cudnnCreateTensorDescriptor(ctypes.byref(d)), "cudnnCreateTensorDescriptor")
            self._check(self._lib.cudnnSetTensor4dDescriptor(d, _NCHW, _DATA_TYPES[t.dtype], t.shape[0], t.shape[1],
                                                             1, 1), "cudnnSetTensor4dDescriptor")
            self._descriptors[key] = d
        return self._descriptors[key]

    def _prepare(self, t):
        self._check(self._lib.cudnnSetStream(self._handle, torch.cuda.current_stream(t.device).cuda_stream),
                    "cudnnSetStream")
        one, zero = self._one_zero.get(t.dtype, self._float_one_zero)
        return self._descriptor(t), ctypes.byref(one), ctypes.byref(zero)

    def forward(self, x, y, log):
        """y = softmax(x) (log_softmax if log) over each row; returns y."""
        desc, one, zero = self._prepare(x)
        self._check(self._lib.cudnnSoftmaxForward(self._handle, _LOG if log else _ACCURATE, _MODE_INSTANCE, one, desc,
                                                  x.data_ptr(), zero, desc, y.data_ptr()), "cudnnSoftmaxForward")
        return y

    def backward(self, y, dy, dx, log):
        """dx from the forward output y and dy: y (dy - sum(y dy)), or dy - exp(y) sum(dy) if log; returns dx."""
        desc, one, zero = self._prepare(y)
        self._check(self._lib.cudnnSoftmaxBackward(self._handle, _LOG if log else _ACCURATE, _MODE_INSTANCE, one,
                                                   desc, y.data_ptr(), desc, dy.data_ptr(), zero, desc, dx.data_ptr()),
                    "cudnnSoftmaxBackward")
        return dx
