"""The Triton peer: persistent row kernels in the design of Triton's fused-softmax tutorial, written here.

A grid of as many programs as fit on the device at once (occupancy from the compiled kernel's registers
and shared memory), each looping over rows. A row that fits in one tile (next power of two of cols, up to
MAX_TILE elements) is loaded once and kept in registers, as in the tutorial; a longer one is streamed in
CHUNK-element chunks, a reduce pass and then a map pass (the second read mostly hits L2). Contiguous rows
only; math in float32.
"""
import torch
import triton
import triton.language as tl

SOFTMAX, LOG_SOFTMAX, SOFTMAX_BACKWARD, ABSMAX = range(4)  # the kernels' OP argument
MAX_TILE = 16384
CHUNK = 4096
NUM_WARPS = 8

# What the kernels read (Triton kernels may read constexpr globals only): the ops, and a running max
# below every input, which keeps (-inf) - (-inf) out of the online merge.
_SOFTMAX, _LOG_SOFTMAX, _SOFTMAX_BACKWARD, _ABSMAX = (tl.constexpr(op) for op in range(4))
_FAR_BELOW = tl.constexpr(-1e30)


@triton.jit
def _tile_rows(x_ptr, dy_ptr, y_ptr, scale_ptr, n_rows, n_cols, OP: tl.constexpr, TILE: tl.constexpr,
               NUM_STAGES: tl.constexpr):
    cols = tl.arange(0, TILE)
    mask = cols < n_cols
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=NUM_STAGES):
        at = row.to(tl.int64) * n_cols + cols
        if OP == _SOFTMAX_BACKWARD:
            y = tl.load(x_ptr + at, mask=mask, other=0.0).to(tl.float32)
            dy = tl.load(dy_ptr + at, mask=mask, other=0.0).to(tl.float32)
            out = y * (dy - tl.sum(y * dy, axis=0))
        elif OP == _ABSMAX:
            x = tl.load(x_ptr + at, mask=mask, other=0.0).to(tl.float32)
            amax = tl.max(tl.abs(x), axis=0)
            tl.store(scale_ptr + row, amax)
            out = tl.where(amax > 0, x / amax, 0.0)
        else:
            x = tl.load(x_ptr + at, mask=mask, other=-float("inf")).to(tl.float32)
            shifted = x - tl.max(x, axis=0)
            e = tl.exp(shifted)
            total = tl.sum(e, axis=0)
            if OP == _SOFTMAX:
                out = e / total
            else:
                out = shifted - tl.log(total)
        tl.store(y_ptr + at, out.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _chunked_rows(x_ptr, dy_ptr, y_ptr, scale_ptr, n_rows, n_cols, OP: tl.constexpr, CHUNK: tl.constexpr,
                  NUM_STAGES: tl.constexpr):
    offsets = tl.arange(0, CHUNK)
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=NUM_STAGES):
        base = row.to(tl.int64) * n_cols
        # Reduce: per-lane partial states over the chunks, merged across lanes at the end.
        if OP == _SOFTMAX_BACKWARD:
            acc = tl.zeros([CHUNK], dtype=tl.float32)
            for start in range(0, n_cols, CHUNK):
                mask = start + offsets < n_cols
                y = tl.load(x_ptr + base + start + offsets, mask=mask, other=0.0).to(tl.float32)
                dy = tl.load(dy_ptr + base + start + offsets, mask=mask, other=0.0).to(tl.float32)
                acc += y * dy
            dot = tl.sum(acc, axis=0)
        elif OP == _ABSMAX:
            acc = tl.zeros([CHUNK], dtype=tl.float32)
            for start in range(0, n_cols, CHUNK):
                mask = start + offsets < n_cols
                x = tl.load(x_ptr + base + start + offsets, mask=mask, other=0.0).to(tl.float32)
                acc = tl.maximum(acc, tl.abs(x))
            amax = tl.max(acc, axis=0)
            tl.store(scale_ptr + row, amax)
        else:
            run_max = tl.full([CHUNK], _FAR_BELOW, dtype=tl.float32)
            run_sum = tl.zeros([CHUNK], dtype=tl.float32)
            for start in range(0, n_cols, CHUNK):
                mask = start + offsets < n_cols
                x = tl.load(x_ptr + base + start + offsets, mask=mask, other=-float("inf")).to(tl.float32)
                new_max = tl.maximum(run_max, x)
                run_sum = run_sum * tl.exp(run_max - new_max) + tl.exp(x - new_max)
                run_max = new_max
            row_max = tl.max(run_max, axis=0)
            total = tl.sum(run_sum * tl.exp(run_max - row_max), axis=0)
        # Map.
        for start in range(0, n_cols, CHUNK):
            mask = start + offsets < n_cols
            at = base + start + offsets
            if OP == _SOFTMAX_BACKWARD:
                y = tl.load(x_ptr + at, mask=mask, other=0.0).to(tl.float32)
                dy = tl.load(dy_ptr + at, mask=mask, other=0.0).to(tl.float32)
                out = y * (dy - dot)
            elif OP == _ABSMAX:
                x = tl.load(x_ptr + at, mask=mask, other=0.0).to(tl.float32)
                out = tl.where(amax > 0, x / amax, 0.0)
            else:
                x = tl.load(x_ptr + at, mask=mask, other=0.0).to(tl.float32)
                if OP == _SOFTMAX:
                    out = tl.exp(x - row_max) / total
                else:
                    out = x - row_max - tl.log(total)
            tl.store(y_ptr + at, out.to(y_ptr.dtype.element_ty), mask=mask)


