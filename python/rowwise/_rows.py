"""Row geometry: when an array's elements form `rows` rows of `cols` contiguous elements, each row a fixed
stride after the previous, the kernels read and write it in place; otherwise the caller must copy."""
from math import prod
from typing import Optional, Sequence, Tuple


def row_layout(shape: Sequence[int], strides: Sequence[int]) -> Optional[Tuple[int, int, int]]:
    """(rows, cols, row_stride) of an array reduced over its last axis, all in elements, or None when its
    rows are not evenly strided (a copy is needed). `strides` are in elements; len(shape) >= 1."""
    cols = shape[-1]
    rows = prod(shape[:-1])
    if cols > 1 and strides[-1] != 1:
        return None
    row_stride, span = cols, None  # span: the stride the next-outer axis of size > 1 must have
    for size, stride in reversed(list(zip(shape[:-1], strides[:-1]))):
        if size == 1:
            continue
        if span is None:
            row_stride = stride
        elif stride != span:
            return None
        span = stride * size
    if rows > 1 and row_stride < cols:  # rows overlap (broadcast, or reversed)
        return None
    return rows, cols, row_stride
