"""ecosim from Python: the command line's counts, traces, accelerator replays, comparisons and training steps as
plain Python data (dicts and lists, the commands' JSON reports), and in ecosim.torch the compression kernels as
PyTorch saved-tensor hooks and the op count of a live model. Errors raise ecosim.Error with the command's message.

    import ecosim
    ecosim.count(model="pvt_v2_b0", attention="ecoformer")["muls"]
    ecosim.train(model="resnet50", batch=32)["schemes"][0]["activation_bytes"]
"""
from ._ecosim import Error
from .commands import compare, count, gpu_time, replay, run_attention, trace, train

__all__ = ["Error", "compare", "count", "gpu_time", "replay", "run_attention", "trace", "train"]
