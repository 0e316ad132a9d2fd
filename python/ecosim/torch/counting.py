"""count(model, example_inputs, attention=None): a live torch model exported to ONNX in memory (no file) and
counted by ecosim's ONNX importer as `ecosim count --onnx` counts the same export: totals, per-layer rows, the
attention blocks found, and optionally every block swapped for another variant (with its parameters)."""
import io
from pathlib import Path

import torch

from .. import _ecosim

OPSET = 17  # as scripts/export_models.py


def export(model, example_inputs):
    """The model's ONNX export (eval mode, constant folding, opset 17) as bytes. Gradients stay enabled, as
    scripts/export_models.py exports: without them nn.MultiheadAttention takes its inference fast path, which
    has no ONNX form. An export torch refuses is an ecosim.Error naming the model."""
    inputs = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
    buffer = io.BytesIO()
    was_training = model.training
    model.eval()
    try:
        with torch.enable_grad():
            torch.onnx.export(model, inputs, buffer, opset_version=OPSET, do_constant_folding=True)
    except Exception as failure:  # torch's export errors (an unsupported operator, a tracing failure)
        raise _ecosim.Error(f"{type(model).__name__}: torch.onnx.export failed: {failure}") from failure
    finally:
        model.train(was_training)
    return buffer.getvalue()


def count(model, example_inputs, attention=None, convention="paper", per_layer=False, strict=False, save_onnx=None,
          rules="mmcv", scope="model", **parameters):
    """The ops and 45 nm energy of model(*example_inputs): muls, adds, energy_pj, bytes_read, bytes_written,
    attention_blocks (nodes and shapes), unknown_ops (op types counted as zero), unmatched_attention (attention
    softmax nodes in no found block), and `layers` with per_layer.
    attention: a variant ("ecoformer", "performer", ...) replacing every block, parameters as integer keywords
    (bits=8, features=128); None or "native" keeps the export's own attention. rules "fvcore" (convention
    "paper") counts conv, linear and matmul MACs only; scope "attention" the attention blocks only, as the
    command line's --rules and --scope. save_onnx: also write the export there (to count it with the command
    line). A keyword that is neither an option nor an attention parameter, or a parameter that is not an
    integer, is an ecosim.Error."""
    for key, value in parameters.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise _ecosim.Error(f"count: {key}={value!r}: an attention parameter is an integer "
                                "(options: attention, convention, per_layer, strict, save_onnx, rules, scope)")
    data = export(model, example_inputs)
    if save_onnx is not None:
        Path(save_onnx).write_bytes(data)
    origin = f"{type(model).__name__} (in-memory export)"
    return _ecosim.count_onnx(data, origin, attention, parameters, convention, strict, per_layer, rules, scope)
