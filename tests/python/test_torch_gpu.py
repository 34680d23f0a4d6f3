"""The PyTorch layer on a GPU: every op and dtype against PyTorch in float64, autograd (gradcheck in
float64), torch.compile(fullgraph=True), CUDA graphs, dims other than the last, non-contiguous tensors,
streams."""
import pytest

torch = pytest.importorskip("torch")

import rowwise  # noqa: E402
import rowwise.torch_ops  # noqa: E402,F401  (registers torch.ops.rowwise for test_opcheck)
from rowwise._native import _C  # noqa: E402

pytestmark = pytest.mark.gpu

# (atol, rtol) against float64 from the dtype-rounded inputs, as the C++ tests.
TOL = {torch.float32: (1e-6, 1e-5), torch.float64: (1e-12, 1e-10), torch.float16: (1e-3, 1e-3),
       torch.bfloat16: (8e-3, 1.6e-2)}
DTYPES = list(TOL)
SHAPES = [(1, 1), (3, 7), (37, 1000), (4, 4097), (2, 65537), (2, 3, 33)]


def randn(shape, dtype, scale=3.0, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return (scale * torch.randn(shape, generator=g, device="cuda", dtype=torch.float64)).to(dtype)


def assert_close(got, want, dtype):
    atol, rtol = TOL[dtype]
    torch.testing.assert_close(got.double(), want.double(), atol=atol, rtol=rtol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_forward_matches_float64(name, shape, dtype):
    x = randn(shape, dtype)
    y = getattr(rowwise, name)(x)
    assert y.dtype == dtype and y.shape == x.shape
    assert_close(y, getattr(torch, name)(x.double(), -1), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_backward_matches_float64(name, shape, dtype):
    y = getattr(torch, name)(randn(shape, torch.float64), -1).to(dtype)  # a real output, rounded to dtype
    dy = randn(shape, dtype, scale=1.0, seed=1)
    assert_close(getattr(rowwise, f"{name}_backward")(y, dy), gradient_reference(name, y, dy), dtype)


def gradient_reference(name, y, dy):
    """The float64 gradient of softmax or log_softmax at its input, from its output y and dy."""
    yd, dyd = y.double(), dy.double()
    if name == "softmax":
        return yd * (dyd - (yd * dyd).sum(-1, keepdim=True))
    return dyd - yd.exp() * dyd.sum(-1, keepdim=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 1), (37, 1000), (3, 4097), (2, 3, 33)])
def test_absmax_same_type(shape, dtype):
    x = randn(shape, dtype)
    y, scales = rowwise.absmax_scale(x)
    amax = x.double().abs().amax(-1)
    assert scales.dtype == torch.float32 and scales.shape == x.shape[:-1]
    torch.testing.assert_close(scales.double(), amax.float().double(), atol=0, rtol=0)
    assert_close(y, x.double() / amax.unsqueeze(-1), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_absmax_int8(dtype):
    x = randn((37, 1000), dtype)
    q, scales = rowwise.absmax_scale(x, out_dtype=torch.int8)
    amax = x.double().abs().amax(-1, keepdim=True)
    want = (x.double() * 127 / amax).round().clamp(-127, 127)
    assert q.dtype == torch.int8
    assert (q.double() - want).abs().max() <= 1  # ties may round either way after float rounding
    torch.testing.assert_close(scales.double(), (amax / 127).squeeze(-1), atol=0, rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_absmax_fp8(dtype):
    x = randn((37, 1000), dtype)
    q, scales = rowwise.absmax_scale(x, out_dtype=torch.float8_e4m3fn)
    amax = x.double().abs().amax(-1, keepdim=True)
    want = (x.double() * 448 / amax).float().to(torch.float8_e4m3fn).double()
    assert q.dtype == torch.float8_e4m3fn
    # Within one e4m3 step (3 mantissa bits) of PyTorch's own cast, down to the smallest subnormal.
    torch.testing.assert_close(q.double(), want, atol=2.0 ** -9, rtol=0.125)
    torch.testing.assert_close(scales.double(), (amax / 448).squeeze(-1), atol=0, rtol=1e-6)


def test_absmax_zero_row():
    x = torch.zeros(3, 8, device="cuda")
    x[1] = 2.0
    for out_dtype in (None, torch.int8, torch.float8_e4m3fn):
        y, scales = rowwise.absmax_scale(x, out_dtype)
        assert scales[0] == 0 and scales[2] == 0 and (y[0].float() == 0).all()


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gradcheck_float64(name, dim):
    x = randn((4, 9), torch.float64).requires_grad_()
    assert torch.autograd.gradcheck(lambda t: getattr(rowwise, name)(t, dim), (x,))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, -1])
def test_gradgradcheck_float64(name, dim):
    x = randn((4, 9), torch.float64).requires_grad_()
    assert torch.autograd.gradgradcheck(lambda t: getattr(rowwise, name)(t, dim), (x,))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_zero_dim_tensors_as_torch(name):
    x = torch.tensor(0.7, device="cuda", dtype=torch.float64, requires_grad=True)
    y = getattr(rowwise, name)(x)
    assert y.shape == () and y.item() == getattr(torch, name)(x.detach(), 0).item()
    y.backward()
    assert x.grad.shape == () and x.grad.item() == 0
    raw = getattr(torch.ops.rowwise, name)(x.detach())  # a direct call takes it as one row too
    assert raw.shape == () and raw.item() == y.item()


def test_absmax_outputs_do_not_require_grad():
    y, scales = rowwise.absmax_scale(randn((4, 8), torch.float32).requires_grad_())
    assert not y.requires_grad and not scales.requires_grad


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_grad_of_an_expanded_gradient(name):
    x = randn((6, 100), torch.float32).requires_grad_()
    getattr(rowwise, name)(x).sum().backward()  # dy is a broadcast (stride 0) tensor
    xr = x.detach().clone().requires_grad_()
    getattr(torch, name)(xr, -1).sum().backward()
    assert_close(x.grad, xr.grad, torch.float32)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -2])
