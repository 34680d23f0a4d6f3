"""rowwise for PyTorch: softmax, log_softmax, their gradients and absmax_scale as torch.library custom ops
(rowwise::softmax, rowwise::log_softmax, rowwise::softmax_backward, rowwise::log_softmax_backward,
rowwise::absmax_scale). Fake implementations let torch.compile(fullgraph=True) keep them in its graph;
autograd goes through the one-pass backward kernels. Work runs on the tensor's device, on its current
stream.

Layout: the ops reduce over rows of the last dim. A tensor whose leading dims flatten to evenly strided
rows (contiguous, or a slice of the last dim, ...) is read where it is; any other is first copied to a
contiguous tensor, and so is every tensor reduced over a dim other than the last (moved to the last dim,
copied, and its result copied back: three passes where the last dim takes one). Outputs are contiguous.
A 0-dimensional tensor is one row of one element, as for torch.softmax.

Launch options, keyword-only in every public function and arguments of every op (so that torch.compile's
graph keeps them): max_ctas, at most that many CTAs, each looping over more rows, to leave SMs to kernels
running beside (0: as many as the work takes), and programmatic_launch, programmatic dependent launch
(sm_90 and newer; ignored below): the long-row kernels may start while the kernel before them ends. The
gradients of softmax and log_softmax launch with their forward's options.
"""
from typing import Optional, Tuple

import torch

from . import _native
from ._native import _C
from ._rows import row_layout

_CODES = {getattr(torch, name): code for name, code in _native.DTYPE_CODES.items()}
_ELEMENTS = tuple(getattr(torch, name) for name in _native.ELEMENTS)
_QUANTIZED = tuple(getattr(torch, name) for name in _native.QUANTIZED)
_ELEMENT_NAMES = ", ".join(_native.ELEMENTS)


# ---------------------------------------------------------------------------------------------------
# Argument checks (in the public functions, so that torch.compile sees them too)


def _check_tensor(op: str, name: str, t) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"rowwise.{op}: {name} must be a torch.Tensor, got {type(t).__name__}")
    if t.device.type != "cuda":
        raise ValueError(f"rowwise.{op}: {name} is on {t.device}; rowwise runs on CUDA devices only")


def _check_element(op: str, what: str, dtype: torch.dtype) -> None:
    if dtype not in _ELEMENTS:
        raise TypeError(f"rowwise.{op}: {what} {dtype} is not supported; supported: {_ELEMENT_NAMES}")


def _dim(op: str, t: torch.Tensor, dim: int) -> int:
    ndim = max(t.dim(), 1)  # a 0-d tensor takes dim 0 or -1, as in torch.softmax
    if not -ndim <= dim < ndim:
        raise IndexError(f"rowwise.{op}: dim {dim} is out of range for a {t.dim()}-dimensional tensor")
    return dim % ndim


def _over_dim(op_fn, dim: int, *tensors: torch.Tensor) -> torch.Tensor:
    """op_fn over the last dim, or over `dim` by moving it last (the op copies the moved tensors) and the
    result back to a contiguous tensor, as torch's own ops return."""
    if tensors[0].dim() == 0:
        return op_fn(*[t.reshape(1) for t in tensors]).reshape(())
    if dim == tensors[0].dim() - 1:
        return op_fn(*tensors)
    return op_fn(*[t.movedim(dim, -1) for t in tensors]).movedim(-1, dim).contiguous()


def _check_gradient_pair(op: str, y: torch.Tensor, dy: torch.Tensor) -> None:
    if dy.shape != y.shape:
        raise ValueError(f"rowwise.{op}: y has shape {tuple(y.shape)} but dy has shape {tuple(dy.shape)}")
    if dy.dtype != y.dtype:
        raise TypeError(f"rowwise.{op}: y is {y.dtype} but dy is {dy.dtype}; they must match")
    if dy.device != y.device:
        raise ValueError(f"rowwise.{op}: y is on {y.device} but dy is on {dy.device}")


def _out_dtype(op: str, x: torch.Tensor, out_dtype) -> torch.dtype:
    """out_dtype as a torch.dtype (None: x's; names as strings too, as rowwise.arrays takes them), checked."""
    if isinstance(out_dtype, str) and isinstance(getattr(torch, out_dtype, None), torch.dtype):
        out_dtype = getattr(torch, out_dtype)
    if out_dtype is None:
        out_dtype = x.dtype
    if out_dtype != x.dtype and out_dtype not in _QUANTIZED:
        raise TypeError(f"rowwise.{op}: out_dtype must be None, x's dtype ({x.dtype}), torch.int8 or "
                        f"torch.float8_e4m3fn; got {out_dtype}")
    return out_dtype


