"""One training step of an ecosim zoo model measured in PyTorch, beside `ecosim train`'s model of the same step:
the step's time (forward, loss, backward, optimizer step; CUDA events on a GPU, the clock on the CPU; the median of
`repeats` after `warmup`), on a GPU the peak memory the caching allocator handed out (torch.cuda.
max_memory_allocated, as the activation-compression papers measure), and the bytes autograd saves for backward
(distinct storages, parameters and buffers excluded) — against `ecosim train`'s gpu_ms, peak_bytes and
activation_bytes for the same model, batch, scheme and optimizer.

Schemes: none; amp (autocast fp16 with a gradient scaler, GPU only); with the ecosim package importable also
gact:B, gact:avgB, mesa and fewbit:B through ecosim.torch's saved-tensor hooks — which stage each tensor through
host memory to the project's kernels, so on a GPU they measure the hooks as they are, not the scheme at its best;
mesa runs under autocast on a GPU, as Mesa trains (over amp) and as ecosim train prices it.
The networks come from the zoo entry (zoo_networks.py: ResNet, VGG, DeiT/ViT, BERT-like encoders).

usage: step_time.py --model NAME --batch B [--resolution R] [--schemes none,amp] [--optimizer sgd|adamw]
                    [--device auto|cpu|cuda] [--warmup 3] [--repeats 10] [--zoo FILE] [--ecosim EXE [--gpu NAME]]
                    [--json | --json-out FILE]
Runs on its own (python3 step_time.py ...) where the compiled ecosim module cannot be imported.
"""
import argparse
import contextlib
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

try:
    from . import zoo_networks
    from .. import files
except ImportError:  # run as a script: both beside it (the command line's embedded run hands them over)
    import zoo_networks
    try:
        import files
    except ImportError:  # from the source tree: the package's files.py, one folder up
        _spec = importlib.util.spec_from_file_location("files", Path(__file__).resolve().parent.parent / "files.py")
        files = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(files)

HOOK_SCHEMES = ("gact", "mesa", "fewbit")  # ecosim.torch's hooks, spelt as `ecosim train` spells them


def default_zoo():
    """The source tree's zoo file, beside this file's package (run from an ecosim checkout or build tree)."""
    return Path(__file__).resolve().parents[3] / "ops_counter" / "data" / "model_zoo.json"


def saved_activation_bytes(model, x):
    """Bytes of the distinct storages autograd saves in model(x), parameters and buffers excluded."""
    model.train()
    state = {t.storage().data_ptr() for t in list(model.parameters()) + list(model.buffers())}
    seen = {}

    def pack(t):
        storage = t.storage()
        if storage.data_ptr() not in state:
            seen.setdefault(storage.data_ptr(), storage.nbytes())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    del out
    return sum(seen.values())


def loss_of(output, labels):
    """A classifier's cross-entropy; an encoder without a head: the mean square of its output."""
    if labels is None:
        return output.float().pow(2).mean()
    return F.cross_entropy(output.float(), labels)


def hooks_for(scheme):
    """ecosim.torch's saved-tensor hooks for a compressed scheme (the package imported only here)."""
    try:
        import ecosim.torch as et
    except ImportError as e:
        raise ValueError(f"scheme '{scheme}' needs the ecosim package (PYTHONPATH=build/python): {e}")
    name, _, bits = scheme.partition(":")
    if name == "gact":
        return et.compressed_activations(scheme)
    return et.compressed_activations(name, bits=int(bits) if bits else None)


def measure_step(model, x, labels, scheme, optimizer_name, device, warmup, repeats):
    """{step_ms, step_ms_range, peak_bytes (GPU only)} of model's training step under `scheme`."""
    name = scheme.partition(":")[0]
    if scheme == "amp" and device.type != "cuda":
        raise ValueError("amp is measured on a GPU (autocast fp16 and its gradient scaler)")
    if scheme not in ("none", "amp") and name not in HOOK_SCHEMES:
        raise ValueError(f"scheme '{scheme}': measured are none, amp, gact:B, gact:avgB, mesa and fewbit:B "
                         "(the hooks take ActNN's bits, not its levels)")
    # a small learning rate: random data must not drive the weights to infinity over the steps timed
    optimizer = (torch.optim.AdamW(model.parameters(), lr=1e-5) if optimizer_name == "adamw" else
                 torch.optim.SGD(model.parameters(), lr=1e-5, momentum=0.9))
    # autocast for amp, and for mesa on a GPU: Mesa trains over amp (as ecosim train prices it)
    autocast = scheme == "amp" or (name == "mesa" and device.type == "cuda")
    scaler = torch.cuda.amp.GradScaler() if autocast else None

    checked = []  # whether the first step has shown the hooks compress something

    def step():
        with contextlib.ExitStack() as contexts:  # the network's forward pass (the loss after it, as the hooks'
            if autocast:                            # training tests do)
                contexts.enter_context(torch.autocast("cuda", dtype=torch.float16))
            if scheme != "amp":
                hooks = contexts.enter_context(hooks_for(scheme) if name in HOOK_SCHEMES else
                                               torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t))
            output = model(x)
            if name in HOOK_SCHEMES and not checked:  # once, in the first step: not inside the steps timed
                if not hooks.summary()["compressed_tensors"]:
                    raise ValueError(f"scheme '{scheme}' compressed none of the tensors this network saves (Few-Bit's "
                                     "codebooks take exact GELU, SiLU, ReLU, sigmoid and tanh, not GELU's tanh "
                                     "form): its time would be an uncompressed step's")
                checked.append(True)
        loss = loss_of(output, labels)
        (scaler.scale(loss) if scaler else loss).backward()
        if scaler:
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    model.train()
    for _ in range(warmup):
        step()
    times = []
    if device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        for _ in range(repeats):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            step()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        peak = torch.cuda.max_memory_allocated()
    else:
        for _ in range(repeats):
            t0 = time.perf_counter()
            step()
            times.append((time.perf_counter() - t0) * 1e3)
        peak = None
    return {"step_ms": statistics.median(times), "step_ms_range": [min(times), max(times)], "peak_bytes": peak}