def test_dims_other_than_the_last(name, dim):
    x = randn((5, 6, 7), torch.float32)
    y = getattr(rowwise, name)(x, dim)
    assert y.is_contiguous()  # as torch's own result, so that view() works on it
    assert_close(y, getattr(torch, name)(x.double(), dim), torch.float32)


@pytest.mark.parametrize("make", [
    lambda x: x[:, :100],       # strided rows: read in place
    lambda x: x[:, ::2],        # strided columns: copied
    lambda x: x.t(),            # transposed: copied
    lambda x: x[1::3, 5:105],   # strided rows at an unaligned offset
])
def test_non_contiguous_inputs(make):
    x = make(randn((64, 128), torch.float32))
    assert_close(rowwise.softmax(x), torch.softmax(x.double(), -1), torch.float32)
    assert_close(rowwise.absmax_scale(x)[1], x.double().abs().amax(-1), torch.float32)


def test_dtype_casts_first_as_torch_does():
    x = randn((8, 300), torch.float16)
    y = rowwise.softmax(x, dtype=torch.float32)
    assert y.dtype == torch.float32
    assert_close(y, torch.softmax(x, -1, dtype=torch.float64), torch.float32)


def test_empty_tensors():
    for shape in [(0, 5), (5, 0), (2, 0, 3)]:
        x = torch.empty(shape, device="cuda")
        assert rowwise.softmax(x).shape == x.shape
        y, scales = rowwise.absmax_scale(x, torch.int8)
        assert y.shape == x.shape and scales.shape == x.shape[:-1]


def test_runs_on_the_current_stream():
    x = randn((4096, 1024), torch.float32)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = rowwise.softmax(x)
        z = y * 1  # queued behind the softmax on the same stream
    side.synchronize()
    assert_close(z, torch.softmax(x.double(), -1), torch.float32)


