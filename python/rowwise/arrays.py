"""rowwise for any CUDA array: DLPack producers (CuPy, PyTorch, ...) and __cuda_array_interface__
producers (Numba, ...), over the last axis. JAX arrays are refused: they are immutable, and rowwise
could not order its work with XLA's streams.

Rows must be evenly strided (contiguous arrays, slices of the last axis, ...); nothing is copied here.
Outputs are allocated by the input's own library (its array-API namespace, or the module that defines
its type, e.g. cupy) on the input's device, unless passed as out=. Work runs on `stream` (a
cudaStream_t as an int): by default the input library's current stream on the input's device where
rowwise knows it (CuPy, PyTorch), else the legacy default stream. DLPack producers are asked to make
their data ready on that stream; where a __cuda_array_interface__ producer names its stream (version 3),
that stream's work so far is waited for on rowwise's stream, and one that names none must have finished
writing.

Every function also takes the launch options of the C ABI's rowwise_options, keyword-only: max_ctas, at
most that many CTAs, each looping over more rows, to leave SMs to kernels running beside (0: as many as
the work takes), and programmatic_launch, programmatic dependent launch (sm_90 and newer; ignored below):
the long-row kernels may start while the kernel before them ends.
"""
import importlib
from math import prod
from typing import NamedTuple, Optional, Tuple

from . import _native
from ._native import _C
from ._rows import row_layout

_DLPACK_CUDA = (2, 13)  # kDLCUDA, kDLCUDAManaged
_DLPACK_DTYPES = {(2, 32): "float32", (2, 64): "float64", (2, 16): "float16", (4, 16): "bfloat16",
                  (0, 8): "int8", (1, 8): "uint8", (10, 8): "float8_e4m3fn"}
_CAI_DTYPES = {"f4": "float32", "f8": "float64", "f2": "float16", "i1": "int8", "u1": "uint8"}


class _View(NamedTuple):
    ptr: int
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]  # in elements
    dtype: str  # a DTYPE_CODES name, "uint8", or a description of an unsupported type
    device: int
    producer: Optional[int] = None  # a __cuda_array_interface__ producer's stream that rowwise's must wait for


# ---------------------------------------------------------------------------------------------------
# Public functions


def softmax(x, *, out=None, stream: Optional[int] = None, max_ctas: int = 0, programmatic_launch: bool = False):
    """softmax over x's last axis, into out (allocated like x when None); returns out."""
    return _forward("softmax", _C.softmax, x, out, stream, max_ctas, programmatic_launch)


def log_softmax(x, *, out=None, stream: Optional[int] = None, max_ctas: int = 0, programmatic_launch: bool = False):
    """log_softmax over x's last axis, into out (allocated like x when None); returns out."""
    return _forward("log_softmax", _C.log_softmax, x, out, stream, max_ctas, programmatic_launch)


def softmax_backward(y, dy, *, out=None, stream: Optional[int] = None, max_ctas: int = 0,
                     programmatic_launch: bool = False):
    """The gradient of softmax at its input, y * (dy - sum(y * dy)), y the softmax output; returns out."""
    return _backward("softmax_backward", _C.softmax_backward, y, dy, out, stream, max_ctas, programmatic_launch)


def log_softmax_backward(y, dy, *, out=None, stream: Optional[int] = None, max_ctas: int = 0,
                         programmatic_launch: bool = False):
    """The gradient of log_softmax at its input, dy - exp(y) * sum(dy), y its output; returns out."""
    return _backward("log_softmax_backward", _C.log_softmax_backward, y, dy, out, stream, max_ctas,
                     programmatic_launch)


def absmax_scale(x, out_dtype=None, *, out=None, scales=None, stream: Optional[int] = None, max_ctas: int = 0,
                 programmatic_launch: bool = False):
    """Row abs-max scaling over x's last axis; returns (out, scales), scales float32 of shape x.shape[:-1].

    out_dtype None or x's dtype: out = x / max|x|, scales = max|x|. "int8" or "float8_e4m3fn" (or those
    dtypes): out = round(x * qmax / max|x|) saturated (qmax 127 or 448), scales = max|x| / qmax. Where the
    library has no float8_e4m3fn type (CuPy), the fp8 output is a uint8 array of e4m3 bits.
    """
    op = "absmax_scale"
    _native.check_options(op, max_ctas, programmatic_launch)
    stream = _default_stream(x) if stream is None else stream
    xv = _view(op, "x", x, stream)
    _expect_element(op, "x", xv)
    target = xv.dtype if out_dtype is None else _dtype_name(out_dtype)
    if target not in (xv.dtype,) + _native.QUANTIZED:
        raise TypeError(f"rowwise.{op}: out_dtype must be None, x's dtype ({xv.dtype}), int8 or float8_e4m3fn; "
                        f"got {out_dtype}")
    out = _empty(op, x, xv.shape, target) if out is None else out
    scales = _empty(op, x, xv.shape[:-1], "float32") if scales is None else scales
    yv, sv = _view(op, "out", out, stream), _view(op, "scales", scales, stream)
    _expect_like(op, "out", yv, xv, (target, "uint8") if target == "float8_e4m3fn" else (target,))
    if sv.shape != xv.shape[:-1] or sv.dtype != "float32" or sv.device != xv.device:
        raise ValueError(f"rowwise.{op}: scales must be float32 of shape {xv.shape[:-1]} on x's device; got "
                         f"{sv.dtype} of shape {sv.shape} on device {sv.device}")
    if not _contiguous(sv):
        raise ValueError(f"rowwise.{op}: scales must be contiguous; got strides {sv.strides}")
    if prod(xv.shape) > 0:
        rows, cols, x_stride = _rows(op, "x", xv)
        y_stride = _rows(op, "out", yv)[2]
        _wait_for_producers(op, stream, xv, yv, sv)
        code = _C.absmax_scale(_native.DTYPE_CODES[xv.dtype], _native.DTYPE_CODES[target], xv.ptr, yv.ptr, sv.ptr,
                               rows, cols, x_stride, y_stride, stream, max_ctas, programmatic_launch, xv.device)
        _native.check(op, code)
    elif prod(sv.shape) > 0:
        scales[...] = 0  # rows of no elements: max|x| = 0, as for a zero row
    return out, scales


