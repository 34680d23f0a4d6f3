"""Markdown tables of % of copy bandwidth per op, dtype and cols from rowwise-bench --json output, with the
peers (bench/torch_peer.py --json, --peer torch or cudnn) after it where they measured the same shape.

Usage: python3 scripts/perf_tables.py BENCH.json [PEER.json ...]
"""
import json
import sys


def main():
    bench = json.load(open(sys.argv[1]))
    peers = []  # (name, {(op, dtype, rows, cols): result})
    for path in sys.argv[2:]:
        peer = json.load(open(path))
        peers.append((peer.get("peer", "torch"), {(r["op"], r["dtype"], r["rows"], r["cols"]): r
                                                  for r in peer["results"] if r.get("pct_copy")}))
    ours = [r for r in bench["results"] if r.get("pct_copy") and r.get("strategy") == "auto"
            and r["rows"] * r["cols"] >= (1 << 26)]  # the cols sweep: >= 64 Mi elements, no rotation
    names = " / ".join(name for name, _ in peers)
    print(f"{bench['device']}, copy {bench['copy_gbps']:.0f} GB/s (read + write). Cells: rowwise % of copy"
          + (f" ({names} % of copy, where measured)" if peers else "") + ".\n")
    ops = list(dict.fromkeys((r["op"], r["dtype"]) for r in ours))
    cols = sorted({r["cols"] for r in ours})
    by_key = {(r["op"], r["dtype"], r["cols"]): r for r in ours}
    for op in dict.fromkeys(o for o, _ in ops):
        dtypes = [d for o, d in ops if o == op]
        print(f"**{op}**\n")
        print("| cols | " + " | ".join(dtypes) + " |")
        print("|---:|" + "---:|" * len(dtypes))
        for c in cols:
            cells = []
            for d in dtypes:
                r = by_key.get((op, d, c))
                if not r:
                    cells.append("")
                    continue
                theirs = [p.get((op, d, r["rows"], c)) for _, p in peers]
                shown = " / ".join(f"{p['pct_copy']:.1f}" if p else "-" for p in theirs)
                cells.append(f"{r['pct_copy']:.1f}" + (f" ({shown})" if any(theirs) else ""))
            print(f"| {c} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