# A decode row (cluster), short rows (warp) and ragged rows longer than a cluster holds (split: its
# workspace from the pool, allocation nodes in the graph).
@pytest.mark.parametrize("shape", [(1, 131072), (64, 1000), (2, 600001)])
def test_replays_in_a_cuda_graph(shape):
    """Captured by torch.cuda.graph (global capture mode: nothing that synchronizes may run) and
    replayed on new inputs, as an engine runs a decode step: the replay's outputs are the eager calls'."""
    x = randn(shape, torch.bfloat16)
    dy = randn(shape, torch.bfloat16, scale=1.0, seed=1)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = rowwise.softmax(x)
        logp = rowwise.log_softmax(x)
        dx = rowwise.softmax_backward(y, dy)
        q, scales = rowwise.absmax_scale(x, torch.int8)
    x.copy_(randn(shape, torch.bfloat16, seed=2))
    dy.copy_(randn(shape, torch.bfloat16, scale=1.0, seed=3))
    graph.replay()
    torch.cuda.synchronize()
    assert_close(y, torch.softmax(x.double(), -1), torch.bfloat16)
    eager_y = rowwise.softmax(x)
    for got, want in [(y, eager_y), (logp, rowwise.log_softmax(x)), (dx, rowwise.softmax_backward(eager_y, dy)),
                      (q, rowwise.absmax_scale(x, torch.int8)[0]), (scales, rowwise.absmax_scale(x, torch.int8)[1])]:
        torch.testing.assert_close(got, want, atol=0, rtol=0)


def test_torch_compile_fullgraph():
    def f(x):
        p = rowwise.softmax(x * 2, dim=-1)
        logp = rowwise.log_softmax(x, dim=0)
        q, s = rowwise.absmax_scale(x, torch.int8)
        return p + logp, q, s

    compiled = torch.compile(f, fullgraph=True)
    x = randn((16, 256), torch.float32)
    for got, want in zip(compiled(x), f(x)):
        torch.testing.assert_close(got, want)


def test_torch_compile_backward():
    x = randn((16, 256), torch.float32).requires_grad_()
    compiled = torch.compile(lambda t: (rowwise.softmax(t) * t).sum(), fullgraph=True)
    compiled(x).backward()
    xr = x.detach().clone().requires_grad_()
    (torch.softmax(xr, -1) * xr).sum().backward()
    assert_close(x.grad, xr.grad, torch.float32)


def rows(make=lambda t: t):
    return make(randn((8, 40), torch.float32))


# Inputs that require grad, so that the autograd registrations are checked too; absmax_scale is not
# differentiable, so it has none to exercise.
NO_AUTOGRAD = ("test_schema", "test_faketensor", "test_aot_dispatch_dynamic")


@pytest.mark.parametrize("op, args, utils", [
    ("softmax", lambda: (rows().requires_grad_(),), None),
    ("log_softmax", lambda: (rows().requires_grad_(),), None),
    ("softmax_backward", lambda: (rows(lambda t: torch.softmax(t, -1)).requires_grad_(), rows().requires_grad_()),
     None),
    ("log_softmax_backward",
     lambda: (rows(lambda t: torch.log_softmax(t, -1)).requires_grad_(), rows().requires_grad_()), None),
    ("absmax_scale", lambda: (rows(), torch.int8), NO_AUTOGRAD),
    # With launch options: the ops' arguments, kept by autograd for the gradient ops.
    ("softmax", lambda: (rows().requires_grad_(), 3, True), None),
    ("log_softmax_backward",
     lambda: (rows(lambda t: torch.log_softmax(t, -1)).requires_grad_(), rows().requires_grad_(), 1, True), None),
    ("absmax_scale", lambda: (rows(), torch.float32, 1 << 40, True), NO_AUTOGRAD),
])
def test_opcheck(op, args, utils):
    kwargs = {} if utils is None else {"test_utils": utils}
    torch.library.opcheck(getattr(torch.ops.rowwise, op).default, args(), **kwargs)


