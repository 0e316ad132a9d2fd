#!/usr/bin/python3
"""ecosim train's activation bytes against what PyTorch's autograd really saves (issue 20).

Builds each network with torch (Debian's python3-torch) in training mode, records every tensor autograd saves
during the forward pass (torch.autograd.graph.saved_tensors_hooks), counts each distinct storage once (by its
data pointer, its full size in bytes) leaving out the parameters and buffers, and asserts that
`ecosim train --format json` of the same architecture (a zoo model, or one written to a --model-file) reports
the same activation bytes within 1 % (ecosim's dropout masks counted at the CPU's 4 bytes an element, see
ecosim_step) and exactly the module's trainable parameters; then exports the same network to ONNX in training mode (BatchNorm and dropout kept; weights
stripped as scripts/export_models.py strips them) and asserts the same of `ecosim train --onnx`, and for the CNNs
that under every scheme the export stores exactly what the zoo model stores; and that amp stores autocast's
weight copies as autograd saves them (CPU autocast, bf16). Exits 77
(skipped) without torch or python3-onnx.

usage: train_saved_tensors_torch.py ECOSIM WORKDIR
"""
import json
import math
import subprocess
import sys
from pathlib import Path

try:
    import onnx
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as missing:
    print(f"SKIPPED: {missing}")
    sys.exit(77)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "python" / "ecosim" / "torch"))  # zoo_networks on its own (no compiled module)
from export_models import strip_weights  # noqa: E402  (the fixtures' stripping, one definition)
from step_time import saved_activation_bytes as saved_bytes  # noqa: E402  (one definition)
from zoo_networks import VGG, Bert, BasicBlock, Bottleneck, Mlp, PreNormBlock, ResNet, ViT, Attention  # noqa: E402

TOLERANCE = 0.01
# zoo_networks' Bert starts from its tokens' embeddings (and adds one token-type row): the zoo's encoder also has
# the token table (vocab_size × embed_dim) and BERT's second token-type row.
BERT_VOCAB, BERT_DIM = 100, 64
BERT_TABLES = BERT_VOCAB * BERT_DIM + BERT_DIM
torch.manual_seed(0)


def export_training(model, x, path, fold=True, strip=True, opset=17):
    """model(x) (x a tensor, or a tuple: the graph's inputs) as a training-mode ONNX graph (`opset`, BatchNorm and dropout kept, constants folded unless `fold`
    is False), weights stripped unless `strip` is False. Where the tracer refuses training mode (a model whose
    state it sees change), a model without BatchNorm or dropout is exported in eval mode, the same graph."""
    model.train()
    try:
        torch.onnx.export(model, (x,), str(path), opset_version=opset, training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=fold)
    except RuntimeError:
        if any(isinstance(m, nn.modules.batchnorm._BatchNorm) or (isinstance(m, nn.Dropout) and m.p > 0)
               for m in model.modules()):
            raise
        torch.onnx.export(model.eval(), (x,), str(path), opset_version=opset, do_constant_folding=fold)
        model.train()
    if strip:
        path.write_bytes(strip_weights(onnx.load(str(path))).SerializeToString())


def ecosim_step(ecosim, args):
    """ecosim's activation bytes with its dropout masks kept as the CPU keeps them (ecosim models CUDA's 1-byte
    bool mask, torch 1.13 on the CPU keeps the fp32 noise it multiplies by: 4 bytes an element), and its
    trainable parameters."""
    run = subprocess.run([ecosim, "train", "--scheme", "none", "--format", "json", *args], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"ecosim train {' '.join(args)} failed: {run.stderr}")
    report = json.loads(run.stdout)
    scheme = report["schemes"][0]
    masks = sum(t["elements"] for t in scheme["saved_tensors"] if t["dtype"] == "bool")
    return scheme["activation_bytes"] + 3 * masks, report["parameters"]


def scheme_bytes(ecosim, args, schemes):
    """The activation bytes `ecosim train` stores under each of `schemes`."""
    run = subprocess.run([ecosim, "train", "--scheme", ",".join(schemes), "--format", "json", *args],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"ecosim train {' '.join(args)} failed: {run.stderr}")
    return {s["scheme"]: s["activation_bytes"] for s in json.loads(run.stdout)["schemes"]}


