"""Peers of rowwise-bench's ops over its cols sweep, timed the same way (device copy bandwidth first, median
of event-timed launches queued behind a hold of the GPU, on ~1 GiB inputs or inputs rotated over copies that
touch 4 L2 sizes between two uses) and sized as rowwise-bench sizes them (bytes of every operand once),
optionally printed beside rowwise-bench's JSON results.

--peer torch (default): PyTorch eager (softmax, log_softmax, their backward passes through the private ops
autograd calls, abs-max scaling to the input type, int8 and fp8 e4m3 as eager code writes it).
--peer cudnn: cuDNN's cudnnSoftmaxForward / cudnnSoftmaxBackward (bench/cudnn_softmax.py) for the softmax
family, each case's output checked against PyTorch's.

With --like bench.json it times exactly the shapes of that rowwise-bench run instead (e.g. its long
sweep: decode batches, millions of columns, whole tensors). With --rowwise it ends with the shapes where
rowwise is slower than the peer. --timing graph times as rowwise-bench --timing graph does: a case's
launches captured in a CUDA graph, each replay between its own pair of events, divided by its launches.

Usage: python3 bench/torch_peer.py [--peer torch|cudnn] [--json OUT.json] [--rowwise bench.json]
                                   [--like bench.json] [--iters 30] [--ops a,b] [--timing events|graph]
"""
import argparse
import json
import statistics

import torch
from cudnn_softmax import CudnnError

COLS = [16, 32, 64, 128, 256, 512, 1000, 1024, 2048, 3000, 4096, 5000, 8192, 12345, 16384, 32768, 50257, 65536,
        131072, 262144]
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
SCALE_BYTES = 4  # rowwise writes one float scale a row


def nbytes(t):
    return t.numel() * t.element_size()


# Each op maps x (rows, cols) to (callable timed, bytes moved as rowwise-bench counts them, and PyTorch's
# result on the same inputs to check the callable's against, or None where PyTorch is the peer).
def forward(fn):
    def make(x):
        return (lambda: fn(x, -1)), 2 * nbytes(x), None
    return make


def whole_tensor(fn):
    """The whole tensor as one row: what rowwise's tensor_softmax computes."""
    def make(x):
        flat = x.view(-1)
        return (lambda: fn(flat, 0)), 2 * nbytes(x), None
    return make


def backward(forward_fn, backward_fn):
    """dx from y = forward_fn(x) and a random dy, with the private op autograd calls."""
    def make(x):
        y, dy = forward_fn(x, -1), torch.randn_like(x)
        return (lambda: backward_fn(dy, y, -1, x.dtype)), 3 * nbytes(x), None
    return make


def absmax_scale(x):
    def run():
        scale = x.abs().amax(-1, keepdim=True)
        return x / scale
    return run, 2 * nbytes(x) + SCALE_BYTES * x.shape[0], None


def quantize(qmax, dtype, round_first):
    """Per-row symmetric quantization; fp8 skips round() since the cast rounds to its grid."""
    def make(x):
        def run():
            scale = x.abs().amax(-1, keepdim=True)
            q = x * qmax / scale
            return (q.round() if round_first else q).clamp(-qmax, qmax).to(dtype)
        return run, nbytes(x) + x.numel() + SCALE_BYTES * x.shape[0], None
    return make


def torch_ops():
    ops = {
        "softmax": forward(torch.softmax),
        "log_softmax": forward(torch.log_softmax),
        "softmax_backward": backward(torch.softmax, torch._softmax_backward_data),
        "log_softmax_backward": backward(torch.log_softmax, torch._log_softmax_backward_data),
        "absmax_scale": absmax_scale,
        "absmax_int8": quantize(127, torch.int8, round_first=True),
    }
    if hasattr(torch, "float8_e4m3fn"):
        ops["absmax_fp8"] = quantize(448, torch.float8_e4m3fn, round_first=False)
    ops["tensor_softmax"] = whole_tensor(torch.softmax)
    ops["tensor_log_softmax"] = whole_tensor(torch.log_softmax)
    return ops


