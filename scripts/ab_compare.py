"""Compares rowwise-bench runs of two or more builds: per case, the mean % of copy of each label over its
runs, each label's difference from the first, and the spread: the widest range of one label's runs
(max - min), a measure of the noise a difference has to exceed. Cases a run refused (n/a) or failed are
marked.

Usage: python3 scripts/ab_compare.py LABEL=RUN.json [LABEL=RUN.json ...]   (a label may repeat: rounds)
"""
import json
import statistics
import sys
from collections import defaultdict


def main(argv):
    if not argv or any("=" not in a for a in argv):
        sys.exit(__doc__)
    pct = defaultdict(lambda: defaultdict(list))  # case -> label -> % of copy, one a run
    checks = defaultdict(set)
    labels, copy = [], defaultdict(list)
    for arg in argv:
        label, path = arg.split("=", 1)
        if label not in labels:
            labels.append(label)
        with open(path) as f:
            run = json.load(f)
        copy[label].append(run["copy_gbps"])
        for r in run["results"]:
            case = (r["op"], r["dtype"], r["rows"], r["cols"], r["strategy"])
            if r["pct_copy"] is not None:
                pct[case][label].append(r["pct_copy"])
            if r["check"] != "ok":
                checks[case].add(f"{label}:{r['check']}")
    print("copy GB/s: " + ", ".join(f"{l} {statistics.mean(copy[l]):.0f}" for l in labels))
    print(f"{'op':<21}{'dtype':<6}{'rows':>9}{'cols':>9} " + "".join(f"{l:>9}" for l in labels) +
          "".join(f"{'d ' + l:>10}" for l in labels[1:]) + f"{'spread':>8}")
    for case, by_label in pct.items():
        means = [statistics.mean(by_label[l]) if by_label[l] else None for l in labels]
        cells = "".join(f"{m:>9.1f}" if m is not None else f"{'-':>9}" for m in means)
        deltas = "".join(f"{m - means[0]:>+10.1f}" if m is not None and means[0] is not None else f"{'':>10}"
                         for m in means[1:])
        spread = max((max(v) - min(v) for v in by_label.values() if v), default=0.0)
        op, dtype, rows, cols, _ = case
        note = f"  {' '.join(sorted(checks[case]))}" if checks[case] else ""
        print(f"{op:<21}{dtype:<6}{rows:>9}{cols:>9} {cells}{deltas}{spread:>8.1f}{note}")


if __name__ == "__main__":
    main(sys.argv[1:])