def autocast_weight_copies(model, x):
    """The bytes of the weights' copies autograd saves under autocast (the CPU's, bf16: 2 bytes an element as
    CUDA's fp16): the saved tensors equal to a parameter cast (a linear's saved as its transpose), each storage
    once."""
    weights = [p.detach() for p in model.parameters() if p.dim() >= 2]
    copies = {}

    def pack(t):
        if t.dtype == torch.bfloat16:
            views = [t, t.t()] if t.dim() == 2 else [t]
            if any(v.shape == w.shape and torch.equal(v, w.to(torch.bfloat16)) for w in weights for v in views):
                copies[t.storage().data_ptr()] = t.storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), torch.autocast("cpu", dtype=torch.bfloat16):
        model.train()(x)
    return sum(copies.values())


def amp_weight_copy_bytes(ecosim, args):
    """The bytes `ecosim train --scheme amp` stores as autocast's copies of the weights."""
    run = subprocess.run([ecosim, "train", "--scheme", "amp", "--format", "json", *args], capture_output=True,
                         text=True, check=True)
    saved = json.loads(run.stdout)["schemes"][0]["saved_tensors"]
    return sum(t["bytes"] for t in saved if t["what"] == "weights (autocast's copy)")


def first_pool_backward_bytes(ecosim, args):
    """The memory `ecosim train` holds during the backward of the network's first max pool: what is saved up to it,
    and its input and output gradients (the pool's own input, not its windows' overlapping reads)."""
    run = subprocess.run([ecosim, "train", "--scheme", "none", "--format", "json", *args], capture_output=True,
                         text=True, check=True)
    curve = json.loads(run.stdout)["schemes"][0]["memory_curve"]
    return next(p["bytes"] for p in curve if p["phase"] == "backward" and "maxpool" in p["layer"].lower()) if any(
        "maxpool" in p["layer"].lower() for p in curve) else None


class DwConvPvt(nn.Module):
    """PVTv2's four stages (overlapping patch embedding, LayerNorm, blocks, stage norm) with global attention
    and PVTv2's depthwise 3×3 conv in each MLP; mean pooling and a head."""

    def __init__(self, dim, heads, classes):
        super().__init__()
        self.stages = nn.ModuleList()
        for s in range(4):
            stage = nn.ModuleDict()
            stage["patch_embed"] = nn.Conv2d(3 if s == 0 else dim, dim, 7 if s == 0 else 3, 4 if s == 0 else 2,
                                             3 if s == 0 else 1)
            stage["patch_norm"], stage["norm"] = nn.LayerNorm(dim), nn.LayerNorm(dim)
            stage["block"] = PreNormBlock(dim, heads, 8 * dim, dwconv=True)
            self.stages.append(stage)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        for s, stage in enumerate(self.stages):
            x = stage["patch_embed"](x)
            B, C, H, W = x.shape
            x = stage["norm"](stage["block"](stage["patch_norm"](x.flatten(2).transpose(1, 2)), (H, W)))
            if s < 3:
                x = x.reshape(B, H, W, C).permute(0, 3, 1, 2).contiguous()
        return self.head(x.mean(dim=1))