def cudnn_ops():
    """cuDNN's softmax family; a whole tensor is one row of an N = 1 tensor."""
    from cudnn_softmax import CudnnSoftmax

    dnn = CudnnSoftmax()
    print(f"# cuDNN {dnn.version}")

    def forward_rows(log, whole=False):
        fn = torch.log_softmax if log else torch.softmax
        def make(x):
            rows = x.view(1, -1) if whole else x
            y = torch.empty_like(rows)
            return (lambda: dnn.forward(rows, y, log)), 2 * nbytes(x), lambda: fn(rows, -1)
        return make

    def backward_rows(log):
        fn, grad = (torch.log_softmax, torch._log_softmax_backward_data) if log else \
            (torch.softmax, torch._softmax_backward_data)
        def make(x):
            y, dy, dx = fn(x, -1), torch.randn_like(x), torch.empty_like(x)
            return (lambda: dnn.backward(y, dy, dx, log)), 3 * nbytes(x), lambda: grad(dy, y, -1, x.dtype)
        return make

    return {"softmax": forward_rows(False), "log_softmax": forward_rows(True),
            "softmax_backward": backward_rows(False), "log_softmax_backward": backward_rows(True),
            "tensor_softmax": forward_rows(False, whole=True), "tensor_log_softmax": forward_rows(True, whole=True)}


PEER_OPS = {"torch": torch_ops, "cudnn": cudnn_ops}
# Every op any peer has, for --ops before the peer is loaded.
OP_NAMES = ("softmax", "log_softmax", "softmax_backward", "log_softmax_backward", "absmax_scale", "absmax_int8",
            "absmax_fp8", "tensor_softmax", "tensor_log_softmax")
CHECK_ROWS = 64
TOLERANCE = {torch.float32: (1e-5, 1e-4)}  # (atol, rtol); 16-bit outputs: 2e-2 both


def check(got, want):
    """"ok", or how the first CHECK_ROWS rows of got differ from want."""
    atol, rtol = TOLERANCE.get(want.dtype, (2e-2, 2e-2))
    got, want = got[:CHECK_ROWS].double(), want[:CHECK_ROWS].double()
    if torch.allclose(got, want, atol=atol, rtol=rtol):
        return "ok"
    return f"MISMATCH (max abs error {(got - want).abs().max().item():.3g})"


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


MIN_GRAPH_LAUNCHES = 20  # as rowwise-bench: a replay's own launch weighs little against its launches