# What each custom op checks, in its kernel and its fake kernel, so that a direct call (without the
# public functions) fails alike in eager mode and under torch.compile's tracing.


def _check_forward_op(op: str, x: torch.Tensor, max_ctas: int, programmatic_launch: bool) -> None:
    _native.check_options(op, max_ctas, programmatic_launch)
    _check_element(op, "x's dtype", x.dtype)


def _check_backward_op(op: str, y: torch.Tensor, dy: torch.Tensor, max_ctas: int, programmatic_launch: bool) -> None:
    _native.check_options(op, max_ctas, programmatic_launch)
    _check_element(op, "y's dtype", y.dtype)
    _check_gradient_pair(op, y, dy)


def _check_absmax_op(x: torch.Tensor, out_dtype, max_ctas: int, programmatic_launch: bool) -> torch.dtype:
    op = "absmax_scale"
    _native.check_options(op, max_ctas, programmatic_launch)
    _check_element(op, "x's dtype", x.dtype)
    if x.dim() == 0:
        raise ValueError(f"rowwise.{op}: x is 0-dimensional; it needs a last dim to scale over")
    return _out_dtype(op, x, out_dtype)


# ---------------------------------------------------------------------------------------------------
# Public functions


def softmax(x: torch.Tensor, dim: int = -1, dtype: Optional[torch.dtype] = None, *, max_ctas: int = 0,
            programmatic_launch: bool = False) -> torch.Tensor:
    """torch.softmax(x, dim, dtype=dtype) on rowwise's kernels; differentiable. dtype casts x first."""
    return _forward("softmax", torch.ops.rowwise.softmax.default, x, dim, dtype, max_ctas, programmatic_launch)


def log_softmax(x: torch.Tensor, dim: int = -1, dtype: Optional[torch.dtype] = None, *, max_ctas: int = 0,
                programmatic_launch: bool = False) -> torch.Tensor:
    """torch.log_softmax(x, dim, dtype=dtype) on rowwise's kernels; differentiable. dtype casts x first."""
    return _forward("log_softmax", torch.ops.rowwise.log_softmax.default, x, dim, dtype, max_ctas,
                    programmatic_launch)


def softmax_backward(y: torch.Tensor, dy: torch.Tensor, dim: int = -1, *, max_ctas: int = 0,
                     programmatic_launch: bool = False) -> torch.Tensor:
    """The gradient of softmax at its input: y * (dy - sum(y * dy, dim)), y the softmax output."""
    return _backward("softmax_backward", torch.ops.rowwise.softmax_backward.default, y, dy, dim, max_ctas,
                     programmatic_launch)


def log_softmax_backward(y: torch.Tensor, dy: torch.Tensor, dim: int = -1, *, max_ctas: int = 0,
                         programmatic_launch: bool = False) -> torch.Tensor:
    """The gradient of log_softmax at its input: dy - exp(y) * sum(dy, dim), y the log_softmax output."""
    return _backward("log_softmax_backward", torch.ops.rowwise.log_softmax_backward.default, y, dy, dim, max_ctas,
                     programmatic_launch)


def absmax_scale(x: torch.Tensor, out_dtype: Optional[torch.dtype] = None, *, max_ctas: int = 0,
                 programmatic_launch: bool = False) -> Tuple[torch.Tensor, torch.Tensor]:
    """Row abs-max scaling over the last dim; returns (y, scales), scales float32 of shape x.shape[:-1].

    out_dtype None or x.dtype: y = x / max|x| and scales = max|x|. torch.int8 or torch.float8_e4m3fn (or
    "int8", "float8_e4m3fn"): per-row symmetric quantization, y = round(x * qmax / max|x|) saturated (qmax
    127 or 448) and scales = max|x| / qmax, so x ~ y * scales[..., None]. A zero row gives zeros and scale
    0; NaN in a row gives a NaN scale (and a NaN row; 0 in int8). Not differentiable: the outputs never
    require grad. Scales are float32: an fp64 row's scale outside float32's range comes out 0 or inf (y
    is still scaled in float64), and so does max|x| / qmax of fp32 rows quantized with max|x| under ~1e-43
    (int8) or ~3e-43 (fp8).
    """
    _check_tensor("absmax_scale", "x", x)
    out_dtype = _check_absmax_op(x, out_dtype, max_ctas, programmatic_launch)
    return torch.ops.rowwise.absmax_scale.default(x.detach(), out_dtype, max_ctas, programmatic_launch)


