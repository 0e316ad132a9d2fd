#!/usr/bin/python3
"""Comparing attention variants from Python: `ecosim compare` on one attention layer (kernels on the CPU, the
accelerator's closed-form engine), its report as a dict, printed as latency and energy relative to MSA.

    PYTHONPATH=build/python python/examples/compare_variants.py
"""
import ecosim

report = ecosim.compare(batch=1, seq=1024, dim=32, variants=["msa", "performer", "linformer", "ecoformer"],
                        device="cpu", engine="closed-form")
print(f"{'variant':<10} {'muls':>14} {'accel ms':>10} {'× MSA':>7} {'accel µJ':>10} {'× MSA':>7}")
for row in report["variants"]:
    print(f"{row['name']:<10} {row['muls']:>14,} {row['accel_latency_ms']:>10.4f} {row['latency_ratio_msa']:>7.3f} "
          f"{row['accel_energy_pj'] / 1e6:>10.3f} {row['energy_ratio_msa']:>7.3f}")