class SwinBlock(nn.Module):
    """Swin's block: window attention (shifted by half a window in odd blocks) with relative position bias."""

    def __init__(self, dim, heads, res, window, shift):
        super().__init__()
        self.res, self.window, self.heads = res, window, heads
        self.shift = window // 2 if shift and res > window else 0
        self.norm1, self.attn = nn.LayerNorm(dim), Attention(dim, heads)
        self.norm2, self.mlp = nn.LayerNorm(dim), Mlp(dim, 4 * dim)
        self.table = nn.Parameter(torch.zeros((2 * window - 1) ** 2, heads))
        coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (window - 1)
        self.register_buffer("index", rel[..., 0] * (2 * window - 1) + rel[..., 1])
        if self.shift:
            img = torch.zeros(1, res, res, 1)
            cuts = (slice(0, -window), slice(-window, -self.shift), slice(-self.shift, None))
            for n, (h, w) in enumerate((h, w) for h in cuts for w in cuts):
                img[:, h, w, :] = n
            ids = self.partition(img).squeeze(-1)
            mask = ids[:, None, :] - ids[:, :, None]
            self.register_buffer("mask", mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0))
        else:
            self.mask = None

    def partition(self, x):
        B, H, W, C = x.shape
        w = self.window
        return x.view(B, H // w, w, W // w, w, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, w * w, C)

    def forward(self, x):
        B, L, C = x.shape
        H = W = self.res
        w, shortcut = self.window, x
        x = self.norm1(x).view(B, H, W, C)
        if self.shift:
            x = torch.roll(x, (-self.shift, -self.shift), (1, 2))
        windows = self.partition(x)
        N = w * w
        bias = self.table[self.index.view(-1)].view(N, N, -1).permute(2, 0, 1).contiguous().unsqueeze(0)
        a = self.attn
        q, k, v = a.qkv(windows).reshape(-1, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        attn = (q @ k.transpose(-2, -1)) * a.scale + bias
        if self.mask is not None:
            nW = self.mask.shape[0]
            attn = (attn.view(-1, nW, self.heads, N, N) + self.mask[None, :, None]).view(-1, self.heads, N, N)
        out = a.proj((attn.softmax(dim=-1) @ v).transpose(1, 2).reshape(-1, N, C))
        out = out.view(B, H // w, W // w, w, w, C).permute(0, 1, 3, 2, 4, 5).reshape(B, H, W, C)
        if self.shift:
            out = torch.roll(out, (self.shift, self.shift), (1, 2))
        x = shortcut + out.reshape(B, L, C)
        return x + self.mlp(self.norm2(x))


class Swin(nn.Module):
    """Swin with two stages: 4×4 patches, LayerNorm, window blocks, patch merging, final norm, mean, head."""

    def __init__(self, size, dim, depths, heads, window, classes):
        super().__init__()
        self.patch_embed, self.patch_norm = nn.Conv2d(3, dim, 4, 4), nn.LayerNorm(dim)
        res, self.stages = size // 4, nn.ModuleList()
        for s, (depth, h) in enumerate(zip(depths, heads)):
            stage = nn.ModuleDict()
            if s > 0:
                stage["merge_norm"], stage["merge"] = nn.LayerNorm(4 * dim), nn.Linear(4 * dim, 2 * dim, bias=False)
                res, dim = res // 2, 2 * dim
            stage["blocks"] = nn.ModuleList(SwinBlock(dim, h, res, window, b % 2 == 1) for b in range(depth))
            stage.res = res
            self.stages.append(stage)
        self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch_norm(self.patch_embed(x).flatten(2).transpose(1, 2))
        for stage in self.stages:
            if "merge" in stage:
                B, L, C = x.shape
                r = int(math.isqrt(L))
                g = x.view(B, r, r, C)
                x = torch.cat([g[:, 0::2, 0::2], g[:, 1::2, 0::2], g[:, 0::2, 1::2], g[:, 1::2, 1::2]], -1)
                x = stage["merge"](stage["merge_norm"](x.view(B, -1, 4 * C)))
            for block in stage["blocks"]:
                x = block(x)
        return self.head(self.norm(x).mean(dim=1))


class TokenTransformer(nn.Module):
    """Token ids in: an embedding table gathered, a class token concatenated (expanded to the batch), a position
    table added, one pre-norm block, a head on the class token — every table a graph initializer read directly."""

    def __init__(self, vocab=100, dim=32, tokens=9, heads=2, classes=7):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.zeros(1, tokens + 1, dim))
        self.block, self.norm, self.head = PreNormBlock(dim, heads, 4 * dim), nn.LayerNorm(dim), nn.Linear(dim, classes)

    def forward(self, ids):
        x = torch.cat([self.cls.expand(ids.shape[0], -1, -1), self.embed(ids)], dim=1) + self.pos
        return self.head(self.norm(self.block(x))[:, 0])


class TiedLanguageModel(nn.Module):
    """A GPT-like model as users write it: token and learned position tables (the positions gathered by an
    arange, a table small enough for the exporter to fold), one pre-norm block, and a head tied to the token
    table through F.linear (the exporter folds the transposed table into a second initializer)."""

    def __init__(self, vocab=128, dim=32, tokens=8, heads=2):  # a table of 4,096 elements: one compared for a tie
        super().__init__()
        self.embed, self.pos = nn.Embedding(vocab, dim), nn.Embedding(tokens, dim)
        self.block, self.norm = PreNormBlock(dim, heads, 4 * dim), nn.LayerNorm(dim)

    def forward(self, ids):
        x = self.embed(ids) + self.pos(torch.arange(ids.shape[1]))
        return F.linear(self.norm(self.block(x)), self.embed.weight)


class SqueezeExcite(nn.Module):
    """EfficientNet's MBConv core: a depthwise conv, BatchNorm and SiLU (exported as Sigmoid → Mul), then a
    squeeze-excite scale ([N, C, 1, 1], broadcast over the feature map) multiplying the features."""

    def __init__(self, channels=16, squeezed=4):
        super().__init__()
        self.dw, self.bn = nn.Conv2d(channels, channels, 3, 1, 1, groups=channels, bias=False), nn.BatchNorm2d(channels)
        self.reduce, self.expand = nn.Conv2d(channels, squeezed, 1), nn.Conv2d(squeezed, channels, 1)

    def forward(self, x):
        x = F.silu(self.bn(self.dw(x)))
        return x * torch.sigmoid(self.expand(F.silu(self.reduce(x.mean((2, 3), keepdim=True)))))


class InvertedResidual(nn.Module):
    """MobileNetV2's block: a 1×1 expansion, a depthwise 3×3 and a 1×1 projection, BatchNorm after each, ReLU6
    (exported as Clip) after the first two, and the residual."""

    def __init__(self, channels=8, expand=4):
        super().__init__()
        hidden = channels * expand
        self.block = nn.Sequential(
            nn.Conv2d(channels, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, 1, 1, groups=hidden, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, channels, 1, bias=False), nn.BatchNorm2d(channels))

    def forward(self, x):
        return x + self.block(x)


class PaddedAveragePool(nn.Module):
    """A conv, ReLU and an average pool with padding (exported as a zero Pad before AveragePool, which PyTorch
    applies inside the pool: its unpadded input, the ReLU's output, is what it keeps), then a BatchNorm without
    affine parameters (none to train) and a head whose output's whole mean (x.mean(): nothing kept) is returned."""

    def __init__(self):
        super().__init__()
        self.conv, self.pool, self.bn = nn.Conv2d(3, 8, 3, 1, 1), nn.AvgPool2d(3, 2, 1), nn.BatchNorm2d(8, affine=False)
        self.head = nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        return self.head(self.bn(self.pool(F.relu(self.conv(x)))).flatten(1)).mean()


class NormsWithoutAffine(nn.Module):
    """A LayerNorm without γ and β (elementwise_affine=False, as diffusion transformers' adaLN uses it), at opset 14
    (decomposed: ReduceMean … Div; torch 1.13's opset 17 export of it is an invalid graph): no parameters."""

    def __init__(self):
        super().__init__()
        self.fc1, self.norm, self.fc2 = nn.Linear(16, 32), nn.LayerNorm(32, elementwise_affine=False), nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(F.gelu(self.norm(self.fc1(x))))


class DecoderWithMemory(nn.Module):
    """A transformer decoder layer reading two graph inputs: its tokens and the encoder's memory (cross-attention
    projects the memory, which autograd keeps)."""

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerDecoderLayer(32, 2, 64, 0.0, batch_first=True)

    def forward(self, inputs):
        x, memory = inputs
        return self.layer(x, memory)


class SharedLayers(nn.Module):
    """ALBERT's parameter sharing: one encoder layer applied three times (its weights trained, stored and updated
    once; each application saves its own activations)."""

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(32, 2, 64, 0.0, batch_first=True)

    def forward(self, x):
        for _ in range(3):
            x = self.layer(x)
        return x


class LayerScaleBlock(nn.Module):
    """ConvNeXt's and CaiT's LayerScale (a learned per-channel γ times the branch: autograd keeps the branch for γ's
    gradient) and a learned per-channel temperature dividing the output (it keeps the dividend too)."""

    def __init__(self, dim=16):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)
        self.gamma, self.temperature = nn.Parameter(torch.full((dim,), 0.1)), nn.Parameter(torch.ones(dim))

    def forward(self, x):
        x = x + self.gamma * self.fc2(F.gelu(self.fc1(x)))
        return self.fc2(F.gelu(self.fc1(x))) / self.temperature


class GraphConvolution(nn.Module):
    """A GCN layer tanh(A·(X·W)) with the adjacency A a graph input (data: A·H keeps A for H's gradient, and not H)
    and a mask input multiplying the output (x·m keeps m only)."""

    def __init__(self):
        super().__init__()
        self.w1, self.w2 = nn.Linear(8, 16), nn.Linear(16, 4)

    def forward(self, inputs):
        x, adjacency, mask = inputs
        return self.w2(torch.tanh(adjacency @ self.w1(x))) * mask


class ChannelsLastHead(nn.Module):
    """Transposed views reshaped, as PyTorch's view rule decides: a conv's ReLU (keeping its output) flattened
    channels-last into a head (permute(0, 2, 3, 1).flatten(1) merges dims the permute moved apart: a copy, which
    the head keeps); the same map as a token sequence (permute(0, 2, 3, 1).reshape(B, N, C) merges H and W, still
    adjacent: a view) into a Linear and a ReLU, whose tokens go back to a map for PVT's spatial-reduction conv
    (transpose(1, 2).reshape(B, C, H, W) splits N: a view); and a Linear over the channels of a (B, C, N) ReLU
    transposed to (B, N, C) (no copy: torch's matmul multiplies the transposed view batched)."""

    def __init__(self):
        super().__init__()
        self.conv, self.head = nn.Conv2d(3, 8, 3, 1, 1), nn.Linear(8 * 6 * 6, 10)
        self.mix, self.tokens, self.sr = nn.Linear(8, 8), nn.Linear(8, 8), nn.Conv2d(8, 8, 2, 2)

    def forward(self, x):
        h = F.relu(self.conv(x))
        B, C, H, W = h.shape
        mixed = self.mix(F.relu(self.conv(x).flatten(2)).transpose(1, 2))
        t = F.relu(self.tokens(h.permute(0, 2, 3, 1).reshape(B, H * W, C)))
        reduced = self.sr(t.transpose(1, 2).reshape(B, C, H, W))
        return self.head(h.permute(0, 2, 3, 1).flatten(1)) + mixed.mean() + reduced.mean()


class TiedSingleHead(nn.Module):
    """One head whose queries are its keys (Reformer's shared QK) and whose values are the normed hidden state
    itself: torch's matmuls save views of those tensors, so the q/k projection and the LayerNorm output are each
    kept once however many operands read them."""

    def __init__(self):
        super().__init__()
        self.pre, self.norm = nn.Linear(16, 16), nn.LayerNorm(16)
        self.qk, self.proj = nn.Linear(16, 16), nn.Linear(16, 16)

    def forward(self, x):
        h = self.norm(self.pre(x))
        qk = self.qk(h)
        return self.proj(((qk @ qk.transpose(-2, -1)) * 0.25).softmax(-1) @ h)


class InputAsKeysAndValues(nn.Module):
    """One head whose keys and values are the network's input (data: no gradient): the scores' product keeps the
    keys for the queries' gradient, not the queries, which only the keys' gradient would need."""

    def __init__(self):
        super().__init__()
        self.q, self.proj = nn.Linear(16, 16), nn.Linear(16, 16)

    def forward(self, x):
        return self.proj(((self.q(x) @ x.transpose(-2, -1)) * 0.25).softmax(-1) @ x)


class MultiQuery(nn.Module):
    """Multi-query attention (4 query heads over one K/V head, repeated as Hugging Face's repeat_kv does): at
    batch 1 the repeat stays a view of stride 0 through torch's matmul, which keeps the K/V projections' tensors."""

    def __init__(self):
        super().__init__()
        self.q, self.k, self.v, self.proj = nn.Linear(16, 16), nn.Linear(16, 4), nn.Linear(16, 4), nn.Linear(16, 16)

    def forward(self, x):
        b, n, _ = x.shape
        q = self.q(x).view(b, n, 4, 4).transpose(1, 2)
        k, v = (f(x).view(b, n, 1, 4).transpose(1, 2)[:, :, None].expand(b, 1, 4, n, 4).reshape(b, 4, n, 4)
                for f in (self.k, self.v))
        context = ((q @ k.transpose(-2, -1)) * 0.5).softmax(-1) @ v
        return self.proj(context.transpose(1, 2).reshape(b, n, 16))


class DataScoresLearnedValues(nn.Module):
    """Scores of the input data with itself (no gradient) weighting learned values: the context's product keeps the
    probabilities for the values' gradient, not the values (the probabilities need none)."""

    def __init__(self):
        super().__init__()
        self.v, self.proj = nn.Linear(16, 16), nn.Linear(16, 16)

    def forward(self, x):
        v = self.v(x)
        return self.proj(((x @ x.transpose(-2, -1)) * 0.25).softmax(-1) @ v)


class BatchStatisticsNorm(nn.Module):
    """A BatchNorm without running statistics (track_running_stats=False): the export spells its batch mean and
    variance out (ReduceMean, Sub, Mul, ReduceMean) and feeds them to BatchNormalization, which PyTorch never runs
    as ops of their own (nothing saved for them)."""

    def __init__(self):
        super().__init__()
        self.conv, self.bn = nn.Conv2d(3, 8, 3, 1, 1), nn.BatchNorm2d(8, track_running_stats=False)
        self.fc = nn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        return self.fc(F.relu(self.bn(self.conv(x))).flatten(1))


def main():
    ecosim, workdir = sys.argv[1], Path(sys.argv[2])
    workdir.mkdir(parents=True, exist_ok=True)
    zoo = workdir / "train_models.json"
    zoo.write_text(json.dumps({
        "vit_small_test": {"family": "vit", "image_size": 32, "in_chans": 3, "num_classes": 10, "patch_size": 4,
                           "embed_dim": 64, "num_heads": 4, "depth": 2, "mlp_ratio": 4,
                           "distillation_token": False, "native_attention": ["msa"]},
        "bert_test": {"family": "encoder", "seq_len": 64, "embed_dim": 64, "num_heads": 4, "ffn_hidden": 256,
                      "layers": 2, "causal": False, "post_norm": True, "token_type_embedding": True,
                      "embedding_norm": True, "final_norm": False, "lm_head": False, "vocab_size": BERT_VOCAB,
                      "native_attention": ["msa"], "dropout": True},
        "bert_test_no_dropout": {"extends": "bert_test", "dropout": False},
        "swin_test": {"family": "swin", "image_size": 56, "in_chans": 3, "num_classes": 10, "patch_size": 4,
                      "embed_dim": 32, "depths": [2, 2], "num_heads": [2, 4], "lsa_window": 7, "mlp_ratio": 4,
                      "native_attention": ["lsa"]},
        "pvt_dwconv_test": {"family": "hierarchical_vit", "image_size": 64, "in_chans": 3, "num_classes": 10,
                            "embed_dims": [32, 32, 32, 32], "num_heads": [2, 2, 2, 2], "mlp_ratios": [8, 8, 8, 8],
                            "depths": [1, 1, 1, 1], "patch_kernels": [7, 3, 3, 3], "patch_strides": [4, 2, 2, 2],
                            "patch_pads": [3, 1, 1, 1], "mlp_dwconv": True, "mlp_relu": False, "peg": False,
                            "stage_norm": True, "final_norm": False, "msa_stages": [],
                            "native_attention": ["msa"]},
    }))
    model_file = ["--model-file", str(zoo)]
    cases = [
        ("ResNet-18 (basic blocks)", ResNet(BasicBlock, [2, 2, 2, 2]), torch.randn(2, 3, 64, 64),
         ["--model", "resnet18", "--batch", "2", "--resolution", "64"], 0),
        ("ResNet-50 (bottlenecks, v1.5)", ResNet(Bottleneck, [3, 4, 6, 3]), torch.randn(1, 3, 64, 64),
         ["--model", "resnet50", "--batch", "1", "--resolution", "64"], 0),
        ("VGG-11 (max pooling, dropout)", VGG([1, 1, 2, 2, 2]), torch.randn(1, 3, 224, 224),
         ["--model", "vgg11", "--batch", "1"], 0),
        ("ViT (class token, global attention)", ViT(4, 64, 4, 2, 10, 32), torch.randn(2, 3, 32, 32),
         ["--model", "vit_small_test", "--batch", "2", *model_file], 0),
        ("BERT-like post-norm encoder, dropout p = 0.1", Bert(64, 64, 4, 256, 2, 0.1), torch.randn(2, 64, 64),
         ["--model", "bert_test", "--batch", "2", *model_file], BERT_TABLES),
        ("the same encoder, dropout p = 0 (no mask kept)", Bert(64, 64, 4, 256, 2, 0.0), torch.randn(2, 64, 64),
         ["--model", "bert_test_no_dropout", "--batch", "2", *model_file], BERT_TABLES),
        ("Swin (shifted windows, relative position bias, patch merging)", Swin(56, 32, [2, 2], [2, 4], 7, 10),
         torch.randn(2, 3, 56, 56), ["--model", "swin_test", "--batch", "2", *model_file], 0),
        ("PVTv2-like CNN stages (depthwise 3×3 convs in the MLPs)", DwConvPvt(32, 2, 10),
         torch.randn(2, 3, 64, 64), ["--model", "pvt_dwconv_test", "--batch", "2", *model_file], 0),
    ]
    failures = 0
    for i, (name, model, x, args, tables_not_in_module) in enumerate(cases):
        measured = saved_bytes(model, x)
        exported = workdir / f"case{i}.onnx"
        export_training(model, x, exported)
        activation_bytes, parameters = ecosim_step(ecosim, args)
        onnx_activation_bytes, onnx_parameters = ecosim_step(ecosim, ["--onnx", str(exported)])
        for how, modelled in (("ecosim", activation_bytes), ("ecosim --onnx", onnx_activation_bytes)):
            gap = modelled / measured - 1
            ok = abs(gap) <= TOLERANCE
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}: torch saves {measured} B, {how} {modelled} B ({gap:+.3%})")
        # trainable parameters, exactly: the zoo entry's are the module's (embedding tables and class tokens
        # included); the export's are the module's but for the tables the exporter folds into constants (Swin's
        # relative-position bias tables become the gathered biases, read inside the attention block)
        module = sum(p.numel() for p in model.parameters())
        folded = sum(p.numel() for n, p in model.named_parameters() if n.endswith(".table"))
        for how, counted, expected in (("ecosim train", parameters, module + tables_not_in_module),
                                       ("ecosim train --onnx", onnx_parameters, module - folded)):
            ok = counted == expected
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {expected} parameters expected, {how} {counted}")
        # under autocast autograd also saves each weight's fp16 copy, as amp stores it (it did not)
        if args[1] in ("resnet18", "vit_small_test", "bert_test"):
            measured_copies, modelled_copies = autocast_weight_copies(model, x), amp_weight_copy_bytes(ecosim, args)
            ok = modelled_copies == measured_copies
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name} under autocast: torch saves {measured_copies} B of weight "
                  f"copies, ecosim amp {modelled_copies} B")
        # the CNNs' exports under every scheme store what the zoo model of the same network stores (an imported
        # max pool as ActNN's int8 offsets, its int64 indices kept as they are under autocast)
        if args[1] in ("resnet18", "resnet50", "vgg11"):
            schemes = ["actnn:L2", "actnn:L3", "amp", "mesa", "gact:4", "fewbit:2"]
            zoo_bytes, onnx_bytes = scheme_bytes(ecosim, args, schemes), scheme_bytes(ecosim, ["--onnx", str(exported)],
                                                                                        schemes)
            for scheme in schemes:
                ok = onnx_bytes[scheme] == zoo_bytes[scheme]
                failures += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {name} under {scheme}: ecosim {zoo_bytes[scheme]} B, "
                      f"--onnx {onnx_bytes[scheme]} B")
            zoo_pool, onnx_pool = (first_pool_backward_bytes(ecosim, a) for a in (args, ["--onnx", str(exported)]))
            ok = zoo_pool is not None and onnx_pool == zoo_pool
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}: during the first max pool's backward ecosim holds {zoo_pool} B, "
                  f"--onnx {onnx_pool} B")
    # exports reading their tables directly (an embedding gathered, a class token expanded and concatenated, a
    # position table added or gathered by an arange, a head tied to the token table): their parameters, the
    # module's exactly; with their weights (folding finds the tied head's transposed copy, the position rows) and
    # without folding (x @ Wᵀ written as a Transpose of each weight: still the layer's weight, not an activation),
    # their activation bytes too, within 1 % (the saved token ids are not modelled); SiLU as exported (one saved
    # input), a broadcast operand at its own size, a second graph input saved where a layer keeps it, ReLU6 keeping
    # its input, a layer applied three times (its parameters once), a product with a learned table or with data
    # keeping only what a computed gradient needs, a transposed view merged or folded (a copy kept)
    ids = torch.randint(0, 128, (2, 8))
    for name, module, x, export in (
            ("token transformer", TokenTransformer(), torch.randint(0, 100, (2, 9)), {}),
            ("token transformer, not folded, with weights", TokenTransformer(), torch.randint(0, 100, (2, 9)),
             {"fold": False, "strip": False}),
            ("tied language model, with weights", TiedLanguageModel(), ids, {"strip": False}),
            ("tied language model, not folded, with weights", TiedLanguageModel(), ids,
             {"fold": False, "strip": False}),
            ("squeeze-excite block with SiLU", SqueezeExcite(), torch.randn(2, 16, 8, 8), {}),
            ("MobileNetV2's inverted residual (ReLU6 as Clip)", InvertedResidual(), torch.randn(2, 8, 8, 8), {}),
            ("padded average pool, BatchNorm without affine, a whole mean", PaddedAveragePool(),
             torch.randn(2, 3, 16, 16), {}),
            ("LayerNorm without affine, decomposed (opset 14)", NormsWithoutAffine(), torch.randn(4, 6, 16),
             {"opset": 14}),
            ("decoder layer reading a memory input", DecoderWithMemory(), (torch.randn(2, 6, 32), torch.randn(2, 10, 32)),
             {}),
            ("one encoder layer applied three times (shared parameters)", SharedLayers(), torch.randn(2, 6, 32), {}),
            ("LayerScale and a learned temperature", LayerScaleBlock(), torch.randn(2, 5, 16), {}),
            ("graph convolution over an adjacency input, a mask input", GraphConvolution(),
             (torch.randn(10, 8), torch.rand(10, 10), torch.rand(10, 4)), {}),
            ("transposed views reshaped: a flatten copies, a merge in order and a split do not", ChannelsLastHead(),
             torch.randn(3, 3, 6, 6), {}),
            ("a BatchNorm without running statistics", BatchStatisticsNorm(), torch.randn(2, 3, 4, 4), {}),
            ("one head, tied queries and keys, the normed state as values", TiedSingleHead(), torch.randn(2, 6, 16),
             {}),
            ("one head whose keys and values are the input data", InputAsKeysAndValues(), torch.randn(2, 6, 16), {}),
            ("multi-query attention at batch 1", MultiQuery(), torch.randn(1, 8, 16), {}),
            ("scores of the input data weighting learned values", DataScoresLearnedValues(), torch.randn(2, 6, 16),
             {})):
        exported = workdir / f"{name.replace(' ', '_').replace(',', '')}.onnx"
        export_training(module, x, exported, **export)
        modelled, counted = ecosim_step(ecosim, ["--onnx", str(exported)])
        expected = sum(p.numel() for p in module.parameters())
        failures += counted != expected
        print(f"{'ok  ' if counted == expected else 'FAIL'} {name}: {expected} parameters expected, "
              f"ecosim train --onnx {counted}")
        measured = saved_bytes(module, x)
        gap = modelled / measured - 1
        ok = abs(gap) <= TOLERANCE
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: torch saves {measured} B, ecosim --onnx {modelled} B ({gap:+.3%})")
        if name == "token transformer":  # its token ids stay int64 under every scheme (autocast casts no integer)
            run = subprocess.run([ecosim, "train", "--scheme", "amp,mesa,actnn:L3,gact:4", "--format", "json", "--onnx",
                                  str(exported)], capture_output=True, text=True, check=True)
            forms = {t["form"] for s in json.loads(run.stdout)["schemes"] for t in s["saved_tensors"]
                     if t["what"] == "indices"}
            failures += forms != {"int64"}
            print(f"{'ok  ' if forms == {'int64'} else 'FAIL'} {name}: its token ids kept as {sorted(forms)}")
    # an inference export trained is named on stderr (its BatchNorm in inference form: such an export folds a
    # conv's BatchNorm and drops Dropout, leaving their saved tensors out); a training export is not
    # (a BatchNorm after a Linear stays a node in inference form; after a conv it is folded into the conv's weights)
    for name, net, x in (
            ("head", nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32), nn.Dropout(0.1), nn.Linear(32, 4)),
             torch.randn(8, 16)),
            ("conv", nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1), nn.BatchNorm2d(8), nn.ReLU(), nn.Dropout(0.1),
                                   nn.Flatten(), nn.Linear(8 * 6 * 6, 4)), torch.randn(2, 3, 6, 6))):
        inference, training = workdir / f"{name}_inference.onnx", workdir / f"{name}_training.onnx"
        torch.onnx.export(net.eval(), (x,), str(inference), opset_version=17)
        export_training(net, x, training)
        for path, warns in ((inference, True), (training, False)):
            run = subprocess.run([ecosim, "train", "--onnx", str(path)], capture_output=True, text=True)
            warned = "an inference export" in run.stderr
            ok = run.returncode == 0 and warned == warns
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {path.name}: train warns of an inference export: {warned} (want {warns})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
