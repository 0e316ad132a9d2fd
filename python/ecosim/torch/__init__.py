"""ecosim for PyTorch models (needs torch; Debian 12's python3-torch 1.13 is enough):

- compressed_activations(scheme, bits=None): saved-tensor hooks compressing what autograd keeps with the
  project's ActNN, GACT, Mesa or Few-Bit kernels (ecosim.torch.hooks, ecosim.torch.schemes);
- FewBitGELU, FewBitSiLU, FewBitReLU, FewBitSigmoid, FewBitTanh: drop-in Few-Bit activations;
- MesaSoftmax, MesaGELU, MesaLayerNorm: drop-in modules keeping what backward reads as Mesa's 8-bit codes;
- count(model, example_inputs, attention=None): the op count of a live model: its ONNX export by `ecosim count --onnx`.
"""
from .counting import count, export
from .fewbit import FewBitGELU, FewBitReLU, FewBitSiLU, FewBitSigmoid, FewBitTanh
from .hooks import CompressedActivations, compressed_activations
from .mesa import MesaGELU, MesaLayerNorm, MesaSoftmax
from .schemes import DEFAULT_BITS

__all__ = ["CompressedActivations", "DEFAULT_BITS", "FewBitGELU", "FewBitReLU", "FewBitSiLU", "FewBitSigmoid",
           "FewBitTanh", "MesaGELU", "MesaLayerNorm", "MesaSoftmax", "compressed_activations", "count", "export"]