def _forward(op: str, op_fn, x, dim: int, dtype: Optional[torch.dtype], max_ctas: int,
             programmatic_launch: bool) -> torch.Tensor:
    _check_tensor(op, "x", x)
    if dtype is not None:
        _check_element(op, "dtype=", dtype)
        x = x.to(dtype)
    _check_forward_op(op, x, max_ctas, programmatic_launch)
    return _over_dim(lambda *rows: op_fn(*rows, max_ctas, programmatic_launch), _dim(op, x, dim), x)


def _backward(op: str, op_fn, y, dy, dim: int, max_ctas: int, programmatic_launch: bool) -> torch.Tensor:
    _check_tensor(op, "y", y)
    _check_tensor(op, "dy", dy)
    _check_backward_op(op, y, dy, max_ctas, programmatic_launch)
    return _over_dim(lambda *rows: op_fn(*rows, max_ctas, programmatic_launch), _dim(op, y, dim), y, dy)


# ---------------------------------------------------------------------------------------------------
# Custom ops: kernels on real tensors (last dim), shapes on fake ones


def _rows(t: torch.Tensor):
    """(t, rows, cols, row_stride) with t's rows evenly strided: t itself, or a contiguous copy. A 0-d t is
    one row of one element."""
    if t.dim() == 0:
        t = t.reshape(1)
    layout = row_layout(t.shape, t.stride())
    if layout is None:
        t = t.contiguous()
        layout = row_layout(t.shape, t.stride())
    return (t, *layout)


def _stream(t: torch.Tensor) -> int:
    return torch.cuda.current_stream(t.device).cuda_stream


def _run_forward(op: str, fn, x: torch.Tensor, max_ctas: int, programmatic_launch: bool) -> torch.Tensor:
    _check_forward_op(op, x, max_ctas, programmatic_launch)
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if y.numel() > 0:
        code = _CODES[x.dtype]
        x, rows, cols, x_stride = _rows(x)
        _native.check(op, fn(code, x.data_ptr(), y.data_ptr(), rows, cols, x_stride, cols, _stream(x), max_ctas,
                             programmatic_launch, x.device.index))
    return y


def _run_backward(op: str, fn, y: torch.Tensor, dy: torch.Tensor, max_ctas: int,
                  programmatic_launch: bool) -> torch.Tensor:
    _check_backward_op(op, y, dy, max_ctas, programmatic_launch)
    dx = torch.empty(y.shape, dtype=y.dtype, device=y.device)
    if dx.numel() > 0:
        code = _CODES[y.dtype]
        y, rows, cols, y_stride = _rows(y)
        dy, _, _, dy_stride = _rows(dy)
        _native.check(op, fn(code, y.data_ptr(), dy.data_ptr(), dx.data_ptr(), rows, cols, y_stride, dy_stride,
                             cols, _stream(y), max_ctas, programmatic_launch, y.device.index))
    return dx


# Schemas written out: inferred from the annotations, max_ctas would be a SymInt, which torch.compile may
# make symbolic; a launch bound is a constant of the graph.
_OPTIONS = "int max_ctas=0, bool programmatic_launch=False"


@torch.library.custom_op("rowwise::softmax", mutates_args=(), device_types="cuda",
                         schema=f"(Tensor x, {_OPTIONS}) -> Tensor")
def _softmax(x: torch.Tensor, max_ctas: int = 0, programmatic_launch: bool = False) -> torch.Tensor:
    return _run_forward("softmax", _C.softmax, x, max_ctas, programmatic_launch)


@torch.library.custom_op("rowwise::log_softmax", mutates_args=(), device_types="cuda",
                         schema=f"(Tensor x, {_OPTIONS}) -> Tensor")
def _log_softmax(x: torch.Tensor, max_ctas: int = 0, programmatic_launch: bool = False) -> torch.Tensor:
    return _run_forward("log_softmax", _C.log_softmax, x, max_ctas, programmatic_launch)


@torch.library.custom_op("rowwise::softmax_backward", mutates_args=(), device_types="cuda",
                         schema=f"(Tensor y, Tensor dy, {_OPTIONS}) -> Tensor")
def _softmax_backward(y: torch.Tensor, dy: torch.Tensor, max_ctas: int = 0,
                      programmatic_launch: bool = False) -> torch.Tensor:
    return _run_backward("softmax_backward", _C.softmax_backward, y, dy, max_ctas, programmatic_launch)


@torch.library.custom_op("rowwise::log_softmax_backward", mutates_args=(), device_types="cuda",
                         schema=f"(Tensor y, Tensor dy, {_OPTIONS}) -> Tensor")
