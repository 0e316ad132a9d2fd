#!/usr/bin/env python3
"""Each kernel's resources from `cuobjdump --dump-resource-usage` (registers, stack frame, local and shared
memory, for the sm_90 code) as a Markdown table on stdout, kernels that use a stack frame or local memory
(register spills, or an array the compiler could not keep in registers) first. Exit status 1 when any does.

usage: gpu_resource_table.py CUOBJDUMP_OUTPUT
"""
import re
import subprocess
import sys

FIELDS = ("REG", "STACK", "SHARED", "LOCAL")


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, timeout=10)
        demangled = out.stdout.splitlines()
        return demangled if len(demangled) == len(names) else names
    except (OSError, subprocess.SubprocessError):
        return names


def kernels(text):
    """(mangled name, {field: value}) for each function of the sm_90 code."""
    arch, name, found = None, None, []
    for line in text.splitlines():
        m = re.match(r"\s*arch = (sm_\d+)", line)
        if m:
            arch = m.group(1)
            continue
        m = re.match(r"\s*Function ([^:\s]+):", line)
        if m:
            name = m.group(1)
            continue
        if name and arch == "sm_90" and "REG:" in line:
            values = dict(re.findall(r"([A-Z]+):(\d+)", line))
            found.append((name, {f: int(values.get(f, 0)) for f in FIELDS}))
            name = None
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        found = kernels(f.read())
    if not found:
        sys.exit("gpu_resource_table: no sm_90 function in " + sys.argv[1])
    names = demangle([n for n, _ in found])
    rows = sorted(zip(names, (v for _, v in found)), key=lambda r: (-(r[1]["STACK"] + r[1]["LOCAL"]), r[0]))
    print("| kernel | " + " | ".join(f.lower() for f in FIELDS) + " |")
    print("|---|" + "---|" * len(FIELDS))
    for name, v in rows:
        short = name if len(name) <= 90 else name[:87] + "..."
        print("| `%s` | %s |" % (short, " | ".join(str(v[f]) for f in FIELDS)))
    spilling = sum(1 for _, v in rows if v["STACK"] or v["LOCAL"])
    print("\n%d kernel(s), %d with a stack frame or local memory" % (len(rows), spilling))
    return 1 if spilling else 0


if __name__ == "__main__":
    raise SystemExit(main())
