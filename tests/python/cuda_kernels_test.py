#!/usr/bin/python3
"""The CUDA path of the package's kernel bindings (issue 23): ActNN, Mesa and Few-Bit run through their CUDA entry
points from Python (device="cuda", what the hooks use for a tensor on a GPU) give results bit-identical to the CPU
references for the same inputs and seeds, as the kernels promise. Without a GPU it prints SKIPPED and exits 77, or
fails under ECOSIM_REQUIRE_GPU=1.

usage: cuda_kernels_test.py
"""
import os
import sys

import numpy as np

from ecosim import _ecosim


def main():
    probe = _ecosim.gpu_probe()
    if not probe["available"]:
        if os.environ.get("ECOSIM_REQUIRE_GPU") == "1":
            sys.exit(f"ECOSIM_REQUIRE_GPU=1 but no GPU ({probe['reason']})")
        print(f"SKIPPED: no GPU ({probe['reason']})")
        sys.exit(77)
    x = np.random.default_rng(0).standard_normal(32 * 3000).astype(np.float32)
    checks = {}
    for bits in ([2] * 32, [8] * 32, [1, 2, 4, 8] * 8):
        cpu = _ecosim.actnn_quantize(x, "fp32", bits, 7, "cpu")
        gpu = _ecosim.actnn_quantize(x, "fp32", bits, 7, "cuda")
        checks[f"actnn bits {sorted(set(bits))}"] = np.array_equal(
            _ecosim.actnn_dequantize(cpu, "cpu"), _ecosim.actnn_dequantize(gpu, "cuda"))
    states = (_ecosim.MesaState(), _ecosim.MesaState())
    for step in range(3):  # the running (α, β) advance alike
        cpu = _ecosim.mesa_quantize(x * (1 + step), "fp32", 16, 100, states[0], step, "cpu")
        gpu = _ecosim.mesa_quantize(x * (1 + step), "fp32", 16, 100, states[1], step, "cuda")
        checks[f"mesa step {step}"] = np.array_equal(_ecosim.mesa_dequantize(cpu, "cpu"),
                                                     _ecosim.mesa_dequantize(gpu, "cuda"))
    book = _ecosim.fewbit_codebook("gelu", 2)
    out_cpu, codes_cpu = _ecosim.fewbit_forward(book, x, "fp32", "cpu")
    out_gpu, codes_gpu = _ecosim.fewbit_forward(book, x, "fp32", "cuda")
    checks["fewbit codes"] = np.array_equal(codes_cpu, codes_gpu)
    checks["fewbit f(x) within 1 fp32 ulp"] = bool(np.all(np.abs(out_cpu - out_gpu) <= np.spacing(np.abs(out_cpu))))
    grad = np.ones_like(x)
    checks["fewbit backward"] = np.array_equal(_ecosim.fewbit_backward(book, codes_cpu, grad, "fp32", "cpu"),
                                               _ecosim.fewbit_backward(book, codes_gpu, grad, "fp32", "cuda"))
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name} on {probe['device_name']}: CUDA as the CPU reference")
    sys.exit(0 if all(checks.values()) else 1)


if __name__ == "__main__":
    main()