def _log_softmax_backward(y: torch.Tensor, dy: torch.Tensor, max_ctas: int = 0,
                          programmatic_launch: bool = False) -> torch.Tensor:
    return _run_backward("log_softmax_backward", _C.log_softmax_backward, y, dy, max_ctas, programmatic_launch)


@torch.library.custom_op("rowwise::absmax_scale", mutates_args=(), device_types="cuda",
                         schema=f"(Tensor x, ScalarType out_dtype, {_OPTIONS}) -> (Tensor, Tensor)")
def _absmax_scale(x: torch.Tensor, out_dtype: torch.dtype, max_ctas: int = 0,
                  programmatic_launch: bool = False) -> Tuple[torch.Tensor, torch.Tensor]:
    out_dtype = _check_absmax_op(x, out_dtype, max_ctas, programmatic_launch)
    y = torch.empty(x.shape, dtype=out_dtype, device=x.device)
    if y.numel() == 0:  # rows of no elements have scale 0; otherwise the kernel writes every scale
        return y, torch.zeros(x.shape[:-1], dtype=torch.float32, device=x.device)
    scales = torch.empty(x.shape[:-1], dtype=torch.float32, device=x.device)
    x_code, y_code = _CODES[x.dtype], _CODES[out_dtype]
    x, rows, cols, x_stride = _rows(x)
    _native.check("absmax_scale", _C.absmax_scale(x_code, y_code, x.data_ptr(), y.data_ptr(), scales.data_ptr(),
                                                  rows, cols, x_stride, cols, _stream(x), max_ctas,
                                                  programmatic_launch, x.device.index))
    return y, scales


def _forward_fake(op: str):
    def fake(x, max_ctas=0, programmatic_launch=False):
        _check_forward_op(op, x, max_ctas, programmatic_launch)
        return x.new_empty(x.shape)
    return fake


def _backward_fake(op: str):
    def fake(y, dy, max_ctas=0, programmatic_launch=False):
        _check_backward_op(op, y, dy, max_ctas, programmatic_launch)
        return y.new_empty(y.shape)
    return fake


@_absmax_scale.register_fake
def _absmax_scale_fake(x, out_dtype, max_ctas=0, programmatic_launch=False):
    out_dtype = _check_absmax_op(x, out_dtype, max_ctas, programmatic_launch)
    return x.new_empty(x.shape, dtype=out_dtype), x.new_empty(x.shape[:-1], dtype=torch.float32)


_softmax.register_fake(_forward_fake("softmax"))
_log_softmax.register_fake(_forward_fake("log_softmax"))
_softmax_backward.register_fake(_backward_fake("softmax_backward"))
_log_softmax_backward.register_fake(_backward_fake("log_softmax_backward"))


# Autograd: the forward ops save their output, the gradient ops take it, and both keep the launch options
# (inputs after the tensors; no gradient: None) for the gradient kernels. The gradient ops have gradients
# of their own (double backward, gradgradcheck), written with torch ops and themselves over the last dim;
# g is the gradient reaching dx.


def _save_output(ctx, inputs, output):
    ctx.options = inputs[1:]
    ctx.save_for_backward(output)


def _save_inputs(ctx, inputs, output):
    ctx.options = inputs[2:]
    ctx.save_for_backward(*inputs[:2])


def _softmax_grad(ctx, dy):
    return _softmax_backward(ctx.saved_tensors[0], dy, *ctx.options), None, None


def _log_softmax_grad(ctx, dy):
    return _log_softmax_backward(ctx.saved_tensors[0], dy, *ctx.options), None, None


def _softmax_backward_grad(ctx, g):
    """dx = y (dy - sum(y dy)): d/ddy = y (g - sum(g y)), d/dy = g (dy - sum(y dy)) - dy sum(g y)."""
    y, dy = ctx.saved_tensors
    g_y = (g * y).sum(-1, keepdim=True)
    return g * (dy - (y * dy).sum(-1, keepdim=True)) - dy * g_y, _softmax_backward(y, g, *ctx.options), None, None


def _log_softmax_backward_grad(ctx, g):
    """dx = dy - exp(y) sum(dy): d/ddy = g - sum(g exp(y)), d/dy = -g exp(y) sum(dy)."""
    y, dy = ctx.saved_tensors
    e = y.exp()
    return -g * e * dy.sum(-1, keepdim=True), g - (g * e).sum(-1, keepdim=True), None, None


_softmax.register_autograd(_softmax_grad, setup_context=_save_output)
_log_softmax.register_autograd(_log_softmax_grad, setup_context=_save_output)
_softmax_backward.register_autograd(_softmax_backward_grad, setup_context=_save_inputs)
_log_softmax_backward.register_autograd(_log_softmax_backward_grad, setup_context=_save_inputs)