def test_errors_on_cuda_tensors():
    x = randn((4, 8), torch.float32)
    with pytest.raises(TypeError, match=r"rowwise.softmax: x's dtype torch.int32 is not supported"):
        rowwise.softmax(x.int())
    with pytest.raises(TypeError, match=r"rowwise.log_softmax: dtype= torch.int64 is not supported"):
        rowwise.log_softmax(x, dtype=torch.int64)
    with pytest.raises(IndexError, match=r"rowwise.softmax: dim 2 is out of range for a 2-dimensional tensor"):
        rowwise.softmax(x, dim=2)
    with pytest.raises(ValueError, match=r"rowwise.softmax_backward: y has shape \(4, 8\) but dy has shape \(4, 7\)"):
        rowwise.softmax_backward(x, x[:, :7])
    with pytest.raises(TypeError, match=r"rowwise.log_softmax_backward: y is torch.float32 but dy is torch.float16"):
        rowwise.log_softmax_backward(x, x.half())
    with pytest.raises(TypeError, match=r"rowwise.absmax_scale: out_dtype must be None"):
        rowwise.absmax_scale(x, torch.float16)
    with pytest.raises(ValueError, match=r"rowwise.absmax_scale: x is 0-dimensional"):
        rowwise.absmax_scale(x[0, 0])
    with pytest.raises(ValueError, match=r"rowwise.softmax_backward: y has shape \(4, 8\) but dy has shape \(2, 8\)"):
        torch.ops.rowwise.softmax_backward(x, x[:2])  # the raw op checks dy too
    with pytest.raises(TypeError, match=r"rowwise.softmax: x's dtype torch.int32 is not supported"):
        torch.ops.rowwise.softmax(x.int())
    with pytest.raises((NotImplementedError, RuntimeError)):  # the custom ops have CUDA kernels only
        torch.ops.rowwise.softmax(torch.ones(2, 3))


def test_arrays_path_allocates_torch_outputs_on_the_device():
    x = randn((8, 300), torch.float32)
    y = rowwise.arrays.softmax(x)  # DLPack in, an output from x's own library out
    assert isinstance(y, torch.Tensor) and y.device == x.device
    assert_close(y, torch.softmax(x.double(), -1), torch.float32)


# Launch options: bounds of one CTA (every row looped over by it), three (rows shared unevenly, and
# rounded up to one row's CTAs where a row spans several) and more than any device holds, and
# programmatic launches, alone and with a bound. Shapes: warp rows, block rows, rows over CTAs (cluster
# or split), one decode row.
LAUNCH_OPTIONS = [dict(max_ctas=1), dict(max_ctas=3), dict(max_ctas=1 << 40), dict(programmatic_launch=True),
                  dict(max_ctas=3, programmatic_launch=True)]
OPTION_SHAPES = [(37, 1000), (9, 4097), (3, 65537), (1, 262144)]


def options_id(options):
    return ",".join(f"{k}={v}" for k, v in options.items())


@pytest.mark.parametrize("options", LAUNCH_OPTIONS, ids=options_id)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("shape", OPTION_SHAPES)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_ops_with_launch_options_match_float64(name, shape, dtype, options):
    x = randn(shape, dtype)
    assert_close(getattr(rowwise, name)(x, **options), getattr(torch, name)(x.double(), -1), dtype)
    y = getattr(torch, name)(x.double(), -1).to(dtype)
    dy = randn(shape, dtype, scale=1.0, seed=1)
    assert_close(getattr(rowwise, f"{name}_backward")(y, dy, **options), gradient_reference(name, y, dy), dtype)


@pytest.mark.parametrize("options", LAUNCH_OPTIONS, ids=options_id)
@pytest.mark.parametrize("shape", OPTION_SHAPES)
def test_absmax_with_launch_options(shape, options):
    x = randn(shape, torch.bfloat16)
    amax = x.double().abs().amax(-1, keepdim=True)
    y, scales = rowwise.absmax_scale(x, **options)
    torch.testing.assert_close(scales.double(), amax.float().double().squeeze(-1), atol=0, rtol=0)
    assert_close(y, x.double() / amax, torch.bfloat16)
    q, scales = rowwise.absmax_scale(x, torch.int8, **options)
    assert (q.double() - (x.double() * 127 / amax).round().clamp(-127, 127)).abs().max() <= 1
    torch.testing.assert_close(scales.double(), (amax / 127).squeeze(-1), atol=0, rtol=1e-6)


