"""The ecosim commands run in this process (the extension's run_command, no shell), keyword arguments mapped to the
command line's options and the JSON report returned as Python data. The one exception is engine="systemc": this
module leaves the SystemC engine out of its process (libsystemc sets up a simulation kernel as it loads), so a
command asked for it runs the ecosim command line as a child process (no shell): $ECOSIM_CLI, else the build
tree's bin/ecosim beside this package, else `ecosim` on PATH.

Options mirror `ecosim COMMAND --help`: a keyword is its option with '-' written '_' (per_layer=True for
--per-layer), True gives a flag, None or False leaves the option out, a list or tuple is joined with commas
(variants=["msa", "ecoformer"]); the command line checks every option, so a misspelt one raises ecosim.Error.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import _ecosim
from .files import write_atomically


def is_boolean(value):
    """True for Python's and numpy's booleans (numpy is not imported for it)."""
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def arguments(options):
    """The command-line arguments of keyword options (see the module's documentation). A flag is given for a true
    boolean and left out for a false one; any other value follows its option (a flag's refuses it)."""
    argv = []
    for key, value in options.items():
        if value is None or (is_boolean(value) and not value):
            continue
        # a trailing underscore is Python's escape of a keyword (pass_="bwd" for --pass)
        flag = "--" + (key[:-1] if key.endswith("_") else key).replace("_", "-")
        if is_boolean(value):
            argv.append(flag)
        elif isinstance(value, (list, tuple)):
            argv += [flag, ",".join(str(v) for v in value)]
        else:
            argv += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return argv


def systemc_command_line():
    """The ecosim command line that runs a command with engine="systemc" (see the module's documentation)."""
    named = os.environ.get("ECOSIM_CLI")
    if named:
        if os.path.isfile(named) and os.access(named, os.X_OK):
            return named
        raise _ecosim.Error(f"ECOSIM_CLI names '{named}', which is not an executable file")
    beside = Path(_ecosim.__file__).resolve().parents[2] / "bin" / "ecosim"  # build/python/ecosim -> build/bin
    for candidate in (os.fspath(beside), shutil.which("ecosim")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise _ecosim.Error("engine='systemc' runs the ecosim command line in a child process (this module leaves "
                        "SystemC out of its own): none found beside the package or on PATH; name it in ECOSIM_CLI, "
                        "or use engine='closed-form'")


def run(command, options, *extra):
    """Runs `ecosim COMMAND EXTRA... OPTIONS...` and returns what it printed (the user's options last: a flag given
    to an option that takes a value then meets no value to swallow, and the command names it as missing)."""
    for reserved in ("format", "help"):
        if reserved in options:
            raise _ecosim.Error(f"ecosim.{command} takes no {reserved}= (it returns the JSON report as Python data)")
    argv = [command, *extra, *arguments(options)]
    if options.get("engine") != "systemc":
        return _ecosim.run_command(argv)
    child = subprocess.run([systemc_command_line(), *argv], capture_output=True, text=True)
    sys.stderr.write(child.stderr if child.returncode == 0 else "")  # progress lines, as in this process
    if child.returncode != 0:
        prefix = f"ecosim {command}: error: "
        lines = [line for line in child.stderr.splitlines() if line.strip()]
        message = next((line[len(prefix):] for line in reversed(lines) if line.startswith(prefix)),
                       lines[-1] if lines else f"exit status {child.returncode}")
        raise _ecosim.Error(message)
    return child.stdout


def count(**options):
    """`ecosim count` (a zoo model, --onnx file, one attention layer or a trace): its JSON report as a dict."""
    return json.loads(run("count", options, "--format", "json"))


def iter_trace(path):
    """A trace file as it streams: (header, records), `records` an iterator of its op-record dicts, each read and
    validated by the command line's own trace reader as `count --trace` and `replay` read it (a version-1 file
    converted to version 2); a bad line raises ecosim.Error "<file>:<line>: ..." when the iteration reaches it."""
    reader = _ecosim.TraceRecords(os.fspath(path))
    return json.loads(reader.header), (json.loads(text) for text in reader)


def read_trace(path):
    """A trace file as {"header": ..., "records": [...]}: its header and op records (the end record, whose count
    the reader checks, left out), validated as iter_trace validates them."""
    header, records = iter_trace(path)
    return {"header": header, "records": list(records)}


def write_trace(trace_data, path):
    """Writes a trace read by read_trace (or returned by trace()) back as JSON Lines, with its end record."""
    if not isinstance(trace_data, dict) or not {"header", "records"} <= trace_data.keys():
        raise _ecosim.Error("a trace is {\"header\": {...}, \"records\": [...]}, as trace() returns it")
    records = list(trace_data["records"])
    lines = [json.dumps(trace_data["header"])] + [json.dumps(r) for r in records]
    lines.append(json.dumps({"record": "end", "ops": len(records)}))
    write_atomically(path, "\n".join(lines) + "\n")


def trace(output=None, **options):
    """`ecosim trace`: the analytic op trace as {"header": ..., "records": [...]}; also kept in `output` when given."""
    if output is not None:
        if os.fspath(output) == "-":
            raise _ecosim.Error("trace: output='-' is standard output; give a file, or no output to get the records")
        run("trace", options, "-o", os.fspath(output))
        return read_trace(output)
    with tempfile.TemporaryDirectory(prefix="ecosim-") as folder:
        path = Path(folder) / "trace.jsonl"
        run("trace", options, "-o", str(path))
        return read_trace(path)


def replay(trace_source, **options):
    """`ecosim replay` of a trace file, or of the data trace() returned: the JSON report as a dict."""
    if isinstance(trace_source, dict):
        with tempfile.TemporaryDirectory(prefix="ecosim-") as folder:
            path = Path(folder) / "trace.jsonl"
            write_trace(trace_source, path)
            return json.loads(run("replay", options, "--format", "json", "--trace", str(path)))
    return json.loads(run("replay", options, "--format", "json", "--trace", os.fspath(trace_source)))


def compare(out=None, **options):
    """`ecosim compare`: compare.json as a dict; the report folder (traces, CSV, plot) kept in `out` when given."""
    if out is not None:
        run("compare", options, "--out", os.fspath(out))
        return json.loads((Path(out) / "compare.json").read_text())
    with tempfile.TemporaryDirectory(prefix="ecosim-") as folder:
        run("compare", options, "--out", folder)
        return json.loads((Path(folder) / "compare.json").read_text())


def run_attention(**options):
    """`ecosim run`: one attention variant's kernel (and with decode_steps=T its decode steps) on synthetic or .npy
    input: the JSON report as a dict (the command is `run`; this name keeps it apart from running a command)."""
    return json.loads(run("run", options, "--format", "json"))


def gpu_time(**options):
    """`ecosim gpu-time`: one op on a named GPU, as accel_model's GPU model prices it: the JSON report as a dict."""
    return json.loads(run("gpu-time", options, "--format", "json"))


def train(**options):
    """`ecosim train`: the training step's JSON report as a dict (out= also writes the report folder)."""
    return json.loads(run("train", options, "--format", "json"))
