#!/usr/bin/python3
"""scripts/gpu_ncu_table.py on a hand-written Nsight Compute listing: kernels ranked by summed time over their
launches, the first launch's metrics, the three busiest pipes and largest stall reasons picked by name from the
ComputeWorkloadAnalysis / WarpStateStats columns, and n/a where a listing has none of them.

usage: gpu_ncu_table_test.py SCRIPT WORKDIR
"""
import os
import subprocess
import sys

HEAD = ('"ID","Kernel Name","gpu__time_duration.sum","launch__registers_per_thread",'
        '"sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",'
        '"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",'
        '"sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",'
        '"sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",'
        '"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",'
        '"smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"\n'
        '"","","nsecond","register/thread","%","%","%","%","ratio","ratio"\n')
ROWS = ('"0","quantize","1,000","36","85.5","40.1","12.0","60.2","0.5","3.25"\n'
        '"1","unpack","3,000","31","5.0","10.0","30.0","20.0","7.5","0.1"\n'
        '"2","quantize","1,500","36","85.5","40.1","12.0","60.2","0.5","3.25"\n')


def table(script, path):
    return subprocess.run([sys.executable, script, path], check=True, capture_output=True, text=True).stdout


def main():
    script, workdir = sys.argv[1:3]
    full = os.path.join(workdir, "full.csv")
    with open(full, "w", encoding="utf-8") as f:
        f.write(HEAD + ROWS)
    lines = table(script, full).splitlines()
    assert "busiest pipes" in lines[0] and "top stalls" in lines[0], lines[0]
    # unpack: 3000 ns in one launch; quantize: 1000 + 1500 ns over two, so unpack ranks first.
    assert lines[2].startswith("| `unpack` | 1 | 3000.0 |"), lines[2]
    assert "lsu 30.0 %, alu 20.0 %, fma 10.0 %" in lines[2], lines[2]
    assert "long_scoreboard 7.5, math_pipe_throttle 0.1" in lines[2], lines[2]
    assert lines[3].startswith("| `quantize` | 2 | 2500.0 | 36 |"), lines[3]
    assert "xu 85.5 %, alu 60.2 %, fma 40.1 %" in lines[3], lines[3]
    bare = os.path.join(workdir, "bare.csv")
    with open(bare, "w", encoding="utf-8") as f:
        f.write('"ID","Kernel Name","gpu__time_duration.sum","launch__registers_per_thread"\n'
                '"","","nsecond","register/thread"\n"0","k","10","32"\n')
    assert table(script, bare).splitlines()[2] == "| `k` | 1 | 10.0 | 32 | n/a | n/a |", table(script, bare)
    print("gpu_ncu_table: ranking, pipes and stalls as expected")


if __name__ == "__main__":
    main()
