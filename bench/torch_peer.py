"""PyTorch eager peers of rowwise-bench's ops over its cols sweep (softmax, log_softmax, their backward
passes, abs-max scaling to the input type, int8 and fp8 e4m3), timed the same way (device copy bandwidth
first, median of event-timed launches queued behind a hold of the GPU, on ~1 GiB inputs or inputs
rotated over copies that touch 4 L2 sizes between two uses) and sized as rowwise-bench sizes them (bytes
of every operand once), optionally printed beside rowwise-bench's JSON results.

With --like bench.json it times exactly the shapes of that rowwise-bench run instead (e.g. its long
sweep: decode batches, millions of columns, whole tensors).

Usage: python3 bench/torch_peer.py [--json OUT.json] [--rowwise bench.json] [--like bench.json] [--iters 30]
                                   [--ops a,b]
"""
import argparse
import json
import statistics

import torch

COLS = [16, 32, 64, 128, 256, 512, 1000, 1024, 2048, 3000, 4096, 5000, 8192, 12345, 16384, 32768, 50257, 65536,
        131072, 262144]
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
SCALE_BYTES = 4  # rowwise writes one float scale a row


def nbytes(t):
    return t.numel() * t.element_size()


# Each op maps x (rows, cols) to (callable timed, bytes moved as rowwise-bench counts them).
def forward(fn):
    def make(x):
        return (lambda: fn(x, -1)), 2 * nbytes(x)
    return make


def whole_tensor(fn):
    """The whole tensor as one row: what rowwise's tensor_softmax computes."""
    def make(x):
        flat = x.view(-1)
        return (lambda: fn(flat, 0)), 2 * nbytes(x)
    return make


def backward(forward_fn, backward_fn):
    """dx from y = forward_fn(x) and a random dy, with the private op autograd calls."""
    def make(x):
        y, dy = forward_fn(x, -1), torch.randn_like(x)
        return (lambda: backward_fn(dy, y, -1, x.dtype)), 3 * nbytes(x)
    return make


def absmax_scale(x):
    def run():
        scale = x.abs().amax(-1, keepdim=True)
        return x / scale
    return run, 2 * nbytes(x) + SCALE_BYTES * x.shape[0]


def quantize(qmax, dtype, round_first):
    """Per-row symmetric quantization; fp8 skips round() since the cast rounds to its grid."""
    def make(x):
        def run():
            scale = x.abs().amax(-1, keepdim=True)
            q = x * qmax / scale
            return (q.round() if round_first else q).clamp(-qmax, qmax).to(dtype)
        return run, nbytes(x) + x.numel() + SCALE_BYTES * x.shape[0]
    return make


OPS = {
    "softmax": forward(torch.softmax),
    "log_softmax": forward(torch.log_softmax),
    "softmax_backward": backward(torch.softmax, torch._softmax_backward_data),
    "log_softmax_backward": backward(torch.log_softmax, torch._log_softmax_backward_data),
    "absmax_scale": absmax_scale,
    "absmax_int8": quantize(127, torch.int8, round_first=True),
}
if hasattr(torch, "float8_e4m3fn"):
    OPS["absmax_fp8"] = quantize(448, torch.float8_e4m3fn, round_first=False)
OPS["tensor_softmax"] = whole_tensor(torch.softmax)
OPS["tensor_log_softmax"] = whole_tensor(torch.log_softmax)


WARMUPS = 3
L2_MULTIPLE = 4  # bytes touched between two uses of an input copy, in L2 sizes (as rowwise-bench)
# GPU cycles the host may take to queue one timed launch (two events and the op from Python) while a
# kernel holds the GPU: ~100 us at the H200's ~2 GHz.
HOLD_CYCLES_PER_LAUNCH = 200_000


