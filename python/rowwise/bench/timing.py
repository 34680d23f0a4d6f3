"""Timing: medians of event-timed launches, and the device-to-device copy bandwidth they are read against."""
import statistics

import torch

WARMUPS = 3


def median_ms(fn, iters: int) -> float:
    """Median over `iters` launches of fn, each between its own pair of events. The launches are queued
    back to back (one synchronization at the end), so the events time the GPU's work, not Python's."""
    for _ in range(WARMUPS):
        fn()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    for start, end in events:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(end) for start, end in events)


def copy_gbps(iters: int, nbytes: int = 1 << 30) -> float:
    """Device-to-device copy bandwidth, counting bytes read and written."""
    src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    return 2 * nbytes / median_ms(lambda: dst.copy_(src), iters) / 1e6
