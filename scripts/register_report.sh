#!/usr/bin/env bash
# Registers and spills of every kernel the library instantiates, from ptxas (no GPU needed): the
# numbers that decide how many blocks an SM holds, so how many bytes it keeps in flight.
# Usage: scripts/register_report.sh [arch (default sm_90)] [src/*.cu ...]   Prints "kernel regs spill".
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-sm_90}
[ $# -gt 0 ] && shift
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(src/*.cu)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "${files[@]}"; do
  echo "nvcc -arch=$arch -std=c++17 -O3 -Iinclude -c $f -o $tmp/$(basename "$f").o -Xptxas -v > $tmp/$(basename "$f").log 2>&1"
done | xargs -P "$(nproc)" -I{} sh -c '{}'
cat "$tmp"/*.log | c++filt | awk '
  /Compiling entry function/ { name = $0; sub(/.*function .void /, "", name); sub(/. for .sm_.*/, "", name);
                               sub(/\(.*/, "", name); gsub(/rowwise::/, "", name); spill = "" }
  /spill stores/ { spill = $5 "+" $9 }
  /Used [0-9]+ registers/ { for (i = 1; i <= NF; ++i) if ($(i+1) == "registers,") regs = $i;
                            print name, regs, spill }' | sort -u
