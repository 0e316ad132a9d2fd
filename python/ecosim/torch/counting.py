"""count(model, example_inputs, attention=None, ...): a live torch model exported to ONNX and counted by
`ecosim count --onnx` itself (in this process): the command's JSON report — totals, per-layer rows, the attention
blocks found and their shapes — with every block optionally swapped for another variant (with its parameters)."""
import io
import tempfile
import warnings
from pathlib import Path

import torch

from .. import _ecosim
from ..commands import count as count_command
from ..files import write_atomically

OPSET = 17  # as scripts/export_models.py


def export(model, example_inputs):
    """The model's ONNX export (eval mode, constant folding, opset 17) as bytes; every submodule's mode is
    restored after it. Eval mode is the model's own (TrainingMode.PRESERVE after model.eval()), not torch's EVAL
    export, whose peephole pass folds each BatchNorm into the Conv before it (BN's per-element multiply and add
    would go uncounted). Gradients stay enabled, as scripts/export_models.py exports: without them
    nn.MultiheadAttention takes its inference fast path, which has no ONNX form. Inside compressed_activations,
    its hooks see nothing of the export (which saves tensors for a backward that never runs). An export torch
    refuses is an ecosim.Error naming the model."""
    inputs = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
    buffer = io.BytesIO()
    modes = [(module, module.training) for module in model.modules()]  # each submodule's own (a frozen BN's eval)
    model.eval()
    try:
        # gradients on; compressed_activations' hooks, when active, shadowed by ones keeping every tensor as it is
        with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t), \
                warnings.catch_warnings():
            # torch warns that folding constants mutates a model exported for training: this one is in eval mode
            warnings.filterwarnings("ignore", message="It is recommended that constant folding be turned off")
            torch.onnx.export(model, inputs, buffer, opset_version=OPSET, do_constant_folding=True,
                              training=torch.onnx.TrainingMode.PRESERVE)
    except Exception as failure:  # torch's export errors (an unsupported operator, a tracing failure)
        raise _ecosim.Error(f"{type(model).__name__}: torch.onnx.export failed: {failure}") from failure
    finally:
        for module, training in modes:
            module.training = training
    return buffer.getvalue()


def count(model, example_inputs, /, attention=None, save_onnx=None, **options):
    """`ecosim count --onnx` of model(*example_inputs)'s export: the command's JSON report as a dict (muls, adds,
    energy_pj, bytes_read, bytes_written, ops, workload — attention_shapes, unknown_ops, unmatched_attention —
    and `layers` with per_layer=True).
    attention: a variant ("ecoformer", "performer", ...) replacing every block, its parameters as keywords
    (bits=8, features=128); None keeps the export's own attention. Every other keyword is the command's option
    (convention, per_layer, strict, rules, scope, tech_table), checked by the command line. save_onnx: keep the
    export there (the report names it); else it is written to a temporary folder for the count."""
    for taken in ("onnx", "model"):
        if taken in options:
            raise _ecosim.Error(f"ecosim.torch.count counts the model it is given: no {taken}= "
                                f"(ecosim.count takes one)")
    data = export(model, example_inputs)
    options = dict(attention=attention, **options)
    if save_onnx is not None:
        write_atomically(save_onnx, data)
        return count_command(onnx=save_onnx, **options)
    with tempfile.TemporaryDirectory(prefix="ecosim-") as folder:
        path = Path(folder) / f"{type(model).__name__}.onnx"
        path.write_bytes(data)
        return count_command(onnx=path, **options)