def _forward(op: str, fn, x, out, stream: Optional[int], max_ctas: int, programmatic_launch: bool):
    _native.check_options(op, max_ctas, programmatic_launch)
    stream = _default_stream(x) if stream is None else stream
    xv = _view(op, "x", x, stream)
    _expect_element(op, "x", xv)
    out = _empty(op, x, xv.shape, xv.dtype) if out is None else out
    yv = _view(op, "out", out, stream)
    _expect_like(op, "out", yv, xv, (xv.dtype,))
    if prod(xv.shape) > 0:
        rows, cols, x_stride = _rows(op, "x", xv)
        y_stride = _rows(op, "out", yv)[2]
        _wait_for_producers(op, stream, xv, yv)
        _native.check(op, fn(_native.DTYPE_CODES[xv.dtype], xv.ptr, yv.ptr, rows, cols, x_stride, y_stride, stream,
                             max_ctas, programmatic_launch, xv.device))
    return out


def _backward(op: str, fn, y, dy, out, stream: Optional[int], max_ctas: int, programmatic_launch: bool):
    _native.check_options(op, max_ctas, programmatic_launch)
    stream = _default_stream(y) if stream is None else stream
    yv, dyv = _view(op, "y", y, stream), _view(op, "dy", dy, stream)
    _expect_element(op, "y", yv)
    _expect_like(op, "dy", dyv, yv, (yv.dtype,))
    out = _empty(op, y, yv.shape, yv.dtype) if out is None else out
    dxv = _view(op, "out", out, stream)
    _expect_like(op, "out", dxv, yv, (yv.dtype,))
    if prod(yv.shape) > 0:
        rows, cols, y_stride = _rows(op, "y", yv)
        dy_stride, dx_stride = _rows(op, "dy", dyv)[2], _rows(op, "out", dxv)[2]
        _wait_for_producers(op, stream, yv, dyv, dxv)
        _native.check(op, fn(_native.DTYPE_CODES[yv.dtype], yv.ptr, dyv.ptr, dxv.ptr, rows, cols, y_stride, dy_stride,
                             dx_stride, stream, max_ctas, programmatic_launch, yv.device))
    return out


# ---------------------------------------------------------------------------------------------------
# Arrays: what they are, checks, allocation, streams


def _view(op: str, name: str, obj, stream: int) -> _View:
    if type(obj).__module__.partition(".")[0] in ("jax", "jaxlib"):
        raise TypeError(f"rowwise.{op}: {name} is a JAX array; JAX arrays are immutable and rowwise cannot order "
                        "its work with XLA's streams: not supported")
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        device_type, device = obj.__dlpack_device__()
        if device_type not in _DLPACK_CUDA:
            where = "host (CPU)" if device_type in (1, 3) else f"DLPack device type {device_type}"
            raise ValueError(f"rowwise.{op}: {name} is in {where} memory; rowwise runs on CUDA devices only")
        # DLPack's stream numbers are cudaStream_t values, except that the legacy default stream is 1.
        ptr, shape, strides, (code, bits, lanes), _ = _C.describe(obj.__dlpack__(stream=stream or 1))
        dtype = _DLPACK_DTYPES.get((code, bits)) if lanes == 1 else None
        return _View(ptr, shape, strides, dtype or f"DLPack type ({code}, {bits} bits, {lanes} lanes)", device)
    if hasattr(obj, "__cuda_array_interface__"):
        return _cai_view(op, name, obj.__cuda_array_interface__, stream)
    raise TypeError(f"rowwise.{op}: {name} must be a CUDA array (DLPack or __cuda_array_interface__), got "
                    f"{type(obj).__name__}")


