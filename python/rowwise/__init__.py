"""rowwise: row-wise softmax, log_softmax, their gradients and abs-max scaling on CUDA, at copy bandwidth.

    import rowwise
    y = rowwise.softmax(x)                                    # x: a CUDA torch.Tensor, CuPy array, ...
    q, scales = rowwise.absmax_scale(x, out_dtype=torch.int8)  # per-row symmetric quantization
    y = rowwise.softmax(x, max_ctas=16, programmatic_launch=True)  # launch options (every function)

PyTorch tensors go through rowwise.torch_ops: any dim, dtype= as torch.softmax, autograd, and
torch.library ops (torch.ops.rowwise.*) that torch.compile(fullgraph=True) keeps in its graph. Other
arrays (DLPack or __cuda_array_interface__) go through rowwise.arrays: the last axis, with out= and
stream= there.

Every function takes keyword-only launch options: max_ctas (at most that many CTAs, each looping over more
rows, to leave SMs to kernels running beside; 0: as many as the work takes) and programmatic_launch
(programmatic dependent launch, sm_90 and newer; ignored below).
"""
import sys

from . import arrays

__version__ = "0.1.0"
__all__ = ["softmax", "log_softmax", "softmax_backward", "log_softmax_backward", "absmax_scale", "arrays"]

if "torch" in sys.modules:  # register the torch ops now, before torch.compile traces a first call
    from . import torch_ops  # noqa: F401


def _is_torch(x) -> bool:
    torch = sys.modules.get("torch")  # no tensor exists before torch is imported
    return torch is not None and isinstance(x, torch.Tensor)


def _last_axis(op: str, x, dim: int, dtype=None):
    ndim = len(getattr(x, "shape", ()))
    if dim not in (-1, ndim - 1) or dtype is not None:
        raise ValueError(f"rowwise.{op}: dim= other than the last and dtype= need a torch.Tensor; other arrays "
                         "are reduced over their last axis")
    return x


def softmax(x, dim: int = -1, dtype=None, *, max_ctas: int = 0, programmatic_launch: bool = False):
    """softmax over `dim` (torch.softmax's semantics for tensors; the last axis for other arrays)."""
    options = dict(max_ctas=max_ctas, programmatic_launch=programmatic_launch)
    if _is_torch(x):
        from . import torch_ops
        return torch_ops.softmax(x, dim, dtype, **options)
    return arrays.softmax(_last_axis("softmax", x, dim, dtype), **options)


def log_softmax(x, dim: int = -1, dtype=None, *, max_ctas: int = 0, programmatic_launch: bool = False):
    """log_softmax over `dim` (torch.log_softmax's semantics for tensors; the last axis for other arrays)."""
    options = dict(max_ctas=max_ctas, programmatic_launch=programmatic_launch)
    if _is_torch(x):
        from . import torch_ops
        return torch_ops.log_softmax(x, dim, dtype, **options)
    return arrays.log_softmax(_last_axis("log_softmax", x, dim, dtype), **options)


def softmax_backward(y, dy, dim: int = -1, *, max_ctas: int = 0, programmatic_launch: bool = False):
    """The gradient of softmax at its input, y * (dy - sum(y * dy, dim)), y the softmax output."""
    options = dict(max_ctas=max_ctas, programmatic_launch=programmatic_launch)
    if _is_torch(y):
        from . import torch_ops
        return torch_ops.softmax_backward(y, dy, dim, **options)
    return arrays.softmax_backward(_last_axis("softmax_backward", y, dim), dy, **options)


def log_softmax_backward(y, dy, dim: int = -1, *, max_ctas: int = 0, programmatic_launch: bool = False):
    """The gradient of log_softmax at its input, dy - exp(y) * sum(dy, dim), y the log_softmax output."""
    options = dict(max_ctas=max_ctas, programmatic_launch=programmatic_launch)
    if _is_torch(y):
        from . import torch_ops
        return torch_ops.log_softmax_backward(y, dy, dim, **options)
    return arrays.log_softmax_backward(_last_axis("log_softmax_backward", y, dim), dy, **options)


def absmax_scale(x, out_dtype=None, *, max_ctas: int = 0, programmatic_launch: bool = False):
    """Row abs-max scaling over the last axis: (x / max|x|, max|x|), or with out_dtype int8 /
    float8_e4m3fn per-row symmetric quantization (q, max|x| / qmax). See rowwise.torch_ops.absmax_scale."""
    options = dict(max_ctas=max_ctas, programmatic_launch=programmatic_launch)
    if _is_torch(x):
        from . import torch_ops
        return torch_ops.absmax_scale(x, out_dtype, **options)
    return arrays.absmax_scale(x, out_dtype, **options)
