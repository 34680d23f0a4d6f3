"""PyTorch eager softmax / log_softmax over rowwise-bench's cols sweep, timed the same way (device copy
bandwidth first, median of event-timed launches on ~1 GiB inputs), optionally printed beside
rowwise-bench's JSON results.

Usage: python3 bench/torch_peer.py [--json OUT.json] [--rowwise bench.json] [--iters 30]
"""
import argparse
import json
import statistics

import torch

COLS = [16, 32, 64, 128, 256, 512, 1000, 1024, 2048, 3000, 4096, 5000, 8192, 12345, 16384, 32768, 50257, 65536,
        131072, 262144]
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
OPS = {"softmax": lambda x: torch.softmax(x, -1), "log_softmax": lambda x: torch.log_softmax(x, -1)}


def median_ms(fn, iters):
    for _ in range(3):
        fn()
    times = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def copy_gbps(iters):
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    return 2 * src.numel() / median_ms(lambda: dst.copy_(src), iters) / 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--rowwise", help="rowwise-bench --json output to print beside")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--bytes", type=int, default=1 << 30)
    args = ap.parse_args()

    copy = copy_gbps(args.iters)
    print(f"# {torch.cuda.get_device_name()} torch {torch.__version__} copy {copy:.0f} GB/s")
    results = []
    for op_name, op in OPS.items():
        for dt_name, dt in DTYPES.items():
            for cols in COLS:
                rows = max(1, -(-args.bytes // (cols * dt.itemsize)))
                x = torch.randn(rows, cols, device="cuda", dtype=dt)
                ms = median_ms(lambda: op(x), args.iters)
                gbps = 2 * x.numel() * x.element_size() / ms / 1e6
                results.append(dict(op=op_name, dtype=dt_name, rows=rows, cols=cols, time_us=ms * 1e3, gbps=gbps,
                                    pct_copy=100 * gbps / copy))
                del x
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(device=torch.cuda.get_device_name(), copy_gbps=copy, results=results), f, indent=1)
    ours = {}
    if args.rowwise:
        with open(args.rowwise) as f:
            for r in json.load(f)["results"]:
                ours[(r["op"], r["dtype"], r["cols"])] = r
    print(f"{'op':<12}{'dtype':<6}{'cols':>8}{'torch %copy':>13}{'rowwise %copy':>15}{'speed-up':>10}")
    for r in results:
        mine = ours.get((r["op"], r["dtype"], r["cols"]))
        extra = f"{mine['pct_copy']:>15.1f}{mine['gbps'] / r['gbps']:>10.2f}" if mine else ""
        print(f"{r['op']:<12}{r['dtype']:<6}{r['cols']:>8}{r['pct_copy']:>13.1f}{extra}")


if __name__ == "__main__":
    main()