def _cai_view(op: str, name: str, cai: dict, stream: int) -> _View:
    ptr, readonly = cai["data"]
    if readonly and name in ("out", "scales"):
        raise ValueError(f"rowwise.{op}: {name} is read-only")
    typestr, shape = cai["typestr"], tuple(cai["shape"])
    itemsize = int(typestr[2:])
    strides = cai.get("strides")
    if strides is None:  # C-contiguous
        strides = tuple(prod(shape[i + 1:]) for i in range(len(shape)))
    elif any(s % itemsize for s in strides):
        raise ValueError(f"rowwise.{op}: {name}'s strides {tuple(strides)} are not whole elements")
    else:
        strides = tuple(s // itemsize for s in strides)
    device, producer = 0, cai.get("stream")
    if producer == 0:
        raise ValueError(f"rowwise.{op}: {name}'s __cuda_array_interface__ stream is 0, which the interface "
                         "does not allow (1: the legacy default stream, 2: the per-thread one)")
    # Version 3's "stream": None says nothing is pending; 1 is the legacy default stream, rowwise's 0 too.
    if producer == (stream or 1):
        producer = None
    if prod(shape) > 0:
        code, on_device, device = _C.pointer_device(ptr)
        _native.check(op, code)
        if not on_device:
            raise ValueError(f"rowwise.{op}: {name} is in host memory; rowwise runs on CUDA devices only")
    return _View(ptr, shape, strides, _CAI_DTYPES.get(typestr[1:], f"typestr {typestr}"), device, producer)


def _wait_for_producers(op: str, stream: int, *views: _View) -> None:
    """Orders `stream` after the work the arrays' __cuda_array_interface__ producers queued on their streams,
    once a stream (arrays of one producer share it), just before the launch: a call refused by its checks
    leaves the streams alone."""
    for producer, device in sorted({(v.producer, v.device) for v in views if v.producer is not None}):
        _native.check(op, _C.stream_wait(stream, producer, device))


def _expect_element(op: str, name: str, v: _View) -> None:
    if v.dtype not in _native.ELEMENTS:
        raise TypeError(f"rowwise.{op}: {name}'s dtype {v.dtype} is not supported; supported: "
                        f"{', '.join(_native.ELEMENTS)}")
    if not v.shape:
        raise ValueError(f"rowwise.{op}: {name} is 0-dimensional; it needs an axis to reduce over")


def _expect_like(op: str, name: str, v: _View, like: _View, dtypes: Tuple[str, ...]) -> None:
    if v.shape != like.shape:
        raise ValueError(f"rowwise.{op}: {name} has shape {v.shape}, expected {like.shape}")
    if v.dtype not in dtypes:
        raise TypeError(f"rowwise.{op}: {name} has dtype {v.dtype}, expected {' or '.join(dtypes)}")
    if v.device != like.device and prod(v.shape) > 0:
        raise ValueError(f"rowwise.{op}: {name} is on device {v.device}, expected device {like.device}")


def _rows(op: str, name: str, v: _View) -> Tuple[int, int, int]:
    layout = row_layout(v.shape, v.strides)
    if layout is None:
        raise ValueError(f"rowwise.{op}: {name}'s rows are not evenly strided (shape {v.shape}, strides "
                         f"{v.strides} in elements); pass a contiguous array")
    return layout


def _contiguous(v: _View) -> bool:
    expected = 1
    for size, stride in reversed(list(zip(v.shape, v.strides))):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _dtype_name(dtype) -> str:
    """"int8", numpy.int8, numpy.dtype("int8"), torch.int8, ... as "int8"."""
    if isinstance(dtype, str):
        return dtype
    for attr in ("name", "__name__"):
        name = getattr(dtype, attr, None)
        if isinstance(name, str):
            return name
    return str(dtype).rpartition(".")[2]


def _empty(op: str, like, shape: Tuple[int, ...], dtype: str):
    """An uninitialized array from like's library, on like's device."""
    if hasattr(like, "__array_namespace__"):
        ns = like.__array_namespace__()
    else:
        ns = importlib.import_module(type(like).__module__.partition(".")[0])
    if dtype == "float8_e4m3fn" and not hasattr(ns, dtype):
        dtype = "uint8"  # e4m3 bits, where the library has no fp8 type
    if not hasattr(ns, "empty") or not hasattr(ns, dtype):
        raise TypeError(f"rowwise.{op}: cannot allocate a {dtype} output with {ns.__name__}; pass out=")
    device = getattr(like, "device", None)
    if device is None:
        return ns.empty(shape, dtype=getattr(ns, dtype))
    if hasattr(device, "__enter__"):  # CuPy: allocations go to the device entered
        with device:
            return ns.empty(shape, dtype=getattr(ns, dtype))
    return ns.empty(shape, dtype=getattr(ns, dtype), device=device)  # PyTorch, the array API


def _default_stream(obj) -> int:
    """The current stream of obj's library on obj's device where rowwise knows it, else the legacy
    default stream (0)."""
    library = type(obj).__module__.partition(".")[0]
    if library == "cupy":
        with obj.device:
            return importlib.import_module("cupy").cuda.get_current_stream().ptr
    if library == "torch" and obj.device.type == "cuda":
        return importlib.import_module("torch").cuda.current_stream(obj.device).cuda_stream
    return 0