def median_ms(runs, iters):
    """Median in ms of `iters` calls of runs[i % len(runs)], each between its own pair of events, all
    queued behind a kernel that holds the GPU: the events time the GPU, not Python's launch rate."""
    for i in range(WARMUPS):
        runs[i % len(runs)]()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    torch.cuda._sleep(HOLD_CYCLES_PER_LAUNCH * (iters + 1))
    for i, (start, end) in enumerate(events):
        start.record()
        runs[(WARMUPS + i) % len(runs)]()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(end) for start, end in events)


def copy_gbps(iters):
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    return 2 * src.numel() / median_ms([lambda: dst.copy_(src)], iters) / 1e6


def rotation_copies(moved):
    """Input copies a case rotates over so that its launches do not find their data in L2 (made in
    order before the launches, which use the first ones first)."""
    span = L2_MULTIPLE * torch.cuda.get_device_properties(0).L2_cache_size
    return 1 if moved > span else span // moved + 1


def parse_ops(text):
    ops = text.split(",")
    unknown = [op for op in ops if op not in OPS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown ops {unknown}; known: {','.join(OPS)}")
    return ops


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--rowwise", help="rowwise-bench --json output to print beside")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--bytes", type=int, default=1 << 30)
    ap.add_argument("--like", help="time the (op, dtype, rows, cols) cases of this rowwise-bench JSON instead")
    ap.add_argument("--ops", type=parse_ops, default=None, help="comma-separated subset (default: all)")
    args = ap.parse_args()
    ops = args.ops or [op for op in OPS if not op.startswith("tensor_")]
    if args.like:
        with open(args.like) as f:
            shapes = [(r["op"], r["dtype"], r["rows"], r["cols"]) for r in json.load(f)["results"]
                      if r["op"] in OPS and r["dtype"] in DTYPES and (args.ops is None or r["op"] in args.ops)]
    else:
        shapes = [(op, dt, max(1, -(-args.bytes // (cols * DTYPES[dt].itemsize))), cols)
                  for op in ops for dt in DTYPES for cols in COLS]

    copy = copy_gbps(args.iters)
    print(f"# {torch.cuda.get_device_name()} torch {torch.__version__} copy {copy:.0f} GB/s")
    results = []
    for op_name, dt_name, rows, cols in shapes:
        make = OPS[op_name]
        run, moved = make(torch.randn(rows, cols, device="cuda", dtype=DTYPES[dt_name]))
        runs = [run] + [make(torch.randn(rows, cols, device="cuda", dtype=DTYPES[dt_name]))[0]
                        for _ in range(rotation_copies(moved) - 1)]
        ms = median_ms(runs, args.iters)
        gbps = moved / ms / 1e6
        results.append(dict(op=op_name, dtype=dt_name, rows=rows, cols=cols, time_us=ms * 1e3, gbps=gbps,
                            pct_copy=100 * gbps / copy))
        del run, runs  # frees the op's tensors before the next case allocates
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(device=torch.cuda.get_device_name(), copy_gbps=copy, results=results), f, indent=1)
    ours = {}
    if args.rowwise:
        with open(args.rowwise) as f:
            for r in json.load(f)["results"]:
                if r["gbps"] is not None:  # n/a cases have no timing
                    ours[(r["op"], r["dtype"], r["rows"], r["cols"])] = r
    print(f"{'op':<22}{'dtype':<6}{'rows':>8}{'cols':>10}{'torch_us':>10}{'torch %copy':>13}{'rowwise %copy':>15}"
          f"{'speed-up':>10}")
    for r in results:
        mine = ours.get((r["op"], r["dtype"], r["rows"], r["cols"]))  # same sizing: --bytes = --sweep-bytes
        extra = f"{mine['pct_copy']:>15.1f}{mine['gbps'] / r['gbps']:>10.2f}" if mine else ""
        print(f"{r['op']:<22}{r['dtype']:<6}{r['rows']:>8}{r['cols']:>10}{r['time_us']:>10.1f}{r['pct_copy']:>13.1f}"
              f"{extra}")


if __name__ == "__main__":
    main()
