"""compressed_activations(scheme, bits=None): PyTorch saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks)
that compress every floating tensor autograd saves during the forward pass with the project's kernels and restore
it when backward reads it, whatever the architecture (as GACT does).

Kept as they are: the parameters and buffers of `model` when given (BatchNorm's running statistics; without a
model, any leaf tensor that requires a gradient, and views of one, is taken for a parameter), integer and boolean
tensors, and tensors under `min_elements` elements (norms' per-channel
statistics, scalars). ReLU keeps the exact 1-bit mask of its derivative instead of its output under every scheme,
as ActNN's ReLU does (a quantized output would turn small positive values into zeros and cut their gradients),
through Few-Bit's 1-bit ReLU (ecosim.torch.fewbit). A tensor saved twice in one step (a ReLU's output that the
next conv also saves, or a reshaped view of it: attention probabilities saved by the softmax as [B, H, N, N] and
by the context matmul as [B·H, N, N]) is compressed once, as GACT's duplicate check does: it is recognised by its
address, version and element count when contiguous (else also its shape and strides) while the tensor first
packed is still alive (a weak reference), since memory freed after packing may hold a new tensor at the same
address. GACT itself quantizes only what its quantizer takes (ecosim.torch.schemes.GACT.takes): tensors that
require a gradient, of 2 to 4 dimensions — a network's input images and norms' statistics stay as they are.

Statistics: `stats` lists this step's saved tensors (shape, dtype, bits, bytes_before, bytes_after, ...) and
summary() totals them; a step starts at the first tensor saved after a backward pass has read one, so both stay
readable after loss.backward() until the next forward pass.
"""
import itertools
import weakref

import torch

from .fewbit import ACTIVATIONS, patched
from .schemes import Packed, make_scheme
from .tensors import element_bytes


def is_parameter(t):
    """A parameter (a leaf that requires grad) or a view of one (Linear saves weight.t())."""
    base = t._base if t._base is not None else t
    return base.is_leaf and base.requires_grad


class SharedView:
    """A tensor saved again under another shape, restored from the first save's codes."""
    __slots__ = ("packed", "shape")

    def __init__(self, packed, shape):
        self.packed, self.shape = packed, shape


def same_bytes_key(t):
    """What makes two saved tensors the same values: a contiguous one's address, version and element count (any
    shape), a strided one's shape and strides too."""
    if t.is_contiguous():
        return (t.data_ptr(), t._version, t.numel(), t.dtype)
    return (t.data_ptr(), t._version, tuple(t.shape), tuple(t.stride()), t.dtype)


