#!/usr/bin/env python3
"""scripts/attention_table on two small synthetic files, one as bench_attention writes and one as bench_sdpa
writes: the fastest library attention chosen among cuBLAS and the SDPA back ends (n/a ones left out), the
ratio hashed / fastest and hashed's bound fraction computed by hand, n/a cells with their reasons,
--library-dtype, and a malformed file refused with exit status 2.
usage: attention_table_test.py MERGER WORKDIR"""
import json
import os
import subprocess
import sys


def ok(kernel, dtype, n, d, median, bound=0.0):
    return {"kernel": kernel, "dtype": dtype, "n": n, "d": d, "batch_heads": 16, "status": "ok",
            "median_ms": median, "min_ms": median * 0.9, "max_ms": median * 1.2, "repetitions": 10,
            "warmup": 3, "bound_ms": bound}


def na(kernel, dtype, n, d, reason):
    return {"kernel": kernel, "dtype": dtype, "n": n, "d": d, "batch_heads": 16, "status": "n/a", "reason": reason}


def write(path, benchmark, records):
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"benchmark": benchmark, "device": "test GPU", "warmup": 3, "repetitions": 10,
                   "records": records}, f)


def run(merger, *args):
    done = subprocess.run([sys.executable, merger] + list(args), capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def rows(markdown, d):
    """{N: {heading: cell}} of the table of head width d."""
    section = markdown.split("### D = %d\n" % d)[1].split("### D = ")[0]
    lines = [l for l in section.splitlines() if l.startswith("|")]
    heads = [c.strip() for c in lines[0].strip("|").split("|")]
    table = {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        table[int(cells[0])] = dict(zip(heads, cells))
    return table


def close(cell, expected):
    """A printed ratio (3 significant digits) against the hand-computed value."""
    return abs(float(cell) - expected) <= 5e-3 * expected


def check(condition, what, output):
    if not condition:
        sys.exit("FAILED: %s\n%s" % (what, output))


def main():
    merger, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    ours, sdpa = os.path.join(work, "attention.json"), os.path.join(work, "sdpa.json")
    write(ours, "bench_attention", [
        # D = 64, N = 4096: hashed 2.0 ms against cuBLAS 3.0, flash 0.5, cuDNN 0.4, efficient fp32 1.6:
        # fastest cuDNN, 2.0 / 0.4 = 5; bound 1.0 / 2.0 = 0.5
        ok("ecoformer", "fp32", 4096, 64, 2.0, bound=1.0), ok("msa", "fp32", 4096, 64, 8.0),
        ok("cublas-msa", "fp32", 4096, 64, 3.0),
        # D = 64, N = 65536: hashed 6.0; cuBLAS n/a, cuDNN n/a, flash 24.0, efficient fp32 48.0:
        # fastest flash, 6 / 24 = 0.25; bound 1.5 / 6 = 0.25
        ok("ecoformer", "fp32", 65536, 64, 6.0, bound=1.5), na("msa", "fp32", 65536, 64, "estimated 15.2 s > cap"),
        na("cublas-msa", "fp32", 65536, 64, "scores and tensors need 275 GB > 79 GB free on the device"),
        # D = 32: hashed only
        ok("ecoformer", "fp32", 1024, 32, 0.25, bound=0.05)])
    write(sdpa, "bench_sdpa", [
        ok("sdpa-flash", "fp16", 4096, 64, 0.5), ok("sdpa-cudnn", "fp16", 4096, 64, 0.4),
        ok("sdpa-efficient", "fp32", 4096, 64, 1.6), na("sdpa-flash", "fp32", 4096, 64, "no kernel for fp32"),
        ok("sdpa-flash", "fp16", 65536, 64, 24.0), na("sdpa-cudnn", "fp16", 65536, 64, "out of memory"),
        ok("sdpa-efficient", "fp32", 65536, 64, 48.0)])

    rc, out, err = run(merger, ours, sdpa)
    check(rc == 0, "exit %d: %s" % (rc, err), out)
    d64 = rows(out, 64)
    check(d64[4096]["fastest library ms"] == "0.4 (sdpa-cudnn fp16)", "N = 4096: fastest is cuDNN", out)
    check(close(d64[4096]["hashed / fastest"], 2.0 / 0.4), "N = 4096: ratio 5", out)
    check(close(d64[4096]["hashed bound frac"], 0.5), "N = 4096: bound fraction 0.5", out)
    check(d64[65536]["fastest library ms"] == "24.00 (sdpa-flash fp16)", "N = 65536: fastest is flash", out)
    check(close(d64[65536]["hashed / fastest"], 0.25), "N = 65536: ratio 0.25 (hashed faster)", out)
    check(close(d64[65536]["hashed bound frac"], 0.25), "N = 65536: bound fraction 0.25", out)
    check(d64[65536]["cuBLAS fp32 ms"] == "n/a" and d64[65536]["cuDNN fp16 ms"] == "n/a", "n/a cells", out)
    check("275 GB > 79 GB free" in out and "out of memory" in out, "the n/a reasons are listed", out)
    check(d64[4096]["math fp32 ms"] == "n/a", "a case absent from both files is n/a", out)
    d32 = rows(out, 32)
    check(d32[1024]["fastest library ms"] == "n/a" and d32[1024]["hashed / fastest"] == "n/a",
          "no library measurement: no ratio", out)
    check(close(d32[1024]["hashed bound frac"], 0.05 / 0.25), "D = 32: bound fraction 0.2", out)

    # only fp32 libraries: N = 4096 compares with efficient fp32 (1.6 < cuBLAS 3.0): 2.0 / 1.6 = 1.25
    rc, out, err = run(merger, "--library-dtype", "fp32", ours, sdpa)
    d64 = rows(out, 64)
    check(rc == 0 and d64[4096]["fastest library ms"] == "1.60 (sdpa-efficient fp32)", "fp32: efficient", out)
    check(close(d64[4096]["hashed / fastest"], 2.0 / 1.6), "fp32: ratio 1.25", out)

    bad = os.path.join(work, "bad.json")
    with open(bad, "w", encoding="utf-8") as f:
        json.dump({"records": [{"kernel": "msa", "dtype": "fp32", "n": 8, "d": 8, "status": "ok"}]}, f)
    rc, out, err = run(merger, ours, bad)
    check(rc == 2 and "median_ms" in err, "a record without median_ms: exit 2 (%d, %s)" % (rc, err), out)
    rc, out, err = run(merger, os.path.join(work, "absent.json"))
    check(rc == 2 and err.startswith("attention_table: error: "), "a missing file: exit 2 (%d)" % rc, err)
    print("attention_table: all checks passed")


if __name__ == "__main__":
    main()
