"""The framework-free path (rowwise.arrays, and rowwise.* for non-torch arrays): argument checks and
error messages, without a GPU."""
import numpy as np
import pytest

import rowwise
from rowwise import arrays


class CudaArray:
    """A bare __cuda_array_interface__ producer (as Numba's device arrays are)."""

    def __init__(self, shape, typestr="<f4", strides=None, ptr=0, readonly=False):
        self.__cuda_array_interface__ = dict(shape=shape, typestr=typestr, strides=strides, data=(ptr, readonly),
                                             version=3)
        self.shape = shape


def empty_like_cai(x):
    cai = x.__cuda_array_interface__
    return CudaArray(cai["shape"], cai["typestr"])


def test_host_arrays_are_refused_with_the_op_name():
    with pytest.raises(ValueError, match=r"rowwise.softmax: x is in host \(CPU\) memory; rowwise runs on CUDA"):
        rowwise.softmax(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"rowwise.log_softmax_backward: y is in host"):
        arrays.log_softmax_backward(np.ones(3), np.ones(3))


def test_non_arrays_are_refused():
    with pytest.raises(TypeError, match=r"rowwise.log_softmax: x must be a CUDA array .* got list"):
        rowwise.log_softmax([1.0, 2.0])


class JaxLike(CudaArray):
    """Stands in for a JAX array: rowwise tells them by the module of their type."""


JaxLike.__module__ = "jaxlib.xla_extension"


def test_jax_arrays_are_refused():
    with pytest.raises(TypeError, match=r"rowwise.softmax: x is a JAX array; JAX arrays are immutable"):
        arrays.softmax(JaxLike((2, 4)))
    with pytest.raises(TypeError, match=r"rowwise.absmax_scale: out is a JAX array"):
        arrays.absmax_scale(CudaArray((0, 4)), out=JaxLike((0, 4)), scales=CudaArray((0,)))


def test_dim_and_dtype_need_torch():
    x = CudaArray((0, 4))
    with pytest.raises(ValueError, match=r"rowwise.softmax: dim= other than the last and dtype= need a torch"):
        rowwise.softmax(x, dim=0)
    with pytest.raises(ValueError, match=r"need a torch.Tensor"):
        rowwise.softmax(x, dtype="float64")
    arrays_out = CudaArray((0, 4))
    assert arrays.softmax(x, out=arrays_out) is arrays_out  # the last dim, by either index: nothing to do


def test_unsupported_dtypes():
    with pytest.raises(TypeError, match=r"rowwise.softmax: x's dtype typestr <i4 is not supported; supported: "
                                        r"float32, float64, float16, bfloat16"):
        arrays.softmax(CudaArray((0, 4), "<i4"))


def test_output_checks():
    x = CudaArray((0, 4))
    with pytest.raises(ValueError, match=r"rowwise.softmax: out has shape \(0, 5\), expected \(0, 4\)"):
        arrays.softmax(x, out=CudaArray((0, 5)))
    with pytest.raises(TypeError, match=r"rowwise.softmax: out has dtype float64, expected float32"):
        arrays.softmax(x, out=CudaArray((0, 4), "<f8"))
    with pytest.raises(ValueError, match=r"rowwise.softmax: out is read-only"):
        arrays.softmax(x, out=CudaArray((0, 4), readonly=True))
    with pytest.raises(TypeError, match=r"rowwise.softmax_backward: dy has dtype float16, expected float32"):
        arrays.softmax_backward(x, CudaArray((0, 4), "<f2"))


def test_no_allocator_asks_for_out():
    with pytest.raises(TypeError, match=r"rowwise.softmax: cannot allocate a float32 output with .*; pass out="):
        arrays.softmax(CudaArray((0, 4)))


def test_absmax_checks():
    x = CudaArray((0, 4))
    with pytest.raises(TypeError, match=r"rowwise.absmax_scale: out_dtype must be None, x's dtype \(float32\), "
                                        r"int8 or float8_e4m3fn; got float16"):
        arrays.absmax_scale(x, "float16", out=empty_like_cai(x), scales=CudaArray((0,)))
    with pytest.raises(ValueError, match=r"rowwise.absmax_scale: scales must be float32 of shape \(0,\)"):
        arrays.absmax_scale(x, np.int8, out=CudaArray((0, 4), "|i1"), scales=CudaArray((0,), "<f8"))
    with pytest.raises(ValueError, match=r"rowwise.absmax_scale: scales is read-only"):
        arrays.absmax_scale(x, out=empty_like_cai(x), scales=CudaArray((0,), readonly=True))
    out, scales = CudaArray((0, 4), "|u1"), CudaArray((0,))  # fp8 into uint8 storage: accepted
    assert arrays.absmax_scale(x, "float8_e4m3fn", out=out, scales=scales) == (out, scales)


