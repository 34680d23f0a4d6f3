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


class CaiOnly:
    """A __cuda_array_interface__ producer (no DLPack) that names the stream its data is written on."""

    def __init__(self, a, stream):
        self.__cuda_array_interface__ = dict(a.__cuda_array_interface__, stream=stream)


SPIN = r"""extern "C" __global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {}
}"""


def test_cuda_array_interface_stream_is_waited_for():
    want = randn((64, 1000))
    x, out = cp.zeros((64, 1000), np.float32), cp.empty((64, 1000), np.float32)
    producer, consumer = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
    spin = cp.RawKernel(SPIN, "spin")
    # What may synchronize the device (allocations, loading a kernel, rowwise's one-time setup) runs
    # first, so that only the wait can order rowwise's kernel after the producer's late write.
    spin((1,), (1,), (np.int64(1),))
    x[...] = cp.zeros_like(want)
    arrays.softmax(x, out=out)
    cp.cuda.Device().synchronize()
    with producer:  # x's data lands ~0.1 s late, on the producer's stream
        spin((1,), (1,), (np.int64(200_000_000),))
        x[...] = want
    arrays.softmax(CaiOnly(x, producer.ptr), out=CaiOnly(out, producer.ptr), stream=consumer.ptr)
    consumer.synchronize()
    np.testing.assert_allclose(cp.asnumpy(out), softmax64(cp.asnumpy(want).astype(np.float64)), atol=1e-6, rtol=1e-5)


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


@pytest.mark.parametrize("options", [dict(max_ctas=1), dict(max_ctas=3, programmatic_launch=True)])
def test_launch_options(options):
    x = randn((37, 4097))
    x64 = cp.asnumpy(x).astype(np.float64)
    np.testing.assert_allclose(cp.asnumpy(rowwise.softmax(x, **options)), softmax64(x64), atol=1e-6, rtol=1e-5)
    _, scales = rowwise.absmax_scale(x, "int8", **options)
    np.testing.assert_allclose(cp.asnumpy(scales), np.abs(x64).max(-1) / 127, rtol=1e-6)
