"""The four compression schemes as saved-tensor packers, each compressing one floating tensor with the project's
kernels (ecosim._ecosim) and restoring it for backward:

- actnn: ActNN's group quantizer, per-sample bits from ActNN's allocator (average `bits`, default 2) weighted by
  each sample's activation range (ActNN also weighs the gradient, which a saved-tensor hook cannot see);
- gact: GACT's per-tensor bits from {1, 2, 4, 8, 32 = raw} (average `bits`, default 4) with the ActNN quantizer;
  the sensitivity of a tensor is its activation-only variance bound Σ n_g·R_g²/4 (GACT estimates it from two
  gradient evaluations, which a hook cannot make), and the allocation made from one step's tensors serves the
  next (the first step at 8 bits, GACT's initial_bits). As `ecosim train` names them: "gact:B" fixes B bits on
  every tensor (GACT's "Fix B bit" ablation), "gact:avgB" is the allocation averaging B;
- mesa: Mesa's 8-bit codes with a running (α, β) per channel (dimension 1 of a 4-D tensor: conv channels or
  attention heads; the last dimension otherwise), one running state per tensor position in the step;
- fewbit: Few-Bit Backward replaces the activations themselves (ecosim.torch.fewbit); other saved tensors
  are kept as they are.
"""
import math

from .. import _ecosim
from .tensors import dense_stride, from_fp32, kernel_input, laid_out

DEFAULT_BITS = {"actnn": 2, "gact": 4, "mesa": 8, "fewbit": 2}


class Packed:
    """One compressed tensor: the kernel's object and what is needed to restore the tensor."""
    __slots__ = ("scheme", "compressed", "shape", "stride", "dtype", "device", "storage_bytes", "bits")

    def __init__(self, scheme, compressed, t, bits):
        self.scheme, self.compressed, self.bits = scheme, compressed, bits
        self.shape, self.stride, self.dtype, self.device = t.shape, dense_stride(t), t.dtype, t.device
        self.storage_bytes = compressed.storage_bytes


class Scheme:
    """What every scheme shares: it compresses every floating tensor it is handed, and learns nothing a step."""

    @staticmethod
    def takes(t):
        """Whether the scheme compresses the floating tensor t (ActNN's and Mesa's modules quantize their inputs,
        data or not)."""
        return True

    def end_step(self, stats):
        pass


class ActNN(Scheme):
    name = "actnn"

    BITS = "1..8 (an average over codes of 1, 2, 4 or 8 bits)"

    def __init__(self, bits):
        if not self.valid_bits(bits):
            raise _ecosim.Error(f"{self.name}: bits must be {self.BITS}, got {bits}")
        self.bits = bits

    @staticmethod
    def valid_bits(bits):
        return 1 <= bits <= 8

    def sample_bits(self, x, dtype, samples):
        weights = _ecosim.actnn_range_weights(x, dtype, samples)
        return _ecosim.actnn_allocate_bits(weights, int(self.bits * samples))

    def pack(self, t, position, seed):
        x, dtype, device = kernel_input(t)
        samples = t.shape[0] if t.dim() > 1 and t.shape[0] > 1 else 1
        bits = self.sample_bits(x, dtype, samples)
        return Packed(self, _ecosim.actnn_quantize(x, dtype, bits, seed, device), t, sum(bits) / len(bits))

    def unpack(self, p):
        device = "cuda" if p.device.type == "cuda" else "cpu"
        return laid_out(from_fp32(_ecosim.actnn_dequantize(p.compressed, device), p.shape, p.dtype, p.device), p.stride)


