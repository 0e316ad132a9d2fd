#!/usr/bin/python3
"""ecosim's Python API against the command line (issue 23): count, train, trace, replay, compare, gpu_time and
run_attention called
from Python return the same JSON reports as `ecosim COMMAND ... --format json` run as a program with the same
options (the command line recorded in the provenance aside), and their errors raise ecosim.Error carrying the
command's message; any other command (compress) runs through the same captured entry. The module leaves the SystemC
engine out of its process: replays default to the closed form, and engine="systemc" runs the command line.

usage: api_test.py ECOSIM WORKDIR   (the package on PYTHONPATH: build/python)
"""
import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import ecosim


def cli(ecosim_exe, *args):
    run = subprocess.run([ecosim_exe, *args], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"ecosim {' '.join(args)} failed: {run.stderr}")
    return run.stdout


def without_command_line(report):
    """The report with its provenance's command line removed (the only field naming how it was called)."""
    report = json.loads(json.dumps(report))
    for node in (report, report.get("header", {})):
        node.get("provenance", {}).pop("command_line", None)
    return report


failures = 0


def check(name, ok, detail=""):
    global failures
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail and not ok else ''}")


def main():
    exe, workdir = sys.argv[1], Path(sys.argv[2])
    workdir.mkdir(parents=True, exist_ok=True)

    counts = [
        (dict(model="pvt_v2_b0", attention="ecoformer"), ["--model", "pvt_v2_b0", "--attention", "ecoformer"]),
        (dict(model="deit_tiny", attention="performer", features=128, convention="exact", per_layer=True),
         ["--model", "deit_tiny", "--attention", "performer", "--features", "128", "--convention", "exact",
          "--per-layer"]),
        (dict(layer="attention", batch=2, seq=256, dim=32, no_proj=True),
         ["--layer", "attention", "--batch", "2", "--seq", "256", "--dim", "32", "--no-proj"]),
    ]
    for kwargs, args in counts:
        mine, theirs = ecosim.count(**kwargs), json.loads(cli(exe, "count", *args, "--format", "json"))
        check(f"count {' '.join(args)}", without_command_line(mine) == without_command_line(theirs))
        check(f"count {' '.join(args)}: the provenance records the call",
              " ".join(args) in mine["provenance"]["command_line"])

    for kwargs, args in [(dict(model="resnet50", batch=32, optimizer="adamw"),
                          ["--model", "resnet50", "--batch", "32", "--optimizer", "adamw"]),
                         (dict(model="deit_tiny", batch=8, convention="paper"),
                          ["--model", "deit_tiny", "--batch", "8", "--convention", "paper"])]:
        mine, theirs = ecosim.train(**kwargs), json.loads(cli(exe, "train", *args, "--format", "json"))
        check(f"train {' '.join(args)}", without_command_line(mine) == without_command_line(theirs))

    trace_file = workdir / "cli_trace.jsonl"
    cli(exe, "trace", "--layer", "attention", "--seq", "64", "--dim", "16", "--attention", "ecoformer", "-o",
        str(trace_file))
    traced = ecosim.trace(layer="attention", seq=64, dim=16, attention="ecoformer")
    lines = [json.loads(line) for line in trace_file.read_text().splitlines()]
    check("trace: header and op records as the file's lines (its end record counting them)",
          without_command_line(traced["header"]) == without_command_line(lines[0])
          and traced["records"] == lines[1:-1] and lines[-1] == {"record": "end", "ops": len(lines) - 2},
          f"{len(traced['records'])} records against {len(lines) - 2}")
    replayed = ecosim.replay(traced, engine="closed-form")
    theirs = json.loads(cli(exe, "replay", str(trace_file), "--engine", "closed-form", "--format", "json"))
    figures = [{k: v for k, v in r.items() if k != "provenance"} for r in (replayed, theirs)]  # it names the file
    check("replay of trace() data: every figure as the command line's replay of its file", figures[0] == figures[1])
    check("replay of the same file", without_command_line(ecosim.replay(trace_file, engine="closed-form"))
          == without_command_line(theirs))

    # write_trace writes as the commands do: over a regular file by a rename (no partial file, nothing left
    # beside it), through a symbolic link to its target (the link stays)
    written = workdir / "written.jsonl"
    written.write_text("old contents\n")
    link = workdir / "written_link.jsonl"
    link.unlink(missing_ok=True)
    link.symlink_to(written.name)
    ecosim.commands.write_trace(traced, link)
    check("write_trace through a link replaces its target whole, leaving no temporary file",
          link.is_symlink() and ecosim.commands.read_trace(written) == traced
          and not list(workdir.glob(".written.jsonl.*")))

    # the replacement keeps the file's mode, a new file gets a plain create's (0666 less the umask), and a FIFO
    # that no program reads is an error at once, not a write that waits forever
    written.chmod(0o640)
    ecosim.commands.write_trace(traced, written)
    fresh = workdir / "fresh.jsonl"
    fresh.unlink(missing_ok=True)
    ecosim.commands.write_trace(traced, fresh)
    umask = os.umask(0)
    os.umask(umask)
    check("write_trace keeps a replaced file's mode and gives a new one 0666 less the umask",
          (written.stat().st_mode & 0o777, fresh.stat().st_mode & 0o777) == (0o640, 0o666 & ~umask))
    fifo = workdir / "unread.fifo"
    fifo.unlink(missing_ok=True)
    os.mkfifo(fifo)
    try:
        ecosim.commands.write_trace(traced, fifo)
        check("write_trace to a FIFO nobody reads raises", False)
    except OSError as e:
        check("write_trace to a FIFO nobody reads raises ENXIO naming it", e.errno == errno.ENXIO and "FIFO" in str(e))

    # a trace file is read by the command line's own reader: a spoiled line, a line nested past the reader's
    # limit, or a missing end record is an ecosim.Error naming the file and line (never a Python RecursionError
    # or a silently shorter trace); records stream one at a time
    good = trace_file.read_text().splitlines()
    spoiled = {"a record's field spoiled": good[:1] + [good[1].replace('"batch":', '"bacth":')] + good[2:],
               "JSON nested 100,000 deep": good[:1] + ["[" * 100000 + "]" * 100000] + good[2:],
               "no end record": good[:-1]}
    for name, text in spoiled.items():
        bad = workdir / "spoiled.jsonl"
        bad.write_text("\n".join(text) + "\n")
        try:
            ecosim.commands.read_trace(bad)
            check(f"read_trace of a trace with {name} raises ecosim.Error", False)
        except ecosim.Error as e:
            check(f"read_trace of a trace with {name} raises ecosim.Error naming the file", "spoiled.jsonl" in str(e),
                  str(e))
    header, records = ecosim.commands.iter_trace(trace_file)
    check("iter_trace streams the same header and records", header == traced["header"]
          and next(records) == traced["records"][0] and list(records) == traced["records"][1:])

    # the module leaves the SystemC engine out of its process (libsystemc sets up a simulation kernel as it loads):
    # the replay default is the closed form, and engine="systemc" runs the command line as a child process — its
    # report is the command line's own, and this process still loads no libsystemc
    maps = Path("/proc/self/maps")
    if maps.exists():
        check("importing ecosim loads no libsystemc", "libsystemc" not in maps.read_text())
    check("replay without engine= runs the closed form", ecosim.replay(traced)["engine"] == "closed-form")
    os.environ["ECOSIM_CLI"] = exe
    mine = ecosim.replay(trace_file, engine="systemc")
    theirs = json.loads(cli(exe, "replay", "--trace", str(trace_file), "--engine", "systemc", "--format", "json"))
    check("replay(engine='systemc') is the command line's SystemC replay",
          mine["engine"] == "systemc" and without_command_line(mine) == without_command_line(theirs))
    if maps.exists():
        check("a SystemC replay from Python loads no libsystemc here", "libsystemc" not in maps.read_text())
    try:
        ecosim.replay(trace_file, engine="systemc", accel="no-such-accelerator")
        check("replay(engine='systemc', accel=<unknown>) raises ecosim.Error", False)
    except ecosim.Error as e:
        check("replay(engine='systemc', accel=<unknown>) raises ecosim.Error with the command's message",
              "no-such-accelerator" in str(e) and not str(e).startswith("ecosim replay:"), str(e))
    os.environ["ECOSIM_CLI"] = str(workdir / "no-such-ecosim")
    try:
        ecosim.replay(trace_file, engine="systemc")
        check("ECOSIM_CLI naming no program raises ecosim.Error", False)
    except ecosim.Error as e:
        check("ECOSIM_CLI naming no program raises ecosim.Error naming it", "ECOSIM_CLI" in str(e), str(e))
    del os.environ["ECOSIM_CLI"]

    compare_args = dict(batch=1, seq=64, dim=16, variants=["msa", "ecoformer"], device="cpu", engine="closed-form")
    mine = ecosim.compare(out=workdir / "py_compare", **compare_args)
    cli(exe, "compare", "--batch", "1", "--seq", "64", "--dim", "16", "--variants", "msa,ecoformer", "--device",
        "cpu", "--engine", "closed-form", "--out", str(workdir / "cli_compare"))
    theirs = json.loads((workdir / "cli_compare" / "compare.json").read_text())
    def measured_aside(report):  # the kernels' wall-clock timings differ from run to run, nothing else may
        return [{k: v for k, v in row.items() if k != "kernel_timing"} for row in report["variants"]]
    check("compare: the same variants, counts, accelerator and GPU-model figures",
          measured_aside(mine) == measured_aside(theirs) and mine["workload"] == theirs["workload"])

    # pass_: Python's keyword `pass` with the trailing underscore that escapes it, for --pass
    gpu_args = dict(gpu="h200", op="attention", impl="flash2", batch=4, heads=16, seq=4096, dim=128, causal=True,
                    pass_="fwd+bwd")
    mine = ecosim.gpu_time(**gpu_args)
    theirs = json.loads(cli(exe, "gpu-time", "--gpu", "h200", "--op", "attention", "--impl", "flash2", "--batch", "4",
                            "--heads", "16", "--seq", "4096", "--dim", "128", "--causal", "--pass", "fwd+bwd",
                            "--format", "json"))
    check("gpu_time: the command line's report", without_command_line(mine) == without_command_line(theirs))

    run_args = dict(variant="ecoformer", causal=True, seq=96, heads=2, dim=16, decode_steps=4, device="cpu")
    mine = ecosim.run_attention(**run_args)
    theirs = json.loads(cli(exe, "run", "--variant", "ecoformer", "--causal", "--seq", "96", "--heads", "2", "--dim",
                            "16", "--decode-steps", "4", "--device", "cpu", "--format", "json"))
    def timing_aside(report):  # wall-clock times differ from run to run, nothing else may
        report = without_command_line(report)
        report.pop("latency_ms")
        for key in ("prefill_ms", "step_ms_median"):
            report["decode"].pop(key)
        return report
    check("run_attention with decode steps: the command line's report, times aside",
          timing_aside(mine) == timing_aside(theirs))
    check("run_attention: EcoFormer's decode steps are the causal run's rows",
          mine["decode"]["max_abs_diff_vs_causal_rows"] == 0 and mine["decode"]["steps"] == 4)

    # every command prints through the captured stream, compress and its --help among them (fmt's own stdout once
    # escaped the capture and reached the terminal, returning "")
    compress_args = ["--scheme", "gact", "--bits", "4", "--shape", "16x64", "--device", "cpu", "--format", "json"]
    mine = json.loads(ecosim._ecosim.run_command(["compress", *compress_args]))
    theirs = json.loads(cli(exe, "compress", *compress_args))
    check("run_command(compress): the command line's JSON report, its time aside",
          {k: v for k, v in without_command_line(mine).items() if k != "latency_ms"}
          == {k: v for k, v in without_command_line(theirs).items() if k != "latency_ms"})
    check("run_command(compress --help) returns the help text",
          ecosim._ecosim.run_command(["compress", "--help"]) == cli(exe, "compress", "--help"))

    try:
        ecosim.count(model="no_such_model")
        check("an unknown model raises ecosim.Error", False)
    except ecosim.Error as e:
        run = subprocess.run([exe, "count", "--model", "no_such_model"], capture_output=True, text=True)
        check("an unknown model raises ecosim.Error with the command's message", str(e) in run.stderr,
              f"{e!s} not in {run.stderr!r}")
    try:
        ecosim.count(modle="pvt_v2_b0")
        check("a misspelt option raises ecosim.Error", False)
    except ecosim.Error as e:
        check("a misspelt option raises ecosim.Error naming it", "modle" in str(e), str(e))
    # a flag follows its value's truth: numpy's False leaves it out; a non-boolean value is refused, not taken for
    # a true flag (the command line refuses a bare word after a flag)
    layer = {"layer": "attention", "seq": 64}
    with_proj, without = ecosim.count(**layer), ecosim.count(**layer, no_proj=True)
    try:
        import numpy
        check("no_proj=numpy.False_ counts the projections",
              ecosim.count(**layer, no_proj=numpy.False_)["muls"] == with_proj["muls"] != without["muls"])
    except ImportError:
        pass
    try:
        ecosim.count(**layer, no_proj=0)
        check("no_proj=0 raises ecosim.Error", False)
    except ecosim.Error as e:
        check("no_proj=0 raises ecosim.Error naming the stray value", "unexpected argument '0'" in str(e), str(e))
    try:
        ecosim.trace(output="-", **layer)
        check("trace(output='-') raises ecosim.Error", False)
    except ecosim.Error as e:
        check("trace(output='-') raises ecosim.Error (standard output is not a file to read back)", "output='-'" in str(e))
    try:  # heads · inner wrapping to 0 in 64 bits: an error, not a division by zero
        import numpy
        ecosim._ecosim.mesa_quantize(numpy.zeros(4, numpy.float32), "fp32", 2**32, 2**32, ecosim._ecosim.MesaState(), 0)
        check("mesa_quantize with heads · inner past 2^64 raises ecosim.Error", False)
    except ImportError:
        pass
    except ecosim.Error as e:
        check("mesa_quantize with heads · inner past 2^64 raises ecosim.Error naming the layout", "heads" in str(e))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
