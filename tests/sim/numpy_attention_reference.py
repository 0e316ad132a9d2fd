# An independent reference for `validate --params`: Performer or Linformer computed with numpy from the .npy
# files of an `ecosim run --save-inputs` folder (its manifest.json names them), written as a float32 output.
# Usage: numpy_attention_reference.py DIR OUT.npy [PERTURB]: PERTURB (default 0) is added to one value.
import json
import os
import sys

import numpy as np


def load(folder, manifest, name):
    entry = next(f for f in manifest["files"] if f["name"] == name)
    array = np.load(os.path.join(folder, entry["file"])).astype(np.float64)
    assert list(array.shape) == entry["shape"], (name, array.shape, entry["shape"])
    return array


def softmax_attention(q, k, v):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)) @ v


def performer(folder, manifest, q, k, v):
    omega = load(folder, manifest, "omega")  # F x D, row f is w_f
    features, dim = omega.shape

    def phi(x):
        x = x / dim ** 0.25
        return np.exp(x @ omega.T - 0.5 * (x * x).sum(axis=-1, keepdims=True)) / np.sqrt(features)

    phi_q, phi_k = phi(q), phi(k)
    numerator = phi_q @ (np.swapaxes(phi_k, -1, -2) @ v)
    denominator = phi_q @ phi_k.sum(axis=-2)[..., None]
    return numerator / denominator


def linformer(folder, manifest, q, k, v):
    e = load(folder, manifest, "length_projection")  # k x N, one E for every batch and head
    return softmax_attention(q, e @ k, e @ v)


def main():
    folder, out = sys.argv[1], sys.argv[2]
    perturb = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    q, k, v = (load(folder, manifest, name) for name in ("q", "k", "v"))
    result = {"performer": performer, "linformer": linformer}[manifest["variant"]](folder, manifest, q, k, v)
    result = result.astype(np.float32)
    result.flat[7] += np.float32(perturb)
    np.save(out, result)


if __name__ == "__main__":
    main()
