"""The benchmark's cuDNN peer (bench/cudnn_softmax.py) computes what it is compared as: softmax and
log_softmax, forward and backward, against PyTorch in float64. A wrong binding would make every cuDNN
figure in the benchmark meaningless."""
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import cudnn_softmax  # noqa: E402

pytestmark = pytest.mark.gpu

# (atol, rtol): twice rowwise's own, since cuDNN's arithmetic is not ours to hold to rowwise's bounds;
# a wrong algorithm, mode, scaling or operand order is off by far more.
TOL = {torch.float32: (2e-6, 2e-5), torch.float64: (2e-12, 2e-10), torch.float16: (2e-3, 2e-3),
       torch.bfloat16: (1.6e-2, 3.2e-2)}


@pytest.fixture(scope="module")
def dnn():
    try:
        return cudnn_softmax.CudnnSoftmax()
    except cudnn_softmax.CudnnError as e:
        pytest.skip(f"no usable cuDNN: {e}")


def call_or_skip(fn, *args):
    try:
        return fn(*args)
    except cudnn_softmax.NotSupported as e:
        pytest.skip(f"cuDNN refuses it: {e}")


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (37, 1000), (2, 65537)])
@pytest.mark.parametrize("log", [False, True])
def test_forward_and_backward_match_float64(dnn, log, shape, dtype):
    g = torch.Generator(device="cuda").manual_seed(1)
    x = (3 * torch.randn(shape, generator=g, device="cuda", dtype=torch.float64)).to(dtype)
    dy = torch.randn(shape, generator=g, device="cuda", dtype=torch.float64).to(dtype)
    forward = torch.log_softmax if log else torch.softmax
    atol, rtol = TOL[dtype]

    y = call_or_skip(dnn.forward, x, torch.empty_like(x), log)
    torch.testing.assert_close(y.double(), forward(x.double(), -1), atol=atol, rtol=rtol)

    y = forward(x.double(), -1).to(dtype)  # the dtype-rounded output the backward pass takes
    yd, dyd = y.double(), dy.double()
    want = dyd - yd.exp() * dyd.sum(-1, keepdim=True) if log else yd * (dyd - (yd * dyd).sum(-1, keepdim=True))
    dx = call_or_skip(dnn.backward, y, dy, torch.empty_like(y), log)
    torch.testing.assert_close(dx.double(), want, atol=atol, rtol=rtol)
