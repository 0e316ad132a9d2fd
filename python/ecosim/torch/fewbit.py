"""Few-Bit Backward as drop-in activations: the forward computes f(x) and keeps only each element's b-bit code
(the project's kernels), the backward multiplies the incoming gradient by the code's level. FewBitGELU & co.
are nn.Modules; patched() swaps torch's functional activations for them while compressed_activations is active
(F.gelu with approximate="none", F.silu, F.relu, torch.sigmoid, torch.tanh: what nn.GELU, nn.SiLU, nn.ReLU,
nn.Sigmoid and nn.Tanh call; a tensor method such as x.relu() is not swapped): all of them under "fewbit", ReLU
alone under the other schemes. ReLU's derivative takes two values: its 1-bit code is exact (ActNN's ReLU keeps
the same 1-bit mask), and it always takes 1 bit. Where no backward will read codes (no gradient wanted, an
integer tensor, a trace or ONNX export running) and for what the codes do not cover (out=, GELU's tanh form),
torch's own op runs; inplace=True modifies the input in place as torch's does."""
import torch
import torch.nn.functional as F

from .. import _ecosim
from .tensors import KERNEL_DTYPES, from_raw, kernel_input

PIECEWISE_CONSTANT = {"relu"}
ACTIVATIONS = ["gelu", "silu", "relu", "sigmoid", "tanh"]
TORCH_OPS = {"gelu": F.gelu, "silu": F.silu, "relu": F.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh}
SAVES_OUTPUT = {"relu", "sigmoid", "tanh"}  # what torch's own backward of each reads: its output, else its input
codebooks = {}


def codebook(activation, bits):
    """The solved quantiser of the activation's derivative (solved once per activation and width)."""
    bits = 1 if activation in PIECEWISE_CONSTANT else bits
    key = (activation, bits)
    if key not in codebooks:
        codebooks[key] = _ecosim.fewbit_codebook(activation, bits)
    return codebooks[key]


def keeps_codes(x):
    """Whether f(x) is computed with codes for a backward: a floating tensor that requires a gradient, with grad
    mode on and no trace running (an ONNX export or torch.jit.trace records torch's own op: the kernels' numpy
    values would be recorded as constants, cutting the graph)."""
    return x.is_floating_point() and x.requires_grad and torch.is_grad_enabled() and not torch.jit.is_tracing()


class FewBitFunction(torch.autograd.Function):
    """f(x) keeping b-bit codes of x (in place on x when asked); backward multiplies the incoming gradient by each
    code's level. The codes are a saved tensor (uint8), so that saved-tensor hooks take them as they take the
    tensors torch's ops save (torch.utils.checkpoint without reentrance: recomputed in backward, not held); `record`,
    when given, is told of them first (fewbit()). f(x) is the kernel's for its element types (fp32, fp16, bf16) and
    torch's own op for the others (fp64), whose precision the kernels' fp32 would lose.
    With create_graph=True the gradient is built of torch's ops, grad times the levels as a constant (the kernel's
    fp32 products): differentiable in grad, exactly, so a gradient penalty's gradient for what reaches the
    activation only through its incoming gradient (the weights after it) is computed. Its dependence on x is f″,
    which the codes do not hold: the gradient is linked to x's graph through an error node, so that differentiating
    it for anything before the activation raises — except for ReLU, whose 1-bit code is its derivative exactly and
    whose f″ is zero (as torch's own ReLU backward, which reads its mask as a constant). `tap`, a scalar computed
    from a zero-size view of x (it holds none of x's data: its value is 0), is that link: without it the
    dependence on x would be missing, not refused."""

    @staticmethod
    def forward(ctx, x, tap, book, activation, inplace, record):
        array, dtype, device = kernel_input(x)
        out, codes = _ecosim.fewbit_forward(book, array, dtype, device)
        codes = torch.from_numpy(codes)
        ctx.book, ctx.activation, ctx.tap = book, activation, tap
        ctx.save_for_backward(codes)
        y = from_raw(out, x.shape, x.dtype, x.device) if x.dtype in KERNEL_DTYPES else TORCH_OPS[activation](x)
        if inplace:
            ctx.mark_dirty(x)
            y = x.copy_(y)
        if record is not None:
            record(y if activation in SAVES_OUTPUT else x, codes, book.bits)
        return y

    @staticmethod
    def levels(ctx, grad):
        """The incoming gradient times each code's level (the kernel)."""
        with torch.no_grad():
            array, dtype, device = kernel_input(grad)
            codes, = ctx.saved_tensors
            out = _ecosim.fewbit_backward(ctx.book, codes.numpy(), array, dtype, device)
            return from_raw(out, grad.shape, grad.dtype, grad.device)

    @staticmethod
    def backward(ctx, grad):
        if not torch.is_grad_enabled():  # no graph of the backward wanted: the kernel
            return FewBitFunction.levels(ctx, grad), None, None, None, None, None
        levels = FewBitFunction.levels(ctx, torch.ones(grad.shape, device=grad.device))
        # the kernel's product, bit for bit, in its dtypes (fp32 for half types); outside them, the gradient's own
        out = (grad.float() * levels).to(grad.dtype) if grad.dtype in KERNEL_DTYPES else grad * levels.to(grad.dtype)
        if ctx.activation not in PIECEWISE_CONSTANT:
            message = (f"ecosim.torch: Few-Bit {ctx.activation} keeps b-bit codes of its derivative, not its second "
                       f"derivative: the gradient of a gradient through it cannot be computed for what comes before "
                       f"it")
            out = out + torch._C._functions.DelayedError(message.encode(), 1)(ctx.tap)
        return out, None, None, None, None, None


