"""Which library's initialiser crashes `import ecosim` once numpy is loaded (gpu-check stage 1, where the import
failed): imports numpy as the package's users do, then loads the extension module's shared libraries one at a
time with ctypes, each library's own dependencies first (the order `ldd` resolves, reversed), printing each name
before it loads, then imports the module itself. A crash leaves the culprit as the last "loading" line; the last
line printed is "every library loaded; importing the module" when each of them loaded (one that cannot load alone, such as
SystemC needing the program's sc_main, is deferred to the module's own load).

usage: gpu_import_probe.py MODULE.so
"""
import ctypes
import subprocess
import sys


def libraries(module):
    """The resolved paths `ldd` lists for the module, in its order (none for the loader and vDSO)."""
    listing = subprocess.run(["ldd", module], check=True, capture_output=True, text=True).stdout
    paths = []
    for line in listing.splitlines():
        if "=>" in line:
            target = line.split("=>", 1)[1].strip().split(" (", 1)[0]
            if target.startswith("/"):
                paths.append(target)
    return paths


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    module = sys.argv[1]
    import numpy  # noqa: F401  (the state the failing import found: numpy's own libraries loaded first)
    for path in reversed(libraries(module)):
        print("loading", path, flush=True)
        try:
            ctypes.CDLL(path)
        except OSError as error:  # e.g. SystemC needs the program's sc_main: it loads with the module below
            print("  deferred to the module:", error, flush=True)
    print("loading", module, "(dlopen, then the module's initialiser through import)", flush=True)
    ctypes.CDLL(module)
    print("every library loaded; importing the module (a crash now is in its initialiser)", flush=True)
    sys.path.insert(0, str(__import__("pathlib").Path(module).parent.parent))
    __import__("ecosim._ecosim")
    print("imported: no crash in this order", flush=True)


if __name__ == "__main__":
    main()
