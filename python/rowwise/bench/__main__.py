"""python -m rowwise.bench: rowwise beside its peers (PyTorch eager, torch.compile, persistent Triton kernels)
over a sweep of row lengths, in one process, against the device-to-device copy bandwidth measured first.

Each case (op, dtype, cols) has as many rows as make its input --bytes (256 MiB by default: several times
any L2, so no buffer rotation is needed) and is timed as the best of --rounds medians of --iters
event-timed launches queued back to back (a round now and then ran up to 2x low, for any peer: one such
median is passed over). GB/s counts the bytes the op must move (inputs read once, outputs written once);
% of copy divides by the copy bandwidth. Every peer's first rows are checked against PyTorch eager.

Outputs in --out: table.txt, bench.json (both rewritten after every op and dtype) and bench.png.
--from-json re-reports (and merges) earlier runs, so a long sweep can run in parts:
--ops softmax,log_softmax --out a, then --ops softmax_backward,absmax_scale --out b, then
--from-json a/bench.json b/bench.json --out all.
"""
import argparse
import sys
import time
from pathlib import Path

from . import COLS, DEFAULT_OPS, DTYPES, OP_NAMES, PEERS, report


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python -m rowwise.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    split = lambda s: [v for v in s.split(",") if v]  # noqa: E731
    ap.add_argument("--ops", type=split, default=list(DEFAULT_OPS), help=f"of {','.join(OP_NAMES)}")
    ap.add_argument("--dtypes", type=split, default=["fp32", "bf16"], help=f"of {','.join(DTYPES)}")
    ap.add_argument("--cols", type=lambda s: [int(v) for v in split(s)], default=list(COLS))
    ap.add_argument("--peers", type=split, default=list(PEERS), help=f"of {','.join(PEERS)}")
    ap.add_argument("--bytes", type=int, default=256 << 20, help="input bytes of a case (default 256 MiB)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=2, help="medians of --iters a peer takes the best of")
    ap.add_argument("--out", type=Path, default=Path("out/python-bench"))
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--from-json", nargs="+", metavar="JSON", help="report earlier runs instead of measuring")
    args = ap.parse_args(argv)
    for name, given, known in ("op", args.ops, OP_NAMES), ("dtype", args.dtypes, DTYPES), ("peer", args.peers, PEERS):
        unknown = [v for v in given if v not in known]
        if unknown:
            ap.error(f"unknown {name} {', '.join(unknown)}; known: {', '.join(known)}")
    for flag, value in ("--bytes", args.bytes), ("--iters", args.iters), ("--rounds", args.rounds):
        if value < 1:
            ap.error(f"{flag} must be at least 1 (got {value})")
    if any(cols < 1 for cols in args.cols):
        ap.error(f"--cols must be at least 1 (got {','.join(map(str, args.cols))})")
    return args


def measure(args, log, save) -> tuple:
    import torch
    import triton

    from . import cases, timing

    copy = timing.copy_gbps(args.iters)
    meta = dict(device=torch.cuda.get_device_name(), torch=torch.__version__, triton=triton.__version__,
                copy_gbps=copy, bytes=args.bytes, iters=args.iters, rounds=args.rounds,
                note=f"{args.bytes >> 20} MiB inputs, best of {args.rounds} medians of {args.iters}")
    log(f"# {meta['device']}  torch {torch.__version__}  triton {triton.__version__}  copy {copy:.0f} GB/s")
    results = []
    for op_name in args.ops:
        op = cases.OPS[op_name]
        for dtype_name in args.dtypes:
            dtype = getattr(torch, DTYPES[dtype_name])
            for cols in args.cols:
                rows = max(1, -(-args.bytes // (cols * dtype.itemsize)))
                inputs = op.inputs(rows, cols, dtype)
                reference = op.torch(*inputs)
                moved = op.moved_bytes(rows, cols, dtype.itemsize)
                for peer in args.peers:
                    outcome = run_peer(peer, op, inputs, reference, args.iters, args.rounds)
                    if outcome is None:
                        continue
                    result = dict(op=op_name, dtype=dtype_name, cols=cols, rows=rows, peer=peer, copy_gbps=copy,
                                  **outcome)
                    if "time_us" in result:
                        result["gbps"] = moved / result["time_us"] / 1e3
                        result["pct_copy"] = 100 * result["gbps"] / copy
                    results.append(result)
                    shown = f"{result['pct_copy']:6.1f}% of copy" if "gbps" in result else ""
                    log(f"{op_name:<18}{dtype_name:<6}{cols:>8} {peer:<14}{shown} {result['check']}")
                # The next case's tensors reuse the cached memory: no torch.cuda.empty_cache() here, since cases
                # that followed a free of it timed their first peer up to 2x low (timing.WARMUP_S).
                del inputs, reference
            save(meta, results)  # what is done so far survives a run cut short
    return meta, results


def run_peer(peer, op, inputs, reference, iters, rounds):
    """{time_us, check} of one peer on one case, {check: "error: ..."} if it failed, None if it has no such
    op. A peer failing must not end the sweep."""
    from . import cases, timing

    rows, cols = inputs[0].shape
    try:
        fn = cases.make_peer(peer, op, rows, cols, inputs[0].dtype)
        if fn is None:
            return None
        ms = min(timing.median_ms(lambda: fn(*inputs), iters) for _ in range(rounds))
        return dict(time_us=ms * 1e3, check=cases.check(fn(*inputs), reference))
    except Exception as e:
        first_line = (str(e).splitlines() or [""])[0][:200]
        return dict(check=f"error: {type(e).__name__}: {first_line}")


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    start = time.time()
    log = lambda line: print(f"[{time.time() - start:6.0f}s] {line}", flush=True)  # noqa: E731
    if args.from_json:
        meta, results = report.load(args.from_json)
    else:
        meta, results = measure(args, log, lambda m, r: report.write(args.out, m, r, args.peers, plot_too=False))
    print(report.write(args.out, meta, results, args.peers, plot_too=not args.no_plot))
    log(f"wrote {args.out}/table.txt, bench.json" + ("" if args.no_plot else ", bench.png"))
    return 1 if any(r.get("check", "ok") != "ok" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
