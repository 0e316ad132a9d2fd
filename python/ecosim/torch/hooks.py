"""compressed_activations(scheme, bits=None): PyTorch saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks)
that compress every floating tensor autograd saves during the forward pass with the project's kernels and restore
it when backward reads it, whatever the architecture (as GACT does).

Kept as they are: parameters (any nn.Parameter, and views of one), the buffers of `model` when given (BatchNorm's
running statistics; without a model, any leaf tensor that requires a gradient, and views of one, is taken for a
parameter), integer and boolean tensors, empty tensors, tensors under `min_elements` elements (norms'
per-channel statistics, scalars) and broadcast views (a dimension of stride 0: an expanded gate, whose storage is
smaller than its elements; counted at its storage's bytes). ReLU keeps the exact 1-bit mask of its derivative
instead of its output under every scheme, as ActNN's ReLU does (a quantized output would turn small positive values
into zeros and cut their gradients), through Few-Bit's 1-bit ReLU (ecosim.torch.fewbit). A tensor saved twice
in one step (a ReLU's output that the next conv also saves, or a reshaped view of it: attention probabilities
saved by the softmax as [B, H, N, N] and by the context matmul as [B·H, N, N]) is compressed once, as GACT's duplicate check does: it is recognised by its
address, version and element count when contiguous (else also its shape and strides) while the tensor first
packed is still alive (a weak reference), since memory freed after packing may hold a new tensor at the same
address. GACT itself quantizes only what its quantizer takes (ecosim.torch.schemes.GACT.takes): tensors that
require a gradient, of 2 to 4 dimensions — a network's input images and norms' statistics stay as they are.

A saved tensor modified in place before backward reads it raises torch's own error, as torch checks the tensors it
saves itself (its check skips tensors that hooks pack): each save records its tensor's version, compared at
unpack while the tensor, or the base it is a view of, is alive. (Few-Bit's codes are taken from the input as the
forward pass computes it: a later in-place change of the input or output leaves the gradient that of the forward.)

Statistics: `stats` lists this step's saved tensors (shape, dtype, bits, bytes_before, bytes_after, ...) and
summary() totals them. A step is a forward pass and the backward pass that ends it (not an optimizer's iteration:
under gradient accumulation each micro-batch is a step): it starts at the first tensor saved after a backward pass
without create_graph has ended, or has raised, so stats stay readable after loss.backward() until the next forward
pass; what is saved during a backward pass (create_graph=True, the recomputation of a reentrant
torch.utils.checkpoint) and between a backward pass with create_graph=True and the next backward (a gradient
penalty's forward) belongs to the same step. The hooks count what they hold: tensors saved under saved-tensor hooks
of their own inside the context (torch.utils.checkpoint with use_reentrant=False, which holds none of its block
until backward recomputes it, then holds them itself) are neither compressed nor counted, Few-Bit's codes among
them.
"""
import itertools
import math
import weakref

import torch

from .fewbit import ACTIVATIONS, patched
from .schemes import Packed, make_scheme
from .tensors import element_bytes


def base_of(t):
    """The tensor t is a view of (t itself when it is none): its storage's owner, sharing t's version counter."""
    return t._base if t._base is not None else t


def is_broadcast(t):
    """A view repeating its elements (a dimension of stride 0: an expanded or broadcast tensor)."""
    return any(stride == 0 and size > 1 for stride, size in zip(t.stride(), t.shape))


def queued(callback):
    """Whether an autograd backward pass runs in this thread: if so, callback is queued to run at its end (torch's
    engine takes callbacks only during a pass, and runs them only when the pass completes without raising)."""
    try:
        torch.autograd.Variable._execution_engine.queue_callback(callback)
    except RuntimeError:
        return False
    return True


