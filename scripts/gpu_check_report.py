#!/usr/bin/env python3
"""The report of scripts/gpu-check.sh: gpu-check.md and gpu-check.json from the steps files of the stages run
so far in the build folder (gpu-check-steps-N.tsv: stage, step, status, seconds, detail) and their logs.

gpu-check.md: the GPU, date and commit; per stage its seconds against its budget and a table of its steps;
then the tables the steps produced (kernel resource usage, the benchmarks, the attention comparison, Nsight
Compute) and, for each step that did not pass, the end of its log, so that the report alone says what failed.
gpu-check.json: the same steps, and out_files, the files a run leaves under $OUT (the device's transfer
limits: at most 8 files, two folders deep, names of letters, digits, '.', '_' and '-').

usage: gpu_check_report.py --build DIR --out DIR --logs DIR --dry-run 0|1   (ECOSIM_COMMIT: the commit, where
the tree has no .git)
"""
import argparse
import datetime
import json
import os
import subprocess

OUT_FILES = ["gpu-check.md", "gpu-check.json", "gpu-check-logs.tar.gz"]
PASSING = {"passed", "planned", "missing", "omitted"}  # omitted: --skip; and offline-deps skipped (no bundle where the packages are installed)
# Logs whose whole text is a result table, shown in the report under these titles (in this order).
TABLES = [
    ("resource-usage.md", "Kernel resources (cuobjdump, sm_90)"),
    ("compare-cuda.log", "ecosim compare --device cuda"),
    ("bench-compression.log", "Compression kernels against a device copy"),
    ("attention-table.log", "Attention: hashed vs the fastest library attention"),
    ("bench-attention.log", "bench_attention"),
    ("bench-sdpa.log", "bench_sdpa (PyTorch SDPA back ends)"),
    ("gpu-model-probe.log", "The GPU model's grouped-query and short-query backward shapes, measured and modelled"),
    ("bench-decode.log", "bench_decode (a decode step: MSA's K/V cache vs recurrent states)"),
    ("train-step-resnet50.log", "A training step measured in PyTorch beside ecosim train: ResNet-50"),
    ("train-step-deit-small.log", "A training step measured in PyTorch beside ecosim train: DeiT-S"),
    ("ncu-ecoformer.md", "Nsight Compute: hashed attention (B·H = 16, N = 3136, D = 32)"),
    ("ncu-performer.md", "Nsight Compute: Performer's kernels (B·H = 16, N = 3136, D = 32)"),
    ("ncu-linformer.md", "Nsight Compute: Linformer's kernels (B·H = 16, N = 3136, D = 32)"),
    ("ncu-reformer.md", "Nsight Compute: Reformer's kernels (B·H = 16, N = 3136, D = 32)"),
    ("ncu-compression.md", "Nsight Compute: compression benchmark"),
]
FAILED_LOG_LINES = 40


def read_steps(build):
    steps = []
    for stage in (1, 2):
        path = os.path.join(build, "gpu-check-steps-%d.tsv" % stage)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if len(fields) == 5:
                    steps.append({"stage": int(fields[0]), "step": fields[1], "status": fields[2],
                                  "seconds": int(fields[3]), "detail": fields[4]})
    return steps


def stage_times(build):
    times = {}
    for stage in (1, 2):
        path = os.path.join(build, "gpu-check-time-%d" % stage)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                seconds, budget = f.read().split()
            times[stage] = {"seconds": int(seconds), "budget_s": int(budget)}
    return times


def command_line(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def passed(step):
    return step["status"] in PASSING or (step["status"] == "skipped" and step["step"] == "offline-deps")


def tail(path, lines):
    with open(path, encoding="utf-8", errors="replace") as f:
        return "".join(f.readlines()[-lines:])


def write_atomic(path, text):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def markdown(steps, times, info, logs):
    md = ["# ecosim gpu-check %s" % info["date"], "",
          "GPU: %s; commit %s%s" % (info["gpu"] or "none found", info["commit"] or "unknown",
                                    "; dry run (nothing ran)" if info["dry_run"] else ""), ""]
    for stage in sorted({s["stage"] for s in steps}):
        t = times.get(stage)
        md += ["## Stage %d%s" % (stage, " (%ds of a %ds budget)" % (t["seconds"], t["budget_s"]) if t else ""), "",
               "| step | status | seconds | detail |", "|---|---|---|---|"]
        md += ["| %s | %s | %d | %s |" % (s["step"], s["status"], s["seconds"], s["detail"].replace("|", "\\|"))
               for s in steps if s["stage"] == stage]
        md.append("")
    for name, title in TABLES:
        path = os.path.join(logs, name)
        if info["dry_run"] or not os.path.exists(path):
            continue
        text = open(path, encoding="utf-8", errors="replace").read().rstrip()
        md += ["## %s" % title, ""]
        md += [text] if name.endswith(".md") else ["```", text, "```"]
        md.append("")
    for s in steps:
        path = os.path.join(logs, s["step"] + ".log")
        if not passed(s) and os.path.exists(path):
            md += ["## %s (%s): last %d lines of its log" % (s["step"], s["status"], FAILED_LOG_LINES), "",
                   "```", tail(path, FAILED_LOG_LINES).rstrip(), "```", ""]
    return "\n".join(md) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--logs", required=True)
    ap.add_argument("--dry-run", type=int, choices=(0, 1), required=True)
    a = ap.parse_args()
    steps = read_steps(a.build)
    times = stage_times(a.build)
    info = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "gpu": "" if a.dry_run else command_line(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"]),
        # A copy of the tree without its .git (the device tool's) is named by the caller.
        "commit": os.environ.get("ECOSIM_COMMIT") or command_line(
            ["git", "-C", os.path.dirname(os.path.abspath(__file__)), "rev-parse", "--short", "HEAD"]),
        "dry_run": bool(a.dry_run),
    }
    write_atomic(os.path.join(a.out, "gpu-check.md"), markdown(steps, times, info, a.logs))
    failed = sum(not passed(s) for s in steps)
    report = dict(info, stages={str(k): v for k, v in times.items()}, failed=failed, out_files=OUT_FILES,
                  steps=steps)
    write_atomic(os.path.join(a.out, "gpu-check.json"), json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
