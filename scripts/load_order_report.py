#!/usr/bin/env python3
"""Whether each warp kernel of whole rows (warp_rows.cuh, WholeRows) issues its 16-byte loads ahead of
its math, from the SASS (no GPU needed): per kernel, the 8- and 16-byte loads issued before the first
instruction that reads a loaded register, against the R * K packs of a group iteration (both operands'
for the gradients). Fewer means ptxas moved loads behind the reduction's math, and a warp waits for its
first packs before it asks for the rest (docs/perf.md "Whole rows without phase or bounds").

Usage: scripts/load_order_report.py [--arch sm_90] [src/*.cu ...]   (nvcc and cuobjdump on PATH or in
$CUDA_HOME/bin). Prints "ahead|SUNK|narrow loads/expected kernel"; exits 1 where a kernel of 16-byte packs of
one operand has loads sunk (the gradients' kernels, at 99-102 % of copy, are printed, not counted).
"""
import argparse, concurrent.futures, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tool(name):
    return shutil.which(name) or os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", name)


def sass_of(source, arch, tmp):
    cubin = os.path.join(tmp, os.path.basename(source) + ".cubin")
    subprocess.run([tool("nvcc"), f"-arch={arch}", "-std=c++17", "-O3", "-I" + os.path.join(ROOT, "include"),
                    "-cubin", "-o", cubin, source], check=True)
    return subprocess.run([tool("cuobjdump"), "-sass", cubin], check=True, capture_output=True, text=True).stdout


def report(sass):
    """(verdict, loads ahead, expected, demangled name, whether it counts) for each whole-row warp kernel."""
    for body in re.split(r"\n\s*Function : ", sass)[1:]:
        name = body.split("\n", 1)[0]
        if "warp_rows" not in name:
            continue
        pretty = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip()
        pretty = re.sub(r"rowwise::|__nv_|void |\(.*", "", pretty)
        m = re.search(r", (\d+), (\d+), (\d+), (true|false), (\d+), true, (Grad)?", pretty)
        if not m:
            continue
        n, k, r, grad = int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(6) is not None
        expected = k * r * (2 if grad else 1)
        loaded, ahead = [], 0
        for ins in re.findall(r"/\*[0-9a-f]{4}\*/\s+([^;]+);", body):
            load = re.search(r"LDG\.E\.(?:128|64)\S*\s+R(\d+)", ins)
            if load:
                loaded.append(int(load.group(1)))
                ahead += 1
                continue
            operands = re.sub(r"^@!?U?P\w+\s+", "", ins).split(None, 1)
            sources = operands[1].split(",")[1:] if len(operands) > 1 else []
            if loaded and any(d <= int(s) < d + 4 for d in loaded for s in re.findall(r"\bR(\d+)", ",".join(sources))):
                break
        # Only kernels of 16-byte packs count: narrower ones (odd pointers or strides) take other loads.
        value_bytes = 8 if re.search(r"Io<double", pretty) else 4 if re.search(r"Io<float", pretty) else 2
        wide = n * value_bytes == 16
        verdict = "ahead" if ahead >= expected else "SUNK " if wide else "narrow"
        yield verdict, ahead, expected, pretty, wide and not grad


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("sources", nargs="*")
    args = parser.parse_args()
    sources = args.sources or sorted(os.path.join(ROOT, "src", f) for f in os.listdir(os.path.join(ROOT, "src"))
                                     if f.endswith(".cu"))
    failed = False
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
        for sass in pool.map(lambda s: sass_of(s, args.arch, tmp), sources):
            for verdict, ahead, expected, pretty, counts in report(sass):
                print(f"{verdict:6} {ahead:2d}/{expected:2d} {pretty}")
                failed |= counts and verdict != "ahead"
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