class Saved:
    """What pack hands autograd: `value`, the tensor as kept or its compressed form (Packed, SharedView), with the
    version of the tensor when saved and a weak reference to its base, whose version counter it shares."""
    __slots__ = ("value", "base", "version", "shape", "dtype")

    def __init__(self, value, t):
        self.value, self.base, self.version = value, weakref.ref(base_of(t)), t._version
        self.shape, self.dtype = t.shape, t.dtype


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
        self.seen, self.storages, self.numbers, self.position = {}, {}, None, 0
        self.fewbit_codes = (lambda: None, None, None)  # the codes record_fewbit was last told of (weak references)
        self.in_backward, self.graph_kept, self.step_done = False, False, False
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

    def join_step(self):
        """The step a tensor saved now belongs to: a new one after a backward pass without create_graph has ended
        (module documentation), never during a backward pass. A pass that raised (out of memory, a raising tensor
        hook, a saved tensor modified in place) ran no end-of-pass callback: it is ended here, once no pass runs."""
        if self.in_backward and not queued(lambda: None):
            self.backward_ended()
        if self.steps and (self.in_backward or not self.step_done):
            return
        if self.steps:
            self.scheme.end_step(self.stats)
        self.steps += 1
        self.stats, self.seen, self.storages, self.position, self.step_done = [], {}, {}, 0, False
        self.numbers = itertools.count()

    def note_backward(self):
        """Called as backward reads a saved tensor: marks a backward pass running until its end (an autograd
        engine callback), and whether it builds a graph of its own (create_graph=True: grad mode on)."""
        self.graph_kept |= torch.is_grad_enabled()
        if not self.in_backward:  # stays False where read outside a backward pass (a grad_fn's _saved_ attribute)
            self.in_backward = queued(self.backward_ended)

    def backward_ended(self):
        self.step_done |= not self.graph_kept
        self.in_backward, self.graph_kept = False, False

    def storage_id(self, t):
        """A number naming t's storage in this step: the same while any tensor of it packed so far lives."""
        ptr = t.storage().data_ptr()
        tensors, number = self.storages.get(ptr, ([], None))
        if not any(ref() is not None for ref in tensors):
            tensors, number = [], next(self.numbers)
        tensors.append(weakref.ref(base_of(t)))
        self.storages[ptr] = (tensors, number)
        return number

    def stat(self, t, **fields):
        entry = {"index": len(self.stats), "shape": tuple(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
                 "bytes_before": element_bytes(t), "bytes_after": element_bytes(t), "bits": 8 * t.element_size(),
                 "storage": self.storage_id(t), "storage_bytes": t.storage().nbytes(), "compressed": False,
                 "state": False, "shared": False}
        entry.update(fields)
        self.stats.append(entry)

    def is_state(self, t):
        """A parameter or buffer: any nn.Parameter and views of one (Linear saves weight.t()), `model`'s buffers by
        their storage when it is given; without a model, any leaf that requires a gradient (and views of one)."""
        base = base_of(t)
        if isinstance(base, torch.nn.Parameter):
            return True
        if self.model is not None:
            return t.storage().data_ptr() in self.state_storages
        return base.is_leaf and base.requires_grad

    def pack(self, t):
        self.join_step()
        codes, kept, bits = self.fewbit_codes
        if codes() is t:  # Few-Bit's codes: kept as they are, in place of what torch's own op would have saved
            self.stat(kept(), bytes_after=element_bytes(t), bits=bits, compressed=True, activation=True)
            return Saved(t, t)
        return Saved(self.compressed(t), t)

    def compressed(self, t):
        """t as the step keeps it (itself, or its compressed form), its entry added to stats."""
        if self.is_state(t):
            self.stat(t, state=True)
            return t
        if is_broadcast(t):  # compressing it would materialise every repeated element: its storage is smaller
            self.stat(t, bytes_before=t.storage().nbytes(), bytes_after=t.storage().nbytes())
            return t
        if (not t.is_floating_point() or t.numel() == 0 or t.numel() < self.min_elements
                or not self.scheme.takes(t)):
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
            self.seen[key] = (weakref.ref(base_of(t)), None)
            self.stat(t)
            return t
        # the storage's owner: a view torch's Linear makes of a 3-D input dies once replaced by its codes, and the
        # next layer saving the same input (separate q, k, v projections) would compress it again
        self.seen[key] = (weakref.ref(base_of(t)), packed)
        self.stat(t, bytes_after=packed.storage_bytes, bits=packed.bits, compressed=True)
        return packed

    def unpack(self, saved):
        self.note_backward()
        base = saved.base()
        if base is not None and base._version != saved.version:
            raise RuntimeError(
                f"one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"a saved {saved.dtype} tensor of shape {list(saved.shape)} is at version {base._version}; expected "
                f"version {saved.version} instead (ecosim.torch.compressed_activations checks the tensors its "
                f"hooks keep, as torch checks the tensors it saves itself)")
        value = saved.value
        if isinstance(value, SharedView):
            return value.packed.scheme.unpack(value.packed).reshape(value.shape)
        return value.scheme.unpack(value) if isinstance(value, Packed) else value

    def record_fewbit(self, kept, codes, bits):
        """A Few-Bit activation is about to save `codes` in place of `kept`, what torch's own op would have saved:
        its output for ReLU, sigmoid and tanh (a storage the next layer may keep too, counted once), its input for
        GELU and SiLU. Counted when these hooks pack the codes: not when other saved-tensor hooks take them
        (torch.utils.checkpoint without reentrance, whose recomputation holds the block's tensors itself)."""
        self.fewbit_codes = (weakref.ref(codes), weakref.ref(kept), bits)

    def summary(self):
        """This step's totals: tensors, compressed_tensors, bits (the average over the compressed tensors'
        elements of the bits they are kept at; None when none is; requested_bits: the scheme's setting),
        bytes_before/after (each tensor the hooks were handed once; parameters and buffers left out),
        saved_storage_bytes — the distinct storages autograd would keep uncompressed (what `ecosim train` predicts
        as activation_bytes) — and ratio, saved_storage_bytes / bytes_after: the activation memory without the hooks
        over with them. (bytes_before counts a tensor each layer saves apart, a ReLU's input and the next layer's
        copy of its output both, where autograd shares one storage.)"""
        held = [s for s in self.stats if not s["state"]]
        fresh = [s for s in held if not s["shared"]]
        compressed = [(s["bits"], math.prod(s["shape"])) for s in fresh if s["compressed"]]
        elements = sum(n for _, n in compressed)
        before = sum(s["bytes_before"] for s in fresh)
        after = sum(s["bytes_after"] for s in fresh)
        storages = {s["storage"]: s["storage_bytes"] for s in held}
        return {"step": self.steps, "scheme": self.name, "requested_bits": self.bits,
                "bits": sum(b * n for b, n in compressed) / elements if elements else None, "tensors": len(held),
                "compressed_tensors": len(compressed), "bytes_before": before,
                "bytes_after": after, "saved_storage_bytes": sum(storages.values()),
                "ratio": sum(storages.values()) / after if after else float("inf")}


def compressed_activations(scheme, bits=None, seed=0, min_elements=256, model=None):
    """with compressed_activations("actnn", bits=2) as ca: ... — see the module's documentation; the schemes
    and their default bits: ecosim.torch.schemes."""
    return CompressedActivations(scheme, bits, seed, min_elements, model)