class RowKernel:
    """One op on (rows, cols) contiguous tensors of one dtype: compiled once, launched on an
    occupancy-sized grid. __call__(x) or __call__(y, dy) returns the output (and scales for ABSMAX)."""

    def __init__(self, op: int, rows: int, cols: int, dtype: torch.dtype):
        self.op, self.rows, self.cols = op, rows, cols
        tile = triton.next_power_of_2(cols)
        self.kernel, self.block = (_tile_rows, tile) if tile <= MAX_TILE else (_chunked_rows, CHUNK)
        device = torch.cuda.current_device()
        props = triton.runtime.driver.active.utils.get_device_properties(device)
        # As the tutorial: more stages to hide latency where shared memory allows.
        self.stages = 4 if props["max_shared_mem"] > 200000 else 2
        x = torch.empty(1, dtype=dtype, device="cuda")  # warmup compiles; the sizes are rows and cols
        compiled = self.kernel.warmup(*self._args(x, None), OP=op, **self._meta(), grid=(1,))
        compiled._init_handles()
        per_sm = props["max_num_regs"] // (compiled.n_regs * props["warpSize"] * NUM_WARPS)
        if compiled.metadata.shared:
            per_sm = min(per_sm, props["max_shared_mem"] // compiled.metadata.shared)
        self.programs = max(1, min(props["multiprocessor_count"] * max(per_sm, 1), rows))

    def _meta(self):
        block = {"TILE": self.block} if self.kernel is _tile_rows else {"CHUNK": self.block}
        return dict(block, NUM_STAGES=self.stages, num_warps=NUM_WARPS, num_stages=self.stages)

    def _args(self, x, dy):
        """(x, dy, y, scales, rows, cols) for a launch; the unused pointers alias x or y."""
        y = torch.empty_like(x)
        scales = torch.empty(self.rows, dtype=torch.float32, device=x.device) if self.op == ABSMAX else y
        return x, x if dy is None else dy, y, scales, self.rows, self.cols

    def __call__(self, x, dy=None):
        args = self._args(x, dy)
        self.kernel[(self.programs,)](*args, OP=self.op, **self._meta())
        return args[2:4] if self.op == ABSMAX else args[2]