class GACT(ActNN):
    name = "gact"
    INITIAL_BITS = 8  # before the first allocation, as GACT's initial_bits
    BITS = "1..8, or 32 (raw)"

    @staticmethod
    def valid_bits(bits):
        return 1 <= bits <= 8 or bits == 32

    def __init__(self, bits, adaptive=True):
        super().__init__(bits)
        if not adaptive and bits not in (1, 2, 4, 8, 32):  # fixed bits: a width the quantizer has codes for
            raise _ecosim.Error(f"gact:{bits}: fixed bits must be 1, 2, 4, 8 or 32 (raw); gact:avg{bits} averages "
                                f"{bits} bits over the tensors")
        self.adaptive = adaptive
        self.allocation = {}  # position -> (elements, bits) from the previous step
        self.sensitivity = {}  # position -> (elements, sensitivity) in this step

    @staticmethod
    def takes(t):
        """GACT's quantizer takes tensors that require a gradient, of 2 to 4 dimensions: a network's input (data)
        and non-differentiable outputs such as a norm's statistics are kept as they are."""
        return t.requires_grad and 2 <= t.dim() <= 4

    def pack(self, t, position, seed):
        x, dtype, device = kernel_input(t)
        raw_bits = 8 * x.itemsize  # the kernels' input as it is stored (fp32, or fp16/bf16 words)
        self.sensitivity[position] = (x.size, sum(_ecosim.actnn_range_weights(x, dtype, 1)), raw_bits)
        planned = self.allocation.get(position)
        bits = (self.bits if not self.adaptive
                else planned[1] if planned and planned[0] == x.size else self.INITIAL_BITS)
        if bits == 32:
            return None  # raw: kept as it is
        return Packed(self, _ecosim.actnn_quantize(x, dtype, [bits], seed, device), t, bits)

    def end_step(self, stats):
        if not self.sensitivity or not self.adaptive:
            return
        positions = sorted(self.sensitivity)
        elements = [self.sensitivity[p][0] for p in positions]
        sensitivity = [self.sensitivity[p][1] for p in positions]
        raw_bits = [self.sensitivity[p][2] for p in positions]  # a tensor kept raw costs its own width
        bits = _ecosim.gact_allocate_bits(sensitivity, elements, float(self.bits), raw_bits)
        self.allocation = {p: (n, b) for p, n, b in zip(positions, elements, bits)}
        self.sensitivity = {}


class Mesa(Scheme):
    name = "mesa"

    def __init__(self, bits):
        if bits != 8:
            raise _ecosim.Error(f"mesa: codes are 8 bits, got bits={bits}")
        self.bits = bits
        self.states = {}  # position -> (shape, MesaState)

    @staticmethod
    def heads_inner(shape):
        if len(shape) == 4:
            return shape[1], math.prod(shape[2:])
        return (shape[-1], 1) if len(shape) >= 1 else (1, 1)

    def pack(self, t, position, seed):
        x, dtype, device = kernel_input(t)
        shape, state = self.states.get(position, (None, None))
        if shape != tuple(t.shape):
            state = _ecosim.MesaState()
            self.states[position] = (tuple(t.shape), state)
        heads, inner = self.heads_inner(t.shape)
        return Packed(self, _ecosim.mesa_quantize(x, dtype, heads, inner, state, seed, device), t, 8)

    def unpack(self, p):
        device = "cuda" if p.device.type == "cuda" else "cpu"
        return laid_out(from_fp32(_ecosim.mesa_dequantize(p.compressed, device), p.shape, p.dtype, p.device), p.stride)


class KeepOthers(Scheme):
    """Few-Bit's saved-tensor side: its activations save codes themselves; every other tensor is kept."""
    name = "fewbit"

    def __init__(self, bits):
        self.bits = bits

    def pack(self, t, position, seed):
        return None


SCHEMES = {"actnn": ActNN, "gact": GACT, "mesa": Mesa, "fewbit": KeepOthers}


def make_scheme(name, bits):
    """A scheme by name, with `bits` (its default when None); "gact:B" and "gact:avgB" as `ecosim train` spells
    them (their bits in the name)."""
    base, _, spec = name.partition(":")
    if base == "gact" and spec:
        adaptive = spec.startswith("avg")
        digits = spec[3:] if adaptive else spec
        if not digits.isdigit() or bits is not None:
            raise _ecosim.Error(f"'{name}': give gact:B (fixed B bits) or gact:avgB, and no bits= beside it")
        return GACT(int(digits), adaptive)
    if name not in SCHEMES:
        raise _ecosim.Error(f"unknown compression scheme '{name}' (valid: {', '.join(SCHEMES)}, gact:B, gact:avgB)")
    return SCHEMES[name](DEFAULT_BITS[name] if bits is None else bits)
