"""The benchmarked ops and their peers: each op's inputs, the bytes it must move, and how rowwise, PyTorch
eager, torch.compile and the Triton kernels compute it. PyTorch eager is also the reference that every
peer's output is checked against."""
from dataclasses import dataclass
from typing import Callable, Optional

import torch

import rowwise
import rowwise.torch_ops  # noqa: F401  (registers the torch ops before torch.compile traces anything)

from . import OP_NAMES, PEERS, triton_rows

FP8 = torch.float8_e4m3fn


@dataclass(frozen=True)
class Op:
    name: str
    inputs: Callable[[int, int, torch.dtype], tuple]  # (rows, cols, dtype) -> the op's input tensors
    moved_bytes: Callable[[int, int, int], int]  # (rows, cols, element bytes) -> bytes read and written once
    torch: Callable  # the PyTorch expression of the op (eager, and what torch.compile compiles)
    rowwise: Callable
    triton: Optional[int]  # the Triton kernels' OP, or None where they have no such op


def _x(rows, cols, dtype):
    return (torch.randn(rows, cols, device="cuda", dtype=dtype),)


def _y_dy(rows, cols, dtype):
    return torch.softmax(_x(rows, cols, dtype)[0], -1), _x(rows, cols, dtype)[0]


def _torch_absmax(x):
    amax = x.abs().amax(-1, keepdim=True)
    return x / amax, amax.squeeze(-1).float()


def _torch_absmax_fp8(x):
    amax = x.abs().amax(-1, keepdim=True).float()
    return (x.float() * (448 / amax)).clamp(-448, 448).to(FP8), (amax / 448).squeeze(-1)


OPS = {op.name: op for op in [
    Op("softmax", _x, lambda r, c, e: 2 * r * c * e, lambda x: torch.softmax(x, -1), rowwise.softmax,
       triton_rows.SOFTMAX),
    Op("log_softmax", _x, lambda r, c, e: 2 * r * c * e, lambda x: torch.log_softmax(x, -1), rowwise.log_softmax,
       triton_rows.LOG_SOFTMAX),
    Op("softmax_backward", _y_dy, lambda r, c, e: 3 * r * c * e,
       lambda y, dy: torch.ops.aten._softmax_backward_data.default(dy, y, -1, y.dtype), rowwise.softmax_backward,
       triton_rows.SOFTMAX_BACKWARD),
    Op("absmax_scale", _x, lambda r, c, e: 2 * r * c * e + 4 * r, _torch_absmax, rowwise.absmax_scale,
       triton_rows.ABSMAX),
    Op("absmax_fp8", _x, lambda r, c, e: r * c * (e + 1) + 4 * r, _torch_absmax_fp8,
       lambda x: rowwise.absmax_scale(x, FP8), None),
]}
assert tuple(OPS) == OP_NAMES, "bench/__init__.py names the ops defined here"


def make_peer(peer: str, op: Op, rows: int, cols: int, dtype: torch.dtype) -> Optional[Callable]:
    """The peer's callable over op's inputs, or None where the peer has no such op."""
    if peer == "rowwise":
        return op.rowwise
    if peer == "torch":
        return op.torch
    if peer == "torch.compile":
        torch._dynamo.reset()  # one static-shape compile a case, never the recompile limit's eager fallback
        return torch.compile(op.torch, dynamic=False)
    if peer == "triton":
        return None if op.triton is None else triton_rows.RowKernel(op.triton, rows, cols, dtype)
    raise ValueError(f"unknown peer {peer!r}; peers: {', '.join(PEERS)}")


def check(got, want, rows: int = 64) -> str:
    """"ok", or how the first rows of got differ from want (outputs and tuples of outputs)."""
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        atol, rtol = {torch.float32: (1e-5, 1e-4), FP8: (2.0 ** -8, 0.13)}.get(w.dtype, (2e-2, 2e-2))
        g, w = g[:rows].double(), w[:rows].double()
        if not torch.allclose(g, w, atol=atol, rtol=rtol):
            return f"MISMATCH (max abs error {(g - w).abs().max().item():.3g})"
    return "ok"
