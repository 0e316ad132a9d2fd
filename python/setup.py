"""pip's way to the ecosim package: `pip install ./python` (in a virtual environment made with
--system-site-packages on Debian 12, which keeps Debian's numpy and torch visible) builds the extension module
with the project's own CMake build — the target ecosim_python in ECOSIM_BUILD_DIR (default: the project's build/,
configured here when it is not yet) — and installs it with the package's Python files. The version is the
project's (CMakeLists.txt)."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent.parent
VERSION = re.search(r"project\(ecosim VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


class CMakeBuild(build_ext):
    """Builds ecosim._ecosim with CMake and copies it where setuptools packages extensions."""

    def build_extension(self, ext):
        build = Path(os.environ.get("ECOSIM_BUILD_DIR", ROOT / "build")).resolve()
        if not (build / "CMakeCache.txt").exists():
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                            "-DECOSIM_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "ecosim_python", "--parallel",
                        str(os.cpu_count() or 1)], check=True)
        built = build / "python" / "ecosim" / Path(self.get_ext_filename(ext.name)).name
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, target)


setup(
    name="ecosim",
    version=VERSION,
    description="ecosim from Python: op counts, traces, accelerator replays, training steps, and the compression "
                "kernels as PyTorch saved-tensor hooks",
    packages=["ecosim", "ecosim.torch"],
    ext_modules=[Extension("ecosim._ecosim", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    install_requires=["numpy"],
)