def fewbit(x, activation, bits=2, record=None, inplace=False):
    """f(x) whose backward reads b-bit codes instead of x (in place on x when asked, as torch's inplace=True);
    record(kept, codes, bits), when given, is told of each call's codes (a uint8 tensor) before they are saved,
    `kept` the tensor torch's own op would have saved (its output or its input, SAVES_OUTPUT). Torch's own op where
    no backward will read codes (keeps_codes)."""
    if not keeps_codes(x):
        return TORCH_OPS[activation](x, inplace=True) if inplace else TORCH_OPS[activation](x)
    book = codebook(activation, bits)
    return FewBitFunction.apply(x, x.as_strided((0,), (1,)).sum(), book, activation, inplace, record)


class FewBitActivation(torch.nn.Module):
    activation = None

    def __init__(self, bits=2):
        super().__init__()
        self.bits = bits

    def forward(self, x):
        return fewbit(x, self.activation, self.bits)

    def extra_repr(self):
        return f"bits={self.bits}"


class FewBitGELU(FewBitActivation):
    activation = "gelu"


class FewBitSiLU(FewBitActivation):
    activation = "silu"


class FewBitReLU(FewBitActivation):
    activation = "relu"


class FewBitSigmoid(FewBitActivation):
    activation = "sigmoid"


class FewBitTanh(FewBitActivation):
    activation = "tanh"


class patched:
    """Context manager: torch's functional activations named in `which` (gelu, silu, relu, sigmoid, tanh)
    replaced by Few-Bit ones at `bits` — in torch's namespaces, and where one of `modules` holds one as an
    attribute (nn.TransformerEncoderLayer keeps F.gelu or F.relu as its `activation` when built)."""

    def __init__(self, which, bits, record, modules=()):
        self.which, self.bits, self.record, self.modules, self.saved = set(which), bits, record, modules, []

    def __enter__(self):
        originals = {(F, "gelu"): F.gelu, (F, "silu"): F.silu, (F, "relu"): F.relu,
                     (torch, "sigmoid"): torch.sigmoid, (torch, "tanh"): torch.tanh}
        bits, record = self.bits, self.record

        # each under torch's own argument names (F.relu(input=x) is torch's call too)
        def gelu(input, approximate="none"):  # the tanh form has other derivatives than the codebook's: torch's own
            if approximate != "none":
                return TORCH_OPS["gelu"](input, approximate=approximate)
            return fewbit(input, "gelu", bits, record)

        def silu(input, inplace=False):
            return fewbit(input, "silu", bits, record, inplace)

        def relu(input, inplace=False):
            return fewbit(input, "relu", bits, record, inplace)

        def sigmoid(input, *, out=None):  # out=: torch's own, into `out`
            return fewbit(input, "sigmoid", bits, record) if out is None else TORCH_OPS["sigmoid"](input, out=out)

        def tanh(input, *, out=None):
            return fewbit(input, "tanh", bits, record) if out is None else TORCH_OPS["tanh"](input, out=out)

        swapped = {(F, "gelu"): gelu, (F, "silu"): silu, (F, "relu"): relu, (torch, "sigmoid"): sigmoid,
                   (torch, "tanh"): tanh}
        chosen = {key: function for key, function in swapped.items() if key[1] in self.which}
        held = [(module, attribute, key) for module in self.modules for attribute, value in vars(module).items()
                for key in chosen if value is originals[key]]
        for (owner, name), function in chosen.items():
            self.saved.append((owner, name, originals[(owner, name)]))
            setattr(owner, name, function)
        for module, attribute, key in held:
            self.saved.append((module, attribute, originals[key]))
            setattr(module, attribute, chosen[key])
        return self

    def __exit__(self, *exc):
        for owner, name, original in self.saved:
            setattr(owner, name, original)
        self.saved = []
