"""The framework-free path on a GPU, with CuPy arrays."""
import numpy as np
import pytest

cp = pytest.importorskip("cupy")

import rowwise  # noqa: E402
from rowwise import arrays  # noqa: E402

pytestmark = pytest.mark.gpu


def softmax64(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def randn(shape, dtype=np.float32):
    return cp.asarray(3 * np.random.default_rng(0).standard_normal(shape)).astype(dtype)


def test_softmax_and_log_softmax():
    x = randn((37, 1000))
    x64 = cp.asnumpy(x).astype(np.float64)
    y = rowwise.softmax(x)
    assert isinstance(y, cp.ndarray) and y.dtype == np.float32
    np.testing.assert_allclose(cp.asnumpy(y), softmax64(x64), atol=1e-6, rtol=1e-5)
    np.testing.assert_allclose(cp.asnumpy(rowwise.log_softmax(x)), np.log(softmax64(x64)), atol=1e-5, rtol=1e-5)


def test_out_stream_and_strided_rows():
    x = randn((64, 128))[:, :100]  # strided rows, read in place
    out = cp.empty((64, 100), np.float32)
    stream = cp.cuda.Stream()
    with stream:
        assert arrays.softmax(x, out=out) is out  # on CuPy's current stream
    stream.synchronize()
    np.testing.assert_allclose(cp.asnumpy(out), softmax64(cp.asnumpy(x).astype(np.float64)), atol=1e-6, rtol=1e-5)


def test_backward():
    y = rowwise.softmax(randn((8, 300)))
    dy = randn((8, 300))
    yd, dyd = cp.asnumpy(y).astype(np.float64), cp.asnumpy(dy).astype(np.float64)
    want = yd * (dyd - (yd * dyd).sum(-1, keepdims=True))
    np.testing.assert_allclose(cp.asnumpy(rowwise.softmax_backward(y, dy)), want, atol=1e-6, rtol=1e-5)


def test_absmax_int8_and_fp8_bits():
    x = randn((16, 512))
    q, scales = rowwise.absmax_scale(x, "int8")
    amax = np.abs(cp.asnumpy(x).astype(np.float64)).max(-1)
    assert q.dtype == np.int8 and scales.dtype == np.float32
    np.testing.assert_allclose(cp.asnumpy(scales), amax / 127, rtol=1e-6)
    bits, _ = rowwise.absmax_scale(x, "float8_e4m3fn")  # CuPy has no fp8 type: e4m3 bits in uint8
    assert bits.dtype == np.uint8 and bits.shape == x.shape


def test_rows_that_are_not_evenly_strided():
    with pytest.raises(ValueError, match=r"rowwise.softmax: x's rows are not evenly strided"):
        rowwise.softmax(randn((8, 16)).T)


def test_rows_of_no_elements():
    x = cp.empty((4, 0), np.float32)
    assert rowwise.softmax(x).shape == (4, 0)
    _, scales = rowwise.absmax_scale(x)
    assert (cp.asnumpy(scales) == 0).all()