class CompressedActivations:
    def __init__(self, scheme, bits=None, seed=0, min_elements=256, model=None):
        self.scheme = make_scheme(scheme, bits)
        state = [] if model is None else [*model.parameters(), *model.buffers()]
        self.state_storages = {t.storage().data_ptr() for t in state}
        self.name, self.bits, self.seed, self.min_elements = scheme, self.scheme.bits, seed, min_elements
        self.model = model
        self.steps, self.stats = 0, []
        self.seen, self.storages, self.numbers, self.position, self.backward_started = {}, {}, None, 0, False
        self.hooks, self.patches = None, None

    def __enter__(self):
        self.hooks = torch.autograd.graph.saved_tensors_hooks(self.pack, self.unpack)
        self.hooks.__enter__()
        activations = ACTIVATIONS if self.scheme.name == "fewbit" else ["relu"]
        modules = () if self.model is None else list(self.model.modules())
        self.patches = patched(activations, self.bits, self.record_fewbit, modules).__enter__()
        return self

    def __exit__(self, *exc):
        if self.patches is not None:
            self.patches.__exit__(*exc)
            self.patches = None
        self.hooks.__exit__(*exc)

    def start_step_if_new(self):
        if self.steps and not self.backward_started:
            return
        if self.steps:
            self.scheme.end_step(self.stats)
        self.steps += 1
        self.stats, self.seen, self.storages, self.position, self.backward_started = [], {}, {}, 0, False
        self.numbers = itertools.count()

    def storage_id(self, t):
        """A number naming t's storage in this step: the same while any tensor of it packed so far lives."""
        ptr = t.storage().data_ptr()
        tensors, number = self.storages.get(ptr, ([], None))
        if not any(ref() is not None for ref in tensors):
            tensors, number = [], next(self.numbers)
        tensors.append(weakref.ref(t))
        self.storages[ptr] = (tensors, number)
        return number

    def stat(self, t, **fields):
        entry = {"index": len(self.stats), "shape": tuple(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
                 "bytes_before": element_bytes(t), "bytes_after": element_bytes(t), "bits": 8 * t.element_size(),
                 "storage": self.storage_id(t), "storage_bytes": t.storage().nbytes(), "compressed": False,
                 "state": False, "shared": False}
        entry.update(fields)
        self.stats.append(entry)

    def pack(self, t):
        self.start_step_if_new()
        # parameters and buffers: the model's, by their storage, when it is given; else any leaf that requires a
        # gradient (and views of one) is taken for a parameter
        if t.storage().data_ptr() in self.state_storages if self.state_storages else is_parameter(t):
            self.stat(t, state=True)
            return t
        if not t.is_floating_point() or t.numel() < self.min_elements or not self.scheme.takes(t):
            self.stat(t)
            return t
        key = same_bytes_key(t)
        first, packed = self.seen.get(key, (lambda: None, None))
        if first() is not None:
            self.stat(t, bytes_after=0, shared=True, compressed=packed is not None)
            if packed is None:
                return t
            return packed if packed.shape == t.shape else SharedView(packed, t.shape)
        seed = (self.seed * 1_000_003 + self.steps * 65_537 + self.position) & (2**63 - 1)
        packed = self.scheme.pack(t, self.position, seed)
        self.position += 1
        if packed is None:
            self.seen[key] = (weakref.ref(t), None)
            self.stat(t)
            return t
        self.seen[key] = (weakref.ref(t), packed)
        self.stat(t, bytes_after=packed.storage_bytes, bits=packed.bits, compressed=True)
        return packed

    def unpack(self, packed):
        self.backward_started = True
        if isinstance(packed, SharedView):
            return packed.packed.scheme.unpack(packed.packed).reshape(packed.shape)
        return packed.scheme.unpack(packed) if isinstance(packed, Packed) else packed

    def record_fewbit(self, x, code_bytes, bits, activation):
        self.start_step_if_new()
        # what autograd keeps without the drop-in: ReLU its output (a storage the next layer keeps too), the others
        # their input (kept by no other layer)
        self.stat(x, bytes_after=code_bytes, bits=bits, compressed=True, activation=True,
                  saves_input=activation != "relu")

    def summary(self):
        """This step's totals: tensors, bytes_before/after (each tensor the hooks were handed once; parameters and
        buffers left out), saved_storage_bytes — the distinct storages autograd would keep uncompressed (what
        `ecosim train` predicts as activation_bytes) — and ratio, saved_storage_bytes / bytes_after: the
        activation memory without the hooks over with them. (bytes_before counts a tensor each layer saves apart,
        a ReLU's input and the next layer's copy of its output both, where autograd shares one storage.)"""
        held = [s for s in self.stats if not s["state"]]
        fresh = [s for s in held if not s["shared"]]
        before = sum(s["bytes_before"] for s in fresh)
        after = sum(s["bytes_after"] for s in fresh)
        storages = {s["storage"]: s["storage_bytes"] for s in held if not s.get("activation") or s.get("saves_input")}
        return {"step": self.steps, "scheme": self.name, "bits": self.bits, "tensors": len(held),
                "compressed_tensors": sum(s["compressed"] for s in fresh), "bytes_before": before,
                "bytes_after": after, "saved_storage_bytes": sum(storages.values()),
                "ratio": sum(storages.values()) / after if after else float("inf")}


def compressed_activations(scheme, bits=None, seed=0, min_elements=256, model=None):
    """with compressed_activations("actnn", bits=2) as ca: ... — see the module's documentation; the schemes
    and their default bits: ecosim.torch.schemes."""
    return CompressedActivations(scheme, bits, seed, min_elements, model)
