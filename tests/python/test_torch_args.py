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


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmax_backward", "log_softmax_backward",
                                  "absmax_scale"])
def test_ops_take_the_launch_options(name):
    """As ints, not SymInts: a CTA bound stays a constant of a compiled graph."""
    schema = str(getattr(torch.ops.rowwise, name).default._schema)
    assert ", int max_ctas=0, bool programmatic_launch=False) -> " in schema


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


# The custom ops can be called directly (docs/python.md): their kernels check what the public functions
# check, before any pointer reaches the GPU.
def test_raw_backward_ops_check_dy_against_y():
    y = torch.ones(8, 30)
    with pytest.raises(ValueError, match=r"rowwise.softmax_backward: y has shape \(8, 30\) but dy has shape"):
        torch_ops._run_backward("softmax_backward", None, y, torch.ones(2, 30), 0, False)
    with pytest.raises(TypeError, match=r"rowwise.softmax_backward: y is torch.float32 but dy is torch.float16"):
        torch_ops._run_backward("softmax_backward", None, y, y.half(), 0, False)
    with pytest.raises(ValueError, match=r"y is on cpu but dy is on meta"):
        torch_ops._run_backward("softmax_backward", None, y, torch.ones(8, 30, device="meta"), 0, False)


def test_raw_ops_check_the_launch_options():
    y = torch.ones(8, 30)
    with pytest.raises(ValueError, match=r"rowwise.softmax_backward: max_ctas must be 0 .*; got -1"):
        torch_ops._run_backward("softmax_backward", None, y, y, -1, False)
    with pytest.raises(TypeError, match=r"rowwise.log_softmax: programmatic_launch must be a bool, got int"):
        torch_ops._run_forward("log_softmax", None, y, 0, 1)


def test_fake_kernels_check_their_arguments():
    """Meta tensors run the fake kernels, as torch.compile's tracing does: they refuse what the kernels do."""
    ops, y = torch.ops.rowwise, torch.ones(2, 3, device="meta")
    with pytest.raises(TypeError, match=r"rowwise.softmax: x's dtype torch.int32 is not supported"):
        ops.softmax(y.int())
    with pytest.raises(ValueError, match=r"rowwise.log_softmax_backward: y has shape \(2, 3\) but dy has shape"):
        ops.log_softmax_backward(y, torch.ones(3, 2, device="meta"))
    with pytest.raises(TypeError, match=r"rowwise.softmax_backward: y is torch.float32 but dy is torch.float16"):
        ops.softmax_backward(y, y.half())
    with pytest.raises(TypeError, match=r"rowwise.absmax_scale: out_dtype must be None"):
        ops.absmax_scale(y, torch.int32)
    with pytest.raises(ValueError, match=r"rowwise.absmax_scale: x is 0-dimensional"):
        ops.absmax_scale(y[0, 0], torch.int8)
    assert ops.log_softmax(y).shape == (2, 3) and ops.softmax_backward(y, y).shape == (2, 3)
    q, scales = ops.absmax_scale(y, torch.int8)
    assert q.dtype == torch.int8 and scales.shape == (2,) and scales.dtype == torch.float32


def test_out_dtype_is_checked_and_taken_by_name():
    x = torch.ones(2, 3)
    assert torch_ops._out_dtype("absmax_scale", x, "int8") is torch.int8
    assert torch_ops._out_dtype("absmax_scale", x, None) is torch.float32
    for bad in (torch.int32, "int32", "softmax"):
        with pytest.raises(TypeError, match=r"rowwise.absmax_scale: out_dtype must be None"):
            torch_ops._out_dtype("absmax_scale", x, bad)


def test_zero_dim_tensors_are_one_row_of_one_element():
    assert torch_ops._dim("softmax", torch.tensor(1.0), -1) == 0
    with pytest.raises(IndexError, match=r"dim 1 is out of range for a 0-dimensional tensor"):
        torch_ops._dim("softmax", torch.tensor(1.0), 1)
    got = torch_ops._over_dim(lambda t: torch.softmax(t, -1), 0, torch.tensor(5.0))
    assert got.shape == () and got.item() == 1.0


def test_a_dim_other_than_the_last_gives_a_contiguous_result():
    x = torch.randn(4, 6, 5)
    got = torch_ops._over_dim(lambda t: torch.softmax(t, -1), 0, x)
    assert got.is_contiguous()
    torch.testing.assert_close(got, torch.softmax(x, 0))


def test_arrays_allocates_on_the_inputs_device():
    from rowwise import arrays
    y = arrays._empty("softmax", torch.ones(2, 3, device="meta"), (2, 3), "float32")
    assert y.device.type == "meta" and y.dtype == torch.float32


def test_fake_kernels_check_the_launch_options():
    ops, y = torch.ops.rowwise, torch.ones(2, 3, device="meta")
    with pytest.raises(ValueError, match=r"rowwise.softmax: max_ctas must be 0 \(as many CTAs as the work takes\)"):
        ops.softmax(y, -1)
    with pytest.raises(ValueError, match=r"rowwise.log_softmax_backward: max_ctas must be 0 .*; got -3"):
        ops.log_softmax_backward(y, y, -3, True)
    with pytest.raises(ValueError, match=r"rowwise.absmax_scale: max_ctas must be 0"):
        ops.absmax_scale(y, torch.int8, -1)
    assert ops.softmax(y, 3, True).shape == (2, 3)
    assert ops.absmax_scale(y, torch.int8, max_ctas=1 << 40, programmatic_launch=True)[1].shape == (2,)


@pytest.mark.parametrize("forward", ["softmax", "log_softmax"])
def test_gradients_launch_with_the_forward_options(monkeypatch, forward):
    """On meta tensors (the fake kernels): autograd's backward calls the gradient op with the forward's
    options, and so does the double backward."""
    gradient_calls = []
    name = f"_{forward}_backward"
    gradient_op = getattr(torch_ops, name)
    monkeypatch.setattr(torch_ops, name, lambda *args: gradient_calls.append(args[2:]) or gradient_op(*args))
    x = torch.ones(2, 3, device="meta", requires_grad=True)
    y = getattr(torch.ops.rowwise, forward)(x, 5, True)
    (dx,) = torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)
    assert gradient_calls == [(5, True)]
    torch.autograd.grad(dx.sum(), x)
    assert len(gradient_calls) > 1 and set(gradient_calls) == {(5, True)}
