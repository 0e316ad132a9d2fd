"""Torch tensors to and from the kernels' numpy inputs and outputs: fp32 values, or the raw 16-bit words of
fp16 and bf16 (the kernels convert them on load); other floating types go through fp32. A tensor on a GPU is
copied to host memory (the kernels' CUDA entry points take host buffers) and its kernels run on the GPU."""
import numpy as np
import torch

KERNEL_DTYPES = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16"}


def kernel_input(t):
    """(flat numpy array, dtype name, device name) of a floating tensor, for the kernels."""
    x = t.detach()
    if x.dtype not in KERNEL_DTYPES:
        x = x.float()
    x = x.contiguous().reshape(-1).cpu()
    name = KERNEL_DTYPES[x.dtype]
    array = x.numpy() if name == "fp32" else x.view(torch.int16).numpy()  # the 16-bit words, as they are
    return array, name, "cuda" if t.is_cuda else "cpu"


def from_fp32(values, shape, dtype, device):
    """A tensor of `shape`, `dtype` and `device` from the kernels' flat fp32 output."""
    return torch.from_numpy(values).reshape(shape).to(device=device, dtype=dtype)


def dense_stride(t):
    """t's strides where they lay its elements out densely in another order than row-major (channels_last), else
    None: a view's (a slice's gaps, an expansion's repeats) would be rebuilt over its whole span."""
    formats = [torch.channels_last] if t.dim() == 4 else [torch.channels_last_3d] if t.dim() == 5 else []
    return t.stride() if not t.is_contiguous() and any(t.is_contiguous(memory_format=f) for f in formats) else None


def laid_out(t, stride):
    """t with the strides of the tensor it restores (dense_stride; None: as it is): a channels_last activation
    comes back channels_last (torch 1.13's CPU backward of the exact GELU is wrong when its saved input and its
    incoming gradient differ in layout)."""
    if stride is None or t.stride() == tuple(stride):
        return t
    return torch.empty_strided(t.shape, stride, dtype=t.dtype, device=t.device).copy_(t)


def from_raw(values, shape, dtype, device):
    """A tensor from a kernel's raw output elements (fp32 values, or fp16/bf16 words as uint16), of its own: not a
    view (a custom Function's output that is a view of a tensor made inside it cannot be modified in place)."""
    if values.dtype == np.uint16 and dtype == torch.bfloat16:  # numpy has no bf16: torch reads the words as a view
        return torch.from_numpy(values.view(np.int16)).view(dtype).reshape(shape).clone().to(device=device)
    if values.dtype == np.uint16:
        values = values.view(np.float16)
    return torch.from_numpy(values.reshape(shape)).to(device=device, dtype=dtype)


def element_bytes(t):
    return t.element_size() * t.numel()
