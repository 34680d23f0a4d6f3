"""Markdown tables of % of copy bandwidth per op, dtype and cols from rowwise-bench --json output, with the
PyTorch peer (bench/torch_peer.py --json) in parentheses where it measured the same shape.

Usage: python3 scripts/perf_tables.py BENCH.json [TORCH_PEER.json]
"""
import json
import sys


def main():
    bench = json.load(open(sys.argv[1]))
    peer = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else {"results": []}
    theirs = {(r["op"], r["dtype"], r["rows"], r["cols"]): r for r in peer["results"] if r.get("pct_copy")}
    ours = [r for r in bench["results"] if r.get("pct_copy") and r.get("strategy") == "auto"
            and r["rows"] * r["cols"] >= (1 << 26)]  # the cols sweep: >= 64 Mi elements, no rotation
    print(f"{bench['device']}, copy {bench['copy_gbps']:.0f} GB/s (read + write). "
          "Cells: rowwise % of copy (PyTorch eager % of copy).\n")
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
                p = theirs.get((op, d, r["rows"], c))
                cells.append(f"{r['pct_copy']:.1f}" + (f" ({p['pct_copy']:.1f})" if p else ""))
            print(f"| {c} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
