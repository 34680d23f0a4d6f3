"""The benchmark's outputs: a table (rowwise beside its best peer), JSON, and a PNG plot of GB/s and % of
copy against cols, one panel per op and dtype."""
import json
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Tuple

Key = Tuple[str, str, int]  # (op, dtype, cols)


def by_case(results: List[dict]) -> Dict[Key, Dict[str, dict]]:
    """{(op, dtype, cols): {peer: result}} for the results that have a time."""
    cases: Dict[Key, Dict[str, dict]] = defaultdict(dict)
    for r in results:
        if r.get("gbps"):
            cases[(r["op"], r["dtype"], r["cols"])][r["peer"]] = r
    return cases


def table(results: List[dict], peers: List[str]) -> str:
    """% of copy per peer for every case, then rowwise's speed over the fastest other peer."""
    head = f"{'op':<18}{'dtype':<6}{'cols':>8}{'rows':>9}" + "".join(f"{p:>15}" for p in peers)
    lines = [head + f"{'vs best peer':>14}", "-" * (len(head) + 14)]
    for (op, dtype, cols), got in by_case(results).items():
        rows = next(iter(got.values()))["rows"]
        line = f"{op:<18}{dtype:<6}{cols:>8}{rows:>9}"
        line += "".join(f"{got[p]['pct_copy']:>14.1f}%" if p in got else f"{'-':>15}" for p in peers)
        others = [r["gbps"] for p, r in got.items() if p != "rowwise"]
        if "rowwise" in got and others:
            ratio = got["rowwise"]["gbps"] / max(others)
            line += f"{ratio:>13.2f}x" + ("  < best peer" if ratio < 1 else "")
        lines.append(line)
    problems = [r for r in results if r.get("check", "ok") != "ok"]
    lines += [f"! {r['op']} {r['dtype']} cols {r['cols']} {r['peer']}: {r['check']}" for r in problems]
    return "\n".join(lines)


def plot(results: List[dict], peers: List[str], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = by_case(results)
    ops = list(dict.fromkeys(op for op, _, _ in cases))
    dtypes = list(dict.fromkeys(dtype for _, dtype, _ in cases))
    fig, axes = plt.subplots(len(ops), len(dtypes), figsize=(6 * len(dtypes), 3.6 * len(ops)), squeeze=False)
    for i, op in enumerate(ops):
        for j, dtype in enumerate(dtypes):
            ax = axes[i][j]
            keys = sorted(k for k in cases if k[0] == op and k[1] == dtype)
            copy = next((r["copy_gbps"] for k in keys for r in cases[k].values()), None)
            for peer in peers:
                points = [(k[2], cases[k][peer]["gbps"]) for k in keys if peer in cases[k]]
                if points:
                    ax.plot(*zip(*points), marker="o", markersize=3, label=peer,
                            linewidth=2.2 if peer == "rowwise" else 1.2)
            if copy:
                ax.axhline(copy, color="gray", linestyle="--", linewidth=1, label="copy")
                ax.secondary_yaxis("right", functions=(lambda g, c=copy: 100 * g / c,
                                                       lambda p, c=copy: p * c / 100)).set_ylabel("% of copy")
            ax.set_xscale("log", base=2)
            ax.set_ylim(bottom=0)
            ax.set_title(f"{op} {dtype}")
            ax.set_xlabel("cols")
            ax.set_ylabel("GB/s")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(out: Path, meta: dict, results: List[dict], peers: List[str], plot_too: bool = True) -> str:
    """Writes bench.json, table.txt and (plot_too) bench.png into out; returns the table."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(dict(meta, results=results), indent=1))
    text = table(results, peers)
    (out / "table.txt").write_text(text + "\n")
    if plot_too:
        plot(results, peers, out / "bench.png", f"{meta.get('device', '?')}: rowwise and peers, {meta.get('note', '')}")
    return text


def load(paths: List[str]) -> Tuple[dict, List[dict]]:
    """Merges the results of earlier runs (the first run's metadata; later cases replace earlier ones)."""
    meta, merged = {}, {}
    for path in paths:
        data = json.loads(Path(path).read_text())
        results = data.pop("results")
        meta = meta or data
        merged.update({(r["op"], r["dtype"], r["cols"], r["peer"]): r for r in results})
    return meta, list(merged.values())
