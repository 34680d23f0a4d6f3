"""The PyTorch layer without a GPU: registration, and the errors a user gets for tensors rowwise does not
take."""
import pytest

torch = pytest.importorskip("torch")

import rowwise  # noqa: E402  (after the torch import, so the torch ops register at import)
from rowwise import torch_ops  # noqa: E402


def test_ops_are_registered():
    for name in ("softmax", "log_softmax", "softmax_backward", "log_softmax_backward", "absmax_scale"):
        assert hasattr(torch.ops.rowwise, name)
    assert "ScalarType out_dtype" in str(torch.ops.rowwise.absmax_scale.default._schema)


@pytest.mark.parametrize("fn", [rowwise.softmax, rowwise.log_softmax, torch_ops.softmax])
def test_cpu_tensors_are_refused_with_the_op_name(fn):
    op = fn.__name__
    with pytest.raises(ValueError, match=rf"rowwise.{op}: x is on cpu; rowwise runs on CUDA devices only"):
        fn(torch.ones(2, 3))


def test_meta_tensors_are_refused():
    with pytest.raises(ValueError, match=r"rowwise.absmax_scale: x is on meta"):
        rowwise.absmax_scale(torch.ones(2, 3, device="meta"))


def test_backward_checks_both_inputs():
    with pytest.raises(ValueError, match=r"rowwise.softmax_backward: y is on cpu"):
        rowwise.softmax_backward(torch.ones(2, 3), torch.ones(2, 3))


def test_non_tensors_are_refused():
    with pytest.raises(TypeError, match=r"rowwise.softmax: x must be a torch.Tensor, got list"):
        torch_ops.softmax([1.0, 2.0])

