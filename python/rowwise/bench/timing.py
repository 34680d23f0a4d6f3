"""Timing: medians of event-timed launches, and the device-to-device copy bandwidth they are read against."""
import statistics
import time

import torch

# Warm-up before timing: at least WARMUPS launches and WARMUP_S seconds of them. Why the seconds: after
# the previous case's memory was freed (torch.cuda.empty_cache) and new memory allocated, a case's first
# milliseconds of launches ran up to twice as slow (H200, 256 MiB: the second case of a run, whatever its
# shape, 44-86 % of copy where it runs at 94-96 %, back within ~40 launches), and the first peer of each
# case took that.
WARMUPS = 3
WARMUP_S = 0.1


def _warm_up(fn) -> None:
    start, launches = time.perf_counter(), 0
    while launches < WARMUPS or time.perf_counter() - start < WARMUP_S:
        fn()
        launches += 1
        if launches % 8 == 0:  # the host waits for the GPU, so that the seconds are the GPU's
            torch.cuda.synchronize()
    torch.cuda.synchronize()


def median_ms(fn, iters: int) -> float:
    """Median over `iters` launches of fn, each between its own pair of events, after _warm_up. The launches
    are queued back to back (one synchronization at the end), so the events time the GPU's work, not
    Python's."""
    _warm_up(fn)
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