@pytest.mark.parametrize("options", LAUNCH_OPTIONS, ids=options_id)
def test_arrays_with_launch_options(options):
    """The framework-free path (DLPack), into outputs given and allocated."""
    x = randn((9, 4097), torch.float32)
    out = torch.empty_like(x)
    assert rowwise.arrays.softmax(x, out=out, **options) is out
    assert_close(out, torch.softmax(x.double(), -1), torch.float32)
    assert_close(rowwise.arrays.log_softmax(x, **options), torch.log_softmax(x.double(), -1), torch.float32)
    dy = randn(x.shape, torch.float32, scale=1.0, seed=1)
    assert_close(rowwise.arrays.softmax_backward(out, dy, **options), gradient_reference("softmax", out, dy),
                 torch.float32)
    _, scales = rowwise.arrays.absmax_scale(x, "int8", **options)
    torch.testing.assert_close(scales.double(), x.double().abs().amax(-1) / 127, atol=0, rtol=1e-6)


def recording(monkeypatch, name):
    """Replaces _C.<name> with a wrapper that records each launch's (max_ctas, programmatic_launch)."""
    launch, calls = getattr(_C, name), []
    monkeypatch.setattr(_C, name, lambda *args: calls.append(args[-3:-1]) or launch(*args))
    return calls


@pytest.mark.parametrize("options", LAUNCH_OPTIONS, ids=options_id)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_autograd_launches_the_gradient_with_the_forward_options(monkeypatch, name, options):
    gradient_launches = recording(monkeypatch, f"{name}_backward")
    x = randn((9, 4097), torch.float32).requires_grad_()
    w = randn(x.shape, torch.float32, scale=1.0, seed=1)
    (getattr(rowwise, name)(x, **options) * w).sum().backward()
    xr = x.detach().double().requires_grad_()
    (getattr(torch, name)(xr, -1) * w.double()).sum().backward()
    assert_close(x.grad, xr.grad, torch.float32)
    want = (options.get("max_ctas", 0), options.get("programmatic_launch", False))
    assert gradient_launches == [want]


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_gradcheck_with_launch_options(name):
    x = randn((4, 9), torch.float64).requires_grad_()
    fn = lambda t: getattr(rowwise, name)(t, max_ctas=1, programmatic_launch=True)  # noqa: E731
    assert torch.autograd.gradcheck(fn, (x,))
    assert torch.autograd.gradgradcheck(fn, (x,))


def test_torch_compile_keeps_the_launch_options(monkeypatch):
    """fullgraph=True, forward and backward: the compiled graph launches with the options, and the
    gradient with the forward's."""
    forward_launches, gradient_launches = recording(monkeypatch, "softmax"), recording(monkeypatch, "softmax_backward")
    compiled = torch.compile(lambda t: (rowwise.softmax(t, max_ctas=3, programmatic_launch=True) * t).sum(),
                             fullgraph=True)
    x = randn((16, 4097), torch.float32).requires_grad_()
    compiled(x).backward()
    xr = x.detach().double().requires_grad_()
    (torch.softmax(xr, -1) * xr).sum().backward()
    assert_close(x.grad, xr.grad, torch.float32)
    assert forward_launches and set(forward_launches) == {(3, True)}
    assert gradient_launches and set(gradient_launches) == {(3, True)}


def test_bad_launch_options_on_cuda_tensors():
    x = randn((4, 8), torch.float32)
    with pytest.raises(ValueError, match=r"rowwise.softmax: max_ctas must be 0 \(as many CTAs as the work takes\)"):
        rowwise.softmax(x, max_ctas=-1)
    with pytest.raises(TypeError, match=r"rowwise.log_softmax_backward: max_ctas must be an int, got float"):
        rowwise.log_softmax_backward(x, x, max_ctas=2.0)
    with pytest.raises(TypeError, match=r"rowwise.absmax_scale: programmatic_launch must be a bool, got int"):
        rowwise.absmax_scale(x, programmatic_launch=1)
    with pytest.raises(ValueError, match=r"rowwise.softmax_backward: max_ctas must be 0"):
        torch.ops.rowwise.softmax_backward(x, x, -2)  # the raw op checks them too