def median_graph_ms(runs, iters):
    """Median in ms of one call of runs[i % len(runs)] within a CUDA graph of whole rounds over runs, at
    least MIN_GRAPH_LAUNCHES calls: `iters` replays, each between its own pair of events, each divided
    by its calls."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-ups off the default stream, as torch.cuda.graph asks
        for i in range(WARMUPS):
            runs[i % len(runs)]()
    torch.cuda.current_stream().wait_stream(side)
    launches = -(-MIN_GRAPH_LAUNCHES // len(runs)) * len(runs)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(launches):
            runs[i % len(runs)]()
    graph.replay()  # the first replay uploads the graph
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    for start, end in events:
        start.record()
        graph.replay()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(end) / launches for start, end in events)


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
    unknown = [op for op in ops if op not in OP_NAMES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown ops {unknown}; known: {','.join(OP_NAMES)}")
    return ops


def measure_case(make, dtype, rows, cols, iters, timed=median_ms):
    """(median ms, bytes moved, check) of the peer on one case, timed by median_ms or median_graph_ms;
    check is "-" where PyTorch is the peer."""
    run, moved, reference = make(torch.randn(rows, cols, device="cuda", dtype=dtype))
    checked = check(run(), reference()) if reference else "-"
    runs = [run] + [make(torch.randn(rows, cols, device="cuda", dtype=dtype))[0]
                    for _ in range(rotation_copies(moved) - 1)]
    return timed(runs, iters), moved, checked


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", choices=sorted(PEER_OPS), default="torch")
    ap.add_argument("--json")
    ap.add_argument("--rowwise", help="rowwise-bench --json output to print beside")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--bytes", type=int, default=1 << 30)
    ap.add_argument("--like", help="time the (op, dtype, rows, cols) cases of this rowwise-bench JSON instead")
    ap.add_argument("--ops", type=parse_ops, default=None, help="comma-separated subset (default: all)")
    ap.add_argument("--timing", choices=["events", "graph"], default="events",
                    help="each launch between its own events, or a graph of a case's launches per replay")
    args = ap.parse_args()
    timed = median_graph_ms if args.timing == "graph" else median_ms
    peer_ops = PEER_OPS[args.peer]()
    ops = [op for op in peer_ops if not op.startswith("tensor_") and (args.ops is None or op in args.ops)]
    if args.like:
        with open(args.like) as f:
            shapes = [(r["op"], r["dtype"], r["rows"], r["cols"]) for r in json.load(f)["results"]
                      if r["op"] in peer_ops and r["dtype"] in DTYPES and (args.ops is None or r["op"] in args.ops)]
    else:
        shapes = [(op, dt, max(1, -(-args.bytes // (cols * DTYPES[dt].itemsize))), cols)
                  for op in ops for dt in DTYPES for cols in COLS]

    copy = copy_gbps(args.iters)
    device = torch.cuda.get_device_name()
    print(f"# {device} torch {torch.__version__} copy {copy:.0f} GB/s, peer {args.peer}, timing {args.timing}")
    results = []
    for op_name, dt_name, rows, cols in shapes:
        result = dict(op=op_name, dtype=dt_name, rows=rows, cols=cols, time_us=None, gbps=None, pct_copy=None)
        try:
            ms, moved, result["check"] = measure_case(peer_ops[op_name], DTYPES[dt_name], rows, cols, args.iters,
                                                      timed)
            gbps = moved / ms / 1e6
            result.update(time_us=ms * 1e3, gbps=gbps, pct_copy=100 * gbps / copy)
        except CudnnError as e:  # a shape or dtype the peer refuses: recorded, the sweep goes on
            result["check"] = f"n/a: {e}"
        results.append(result)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(device=device, peer=args.peer, timing=args.timing, copy_gbps=copy, results=results), f,
                      indent=1)
    ours = {}
    if args.rowwise:
        with open(args.rowwise) as f:
            for r in json.load(f)["results"]:
                if r["gbps"] is not None:  # n/a cases have no timing
                    ours[(r["op"], r["dtype"], r["rows"], r["cols"])] = r
    print(f"{'op':<22}{'dtype':<6}{'rows':>8}{'cols':>10}{'peer_us':>10}{'peer %copy':>12}{'rowwise %copy':>15}"
          f"{'speed-up':>10}  check")
    slower = []
    for r in results:
        if r["gbps"] is None:
            print(f"{r['op']:<22}{r['dtype']:<6}{r['rows']:>8}{r['cols']:>10}{'-':>10}{'-':>12}{'':>25}  {r['check']}")
            continue
        mine = ours.get((r["op"], r["dtype"], r["rows"], r["cols"]))  # same sizing: --bytes = --sweep-bytes
        extra = f"{mine['pct_copy']:>15.1f}{mine['gbps'] / r['gbps']:>10.2f}" if mine else f"{'':>25}"
        print(f"{r['op']:<22}{r['dtype']:<6}{r['rows']:>8}{r['cols']:>10}{r['time_us']:>10.1f}{r['pct_copy']:>12.1f}"
              f"{extra}  {r['check']}")
        if mine and mine["gbps"] < r["gbps"]:
            slower.append(f"{r['op']} {r['dtype']} {r['rows']}x{r['cols']} "
                          f"({mine['pct_copy']:.1f} against {r['pct_copy']:.1f} % of copy)")
    if args.rowwise:
        compared = sum((r["op"], r["dtype"], r["rows"], r["cols"]) in ours and r["gbps"] is not None for r in results)
        print(f"rowwise slower than {args.peer} on {len(slower)} of {compared} shapes" + "".join(
            f"\n  {line}" for line in slower))

if __name__ == "__main__":
    main()
