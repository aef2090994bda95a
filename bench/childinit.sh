#!/usr/bin/env bash
# The grading child's start-up, before and after, side by side in one run:
# the package init it pays before reading its job (GODEBUG=inittrace=1,
# summed over every package), the heap that init allocates, and the CPU
# and wall time of a whole child that starts and exits on an empty job.
# Every grade starts a child (issue 25), so this is paid per grade.
#
# usage: bench/childinit.sh [RUNS] [BEFORE_COMMIT]   (default 40 runs, main)
# Needs Go and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-40}
before=${2:-main}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -trimpath -o "$work/after" ./cmd/server
mkdir "$work/before-src"
git archive "$before" | tar -x -C "$work/before-src"
(cd "$work/before-src" && go build -trimpath -o "$work/before" ./cmd/server)
child=$(sed -n 's/^const ChildCommand = "\(.*\)"$/\1/p' internal/gradewire/job.go)
echo "go: $(go version | cut -d' ' -f3-)  cores: $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)  before: $before ($(git rev-parse --short "$before"))"
python3 - "$runs" "$child" "$work/before" "$work/after" <<'PY'
import os, re, resource, statistics, subprocess, sys, time
runs, child, bins = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
init = re.compile(r"^init (\S+) @\S+ ms, ([\d.]+) ms clock, (\d+) bytes, (\d+) allocs$")
res = {b: {"init": [], "bytes": [], "cpu": [], "wall": []} for b in bins}
heavy = {b: {} for b in bins}
env = dict(os.environ, GODEBUG="inittrace=1")
for _ in range(runs):
    for b in bins:  # interleaved, so load changes hit both alike
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run([b, child], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, env=env, text=True)
        t1 = time.perf_counter()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        clock = size = 0.0
        for line in p.stderr.splitlines():
            m = init.match(line)
            if m:
                clock += float(m.group(2)); size += int(m.group(3))
                heavy[b][m.group(1)] = heavy[b].get(m.group(1), 0) + float(m.group(2))
        res[b]["init"].append(clock); res[b]["bytes"].append(size / 1e6)
        res[b]["cpu"].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3)
        res[b]["wall"].append((t1 - t0) * 1e3)
print(f"{'measure (median of %d)' % runs:34} {'before':>8} {'after':>8}")
for key, label in [("init", "package init, clock ms"), ("bytes", "package init, heap MB"),
                   ("cpu", "child start to exit, CPU ms"), ("wall", "child start to exit, wall ms")]:
    print(f"{label:34} {statistics.median(res[bins[0]][key]):8.2f} {statistics.median(res[bins[1]][key]):8.2f}")
for name, b in (("before", bins[0]), ("after", bins[1])):
    top = sorted(heavy[b].items(), key=lambda kv: -kv[1])[:3]
    print(f"{name}: costliest inits (mean ms): " + ", ".join(f"{k} {v / runs:.2f}" for k, v in top))
PY