def test_strides_that_are_not_whole_elements():
    with pytest.raises(ValueError, match=r"rowwise.softmax: x's strides \(6, 4\) are not whole elements"):
        arrays.softmax(CudaArray((0, 4), strides=(6, 4)))


def test_host_pointer_behind_the_cuda_array_interface():
    host = np.ones((2, 4), np.float32)
    fake = CudaArray((2, 4), ptr=host.ctypes.data)
    # Without a driver the pointer query itself fails; with one it reports host memory.
    with pytest.raises((ValueError, RuntimeError), match=r"rowwise.softmax: "):
        arrays.softmax(fake, out=empty_like_cai(fake))


def test_cuda_array_interface_stream_is_waited_for(monkeypatch):
    """Version 3's stream: rowwise's stream waits for the producer's work just before the launch, once a
    producer stream, unless it is rowwise's own."""
    waits, launches = [], []
    monkeypatch.setattr(arrays._C, "pointer_device", lambda ptr: (0, True, 3))
    monkeypatch.setattr(arrays._C, "stream_wait", lambda consumer, producer, device: waits.append(
        (consumer, producer, device)) or 0)
    monkeypatch.setattr(arrays._C, "softmax_backward", lambda *args: launches.append(len(waits)) or 0)

    def cai(producer, typestr="<f4"):
        array = CudaArray((2, 4), typestr, ptr=4096)
        array.__cuda_array_interface__["stream"] = producer
        return array

    # Nothing pending, the same stream, the legacy default stream (rowwise's 0).
    for producer, stream in ((None, 7), (7, 7), (1, 0)):
        arrays.softmax_backward(cai(producer), cai(producer), out=cai(producer), stream=stream)
    assert waits == [] and launches == [0, 0, 0]
    # y and out from stream 5, dy from 2: one wait each, before the launch.
    arrays.softmax_backward(cai(5), cai(2), out=cai(5), stream=7)
    assert waits == [(7, 2, 3), (7, 5, 3)] and launches[-1] == 2
    # A call its checks refuse waits for nothing.
    with pytest.raises(TypeError, match=r"rowwise.softmax_backward: dy has dtype float64"):
        arrays.softmax_backward(cai(9), cai(9, "<f8"), out=cai(9), stream=7)
    assert len(waits) == 2
    with pytest.raises(ValueError, match=r"rowwise.softmax_backward: dy's __cuda_array_interface__ stream is 0"):
        arrays.softmax_backward(cai(5), cai(0), out=cai(5), stream=7)


@pytest.mark.parametrize("given, name", [("int8", "int8"), (np.int8, "int8"), (np.dtype("float32"), "float32")])
def test_dtype_names(given, name):
    assert arrays._dtype_name(given) == name


OPS = ("softmax", "log_softmax", "softmax_backward", "log_softmax_backward", "absmax_scale")


def op_args(op, x):
    return (x, x) if op.endswith("backward") else (x,)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("options, error, message", [
    (dict(max_ctas=-1), ValueError, r"max_ctas must be 0 \(as many CTAs as the work takes\) or a CTA count below "
                                    r"2\*\*63; got -1"),
    (dict(max_ctas=2**63), ValueError, r"max_ctas must be 0 .*; got 9223372036854775808"),
    (dict(max_ctas=2.0), TypeError, r"max_ctas must be an int, got float"),
    (dict(max_ctas=True), TypeError, r"max_ctas must be an int, got bool"),
    (dict(max_ctas=None), TypeError, r"max_ctas must be an int, got NoneType"),
    (dict(programmatic_launch=1), TypeError, r"programmatic_launch must be a bool, got int"),
])
def test_bad_launch_options_are_refused_first(monkeypatch, op, options, error, message):
    """Before the arrays are looked at: no pointer query, no stream wait."""
    monkeypatch.setattr(arrays._C, "pointer_device", lambda ptr: pytest.fail("the device was asked"))
    x = CudaArray((2, 4), ptr=4096)
    for fn in (getattr(arrays, op), getattr(rowwise, op)):
        with pytest.raises(error, match=rf"rowwise.{op}: {message}"):
            fn(*op_args(op, x), **options)


@pytest.mark.parametrize("op", OPS)
def test_launch_options_reach_the_c_abi(monkeypatch, op):
    """Every op passes (max_ctas, programmatic_launch) to _C, before the device; by default (0, False)."""
    launches = []
    monkeypatch.setattr(arrays._C, "pointer_device", lambda ptr: (0, True, 3))
    monkeypatch.setattr(arrays._C, op, lambda *args: launches.append(args[-3:]) or 0)
    x = CudaArray((2, 4), ptr=4096)
    outputs = dict(out=empty_like_cai(x))
    if op == "absmax_scale":
        outputs["scales"] = CudaArray((2,), ptr=8192)
    getattr(arrays, op)(*op_args(op, x), **outputs, max_ctas=3, programmatic_launch=True)
    getattr(arrays, op)(*op_args(op, x), **outputs)
    assert launches == [(3, True, 3), (0, False, 3)]