def predicted(ecosim, args, schemes):
    """ecosim train's figures for the same step, by scheme (one run for all of them)."""
    argv = [ecosim, "train", *args, "--scheme", ",".join(schemes), "--format", "json"]
    run = subprocess.run(argv, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {run.stderr.strip()}")
    return {s["scheme"]: {k: s[k] for k in ("activation_bytes", "peak_bytes", "gpu_ms", "gpu_ms_kind")}
            for s in json.loads(run.stdout)["schemes"]}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--resolution", type=int)
    p.add_argument("--schemes", default="none")
    p.add_argument("--optimizer", choices=("sgd", "adamw"), default="sgd")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--zoo", type=Path, help="a zoo file (default: the source tree's ops_counter/data/model_zoo.json)")
    p.add_argument("--ecosim", help="the ecosim binary: add ecosim train's figures for the same step")
    p.add_argument("--gpu", help="ecosim's GPU file for its estimate (default: this GPU's, when ecosim has it: "
                                 "ecosim train --gpu-device)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--json-out", type=Path, help="write the JSON report into this file instead of printing it")
    a = p.parse_args(argv)
    if a.batch < 1 or a.warmup < 0 or a.repeats < 1:
        p.error("--batch and --repeats must be at least 1, --warmup at least 0")
    if a.device == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: this torch sees no GPU")
    device = torch.device("cuda" if a.device == "cuda" or (a.device == "auto" and torch.cuda.is_available())
                          else "cpu")
    torch.manual_seed(0)
    zoo_path = a.zoo or default_zoo()
    try:
        zoo = json.loads(zoo_path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"--zoo {zoo_path}: {e}")
    entry = zoo_networks.resolve(zoo, a.model)
    model = zoo_networks.network(entry)
    x = zoo_networks.example_input(entry, a.batch, a.resolution)
    labels = torch.randint(0, entry["num_classes"], (a.batch,)) if "num_classes" in entry else None
    saved = saved_activation_bytes(model, x)  # on the CPU: what autograd keeps does not depend on the device
    model, x = model.to(device), x.to(device)
    labels = labels.to(device) if labels is not None else None
    gpu_args = ["--gpu", a.gpu] if a.gpu else ["--gpu-device", torch.cuda.get_device_name()] if device.type == "cuda" \
        else []
    train_args = ["--model", a.model, "--batch", str(a.batch), "--optimizer", a.optimizer] + gpu_args + \
        (["--resolution", str(a.resolution)] if a.resolution else []) + \
        (["--model-file", str(a.zoo)] if a.zoo else [])
    report = {"model": a.model, "batch": a.batch, "optimizer": a.optimizer, "device": str(device),
              "device_name": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
              "torch": torch.__version__, "saved_activation_bytes": saved, "schemes": []}
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    schemes = a.schemes.split(",")
    estimates = predicted(a.ecosim, train_args, schemes) if a.ecosim else {}
    for scheme in schemes:
        model.load_state_dict(initial)  # every scheme from the same weights
        row = {"scheme": scheme, **measure_step(model, x, labels, scheme, a.optimizer, device, a.warmup, a.repeats)}
        if scheme in estimates:
            row["ecosim"] = estimates[scheme]
        report["schemes"].append(row)
    if a.json_out:
        files.write_atomically(a.json_out, json.dumps(report, indent=2))
        return
    if a.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{a.model} batch {a.batch}, {a.optimizer}, on {report['device_name']} (torch {torch.__version__}); "
          f"autograd saves {saved} B (fp32 forward)")
    for row in report["schemes"]:
        peak = f", peak {row['peak_bytes'] / 2**20:.0f} MiB" if row["peak_bytes"] else ""
        line = f"  {row['scheme']:<10} step {row['step_ms']:.2f} ms{peak}"
        if "ecosim" in row:
            e = row["ecosim"]
            line += f"; ecosim: {e['gpu_ms']:.2f} ms ({e['gpu_ms_kind'].split(':')[0]}), peak {e['peak_bytes'] / 2**20:.0f} MiB"
        print(line)


if __name__ == "__main__":
    try:
        main()
    except (ValueError, RuntimeError) as e:
        sys.exit(f"step_time: error: {e}")
