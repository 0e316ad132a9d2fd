#!/usr/bin/python3
"""Builds ecosim's ONNX test models in PyTorch and exports them with their weights stripped.

Run with Debian's interpreter (python3-torch and python3-onnx, installed by scripts/setup.sh):
    /usr/bin/python3 scripts/export_models.py [OUT_DIR]      (default tests/ops_counter/data/onnx/models)

Models (batch 1, static shapes, opset 17):
  tiny_vit      ViT: 32×32 image, 8×8 patches (16 tokens + class token), width 64, 2 heads, 2 blocks, 10 classes
  small_cnn     conv 3×3 + ReLU + BatchNorm (after the activation, so the exporter cannot fold it into the
                conv), depthwise-separable blocks (depthwise 3×3 + pointwise 1×1 with bias, HardSwish), max and
                average pooling, Linear classifier
  bert_tiny     BERT-style post-norm encoder over given embeddings: 16 tokens, width 64, 4 heads, 2 layers,
                an additive attention mask from a 0/1 mask input
  pvt_v2_b0     PVTv2-B0 at 224×224, written from ../shared/data/models.md (overlapping patch embeddings,
                spatial-reduction attention with sr ratios 8/4/2/1, MLP with a depthwise 3×3 conv)
  deit_tiny     DeiT-Ti at 224×224 (patch 16, width 192, 3 heads, 12 blocks)
  vit_mha       tiny_vit's shapes on torch.nn.MultiheadAttention (packed in_proj; exported with gradients enabled)
  transformer_encoder  nn.TransformerEncoder(batch_first=True): 2 layers, width 64, 4 heads, feed-forward 128,
                batch 2 × 16 tokens, a boolean key padding mask input
  gpt_tiny      GPT-2 style decoder: vocabulary 100, context 32, 16 tokens, width 64, 4 heads, 2 layers, causal mask
                sliced from a buffer, tanh GELU, LM head
  llama_block   one Llama block: 16 tokens, width 64, 4 query heads, 2 K/V heads (grouped-query, repeat_kv),
                RMSNorm, rotary embedding (torch.outer of positions and frequencies), causal mask (triu), SwiGLU 172
  swin_block    a shifted Swin block as torchvision 0.14 writes it (window 4, shift 2, width 32, 2 heads) on a
                7×7 map: padded to 8×8 by pads computed in the graph, relative-position bias
                gathered by an index buffer, the shifted windows' mask built in the graph
  resnet50      ResNet-50 as torchvision writes it (bottlenecks 3-4-6-3, stride on the 3×3 conv) at 224×224
  vit_b_16      ViT-B/16 at 224×224 (width 768, 12 heads, 12 blocks, MLP 3072, 1000 classes): torchvision's
                vit_b_16 shapes on this script's ViT
  runtime_scale a ViT-style attention whose scale is computed from the input's shape at run time,
                (C // heads) ** -0.5 (a Pow in the graph), applied to the scores: 16 tokens, width 64, 4 heads,
                2 blocks

The counts depend only on the graph and its shapes, never on weight values, so every floating-point
initializer with more than one element is stripped: its dims stay and its data is marked as external
(location "stripped", a file that does not exist and that ecosim never opens). Small integer constants
(the shapes Reshape and friends read) and the constants added to attention scores (a relative-position bias
with its window mask: whether a block is causal is read from them when its attention is swapped) stay inline.
Each file is well under 1 MB.
"""
import math
import pathlib
import sys

import onnx
import torch
from torch import nn
from torch.nn import functional as F

OPSET = 17
STRIPPED_LOCATION = "stripped"


class Attention(nn.Module):
    """Multi-head attention with an optional spatial reduction of keys and values (PVTv2's SRA) and an
    optional additive mask: softmax(q kᵀ · scale + mask) v, then an output projection."""

    def __init__(self, dim, heads, sr_ratio=1, fused_qkv=False):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.scale = self.head_dim ** -0.5
        self.fused_qkv = fused_qkv
        if fused_qkv:
            self.qkv = nn.Linear(dim, 3 * dim)
        else:
            self.q = nn.Linear(dim, dim)
            self.kv = nn.Linear(dim, 2 * dim)
        self.sr_ratio = sr_ratio
        if sr_ratio > 1:
            self.sr = nn.Conv2d(dim, dim, kernel_size=sr_ratio, stride=sr_ratio)
            self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.proj = nn.Linear(dim, dim)

    def split_heads(self, x, parts):
        b, n, _ = x.shape
        return x.reshape(b, n, parts, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)

    def forward(self, x, grid=None, mask=None):
        b, n, c = x.shape
        if self.fused_qkv:
            q, k, v = self.split_heads(self.qkv(x), 3)
        else:
            q = self.split_heads(self.q(x), 1)[0]
            kv_in = x
            if self.sr_ratio > 1:
                h, w = grid
                image = x.transpose(1, 2).reshape(b, c, h, w)
                kv_in = self.norm(self.sr(image).reshape(b, c, -1).transpose(1, 2))
            k, v = self.split_heads(self.kv(kv_in), 2)
        scores = (q @ k.transpose(-2, -1)) * self.scale
        if mask is not None:
            scores = scores + mask
        out = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, n, c)
        return self.proj(out)


class Mlp(nn.Module):
    """fc1 → (depthwise 3×3 conv over the token grid) → GELU → fc2."""

    def __init__(self, dim, hidden, dwconv=False):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.dwconv = nn.Conv2d(hidden, hidden, 3, 1, 1, groups=hidden) if dwconv else None
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x, grid=None):
        x = self.fc1(x)
        if self.dwconv is not None:
            b, n, c = x.shape
            h, w = grid
            x = self.dwconv(x.transpose(1, 2).reshape(b, c, h, w)).flatten(2).transpose(1, 2)
        return self.fc2(self.act(x))


class PreNormBlock(nn.Module):
    """x + Attn(LN(x)); x + MLP(LN(x))."""

    def __init__(self, dim, heads, mlp_ratio, eps, sr_ratio=1, fused_qkv=False, dwconv=False):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=eps)
        self.attn = Attention(dim, heads, sr_ratio, fused_qkv)
        self.norm2 = nn.LayerNorm(dim, eps=eps)
        self.mlp = Mlp(dim, dim * mlp_ratio, dwconv)

    def forward(self, x, grid=None):
        x = x + self.attn(self.norm1(x), grid)
        return x + self.mlp(self.norm2(x), grid)


class PostNormBlock(nn.Module):
    """BERT's layer: LN(x + Attn(x, mask)); LN(x + MLP(x))."""

    def __init__(self, dim, heads, mlp_ratio):
        super().__init__()
        self.attn = Attention(dim, heads, fused_qkv=True)
        self.norm1 = nn.LayerNorm(dim, eps=1e-12)
        self.mlp = Mlp(dim, dim * mlp_ratio)
        self.norm2 = nn.LayerNorm(dim, eps=1e-12)

    def forward(self, x, mask):
        x = self.norm1(x + self.attn(x, mask=mask))
        return self.norm2(x + self.mlp(x))


class ViT(nn.Module):
    """ViT/DeiT: patch conv, class token + position embedding, pre-norm blocks, final LN, class-token head."""

    def __init__(self, image, patch, dim, heads, depth, classes, block=None):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, patch, patch)
        tokens = (image // patch) ** 2 + 1
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, tokens, dim))
        block = block or (lambda: PreNormBlock(dim, heads, 4, 1e-6, fused_qkv=True))
        self.blocks = nn.ModuleList(block() for _ in range(depth))
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, classes)

    def forward(self, image):
        x = self.patch_embed(image).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, 0])


class PvtV2(nn.Module):
    """PVTv2 (models.md): per stage an overlapping patch conv + LN, pre-norm SRA blocks whose MLP has a
    depthwise conv, a stage LN; then the mean of stage 4's tokens and a Linear head."""

    def __init__(self, dims, heads, mlp_ratios, depths, sr_ratios, classes=1000):
        super().__init__()
        self.patch_embeds, self.patch_norms, self.stages, self.norms = (nn.ModuleList() for _ in range(4))
        in_ch = 3
        for s, dim in enumerate(dims):
            kernel, stride = (7, 4) if s == 0 else (3, 2)
            self.patch_embeds.append(nn.Conv2d(in_ch, dim, kernel, stride, kernel // 2))
            self.patch_norms.append(nn.LayerNorm(dim, eps=1e-6))
            self.stages.append(nn.ModuleList(
                PreNormBlock(dim, heads[s], mlp_ratios[s], 1e-6, sr_ratios[s], dwconv=True)
                for _ in range(depths[s])))
            self.norms.append(nn.LayerNorm(dim, eps=1e-6))
            in_ch = dim
        self.head = nn.Linear(dims[-1], classes)

    def forward(self, x):
        b = x.shape[0]
        for s in range(len(self.stages)):
            x = self.patch_embeds[s](x)
            h, w = x.shape[2], x.shape[3]
            x = self.patch_norms[s](x.flatten(2).transpose(1, 2))
            for block in self.stages[s]:
                x = block(x, (h, w))
            x = self.norms[s](x)
            if s + 1 < len(self.stages):
                x = x.reshape(b, h, w, -1).permute(0, 3, 1, 2)
        return self.head(x.mean(dim=1))


class SmallCnn(nn.Module):
    """A MobileNet-like CNN: stem conv + ReLU + BN, two depthwise-separable blocks, pooling, classifier."""

    def __init__(self, classes=10):
        super().__init__()

        def separable(c_in, c_out, stride):
            return nn.Sequential(
                nn.Conv2d(c_in, c_in, 3, stride, 1, groups=c_in, bias=False), nn.BatchNorm2d(c_in), nn.ReLU(),
                nn.Conv2d(c_in, c_out, 1, bias=True), nn.Hardswish())

        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.ReLU(), nn.BatchNorm2d(16))
        self.blocks = nn.Sequential(separable(16, 32, 1), nn.MaxPool2d(2), separable(32, 64, 2))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        return self.head(self.pool(self.blocks(self.stem(x))).flatten(1))


class BertTiny(nn.Module):
    """A BERT-style encoder over given token embeddings with a 0/1 attention mask (1 = attend)."""

    def __init__(self, dim=64, heads=4, layers=2):
        super().__init__()
        self.layers = nn.ModuleList(PostNormBlock(dim, heads, 4) for _ in range(layers))

    def forward(self, embeddings, attention_mask):
        mask = ((1.0 - attention_mask) * -10000.0)[:, None, None, :]
        x = embeddings
        for layer in self.layers:
            x = layer(x, mask)
        return x


class MhaBlock(nn.Module):
    """Pre-norm ViT block on torch.nn.MultiheadAttention (batch_first, packed in_proj)."""

    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class Encoder(nn.Module):
    """nn.TransformerEncoder (batch_first) with a key padding mask (True = padding); causal: also a causal mask,
    "float" (generate_square_subsequent_mask's −inf above the diagonal) or "bool" (True above it)."""

    def __init__(self, dim, heads, ff, layers, causal=None):
        super().__init__()
        layer = nn.TransformerEncoderLayer(dim, heads, ff, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.causal = causal

    def forward(self, x, padding_mask):
        n = x.shape[1]
        mask = None
        if self.causal == "float":
            mask = nn.Transformer.generate_square_subsequent_mask(n)
        elif self.causal == "bool":
            mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        return self.encoder(x, mask=mask, src_key_padding_mask=padding_mask)


class T5SelfAttention(nn.Module):
    """T5's decoder self-attention: no scale, a relative-position bias (a learned table gathered by bucket) added to
    the causal mask before the two are added to the scores."""

    def __init__(self, dim, heads, tokens):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.o = nn.Linear(dim, dim, bias=False)
        self.relative = nn.Embedding(32, heads)
        position = torch.arange(tokens)
        self.register_buffer("buckets", (position[None, :] - position[:, None]).clamp(-16, 15) + 16)
        self.register_buffer("mask", torch.triu(torch.full((tokens, tokens), -1e9), diagonal=1)[None, None])

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        bias = self.relative(self.buckets).permute(2, 0, 1)[None] + self.mask
        p = torch.softmax(q @ k.transpose(-2, -1) + bias, dim=-1)
        return self.o((p @ v).transpose(1, 2).reshape(b, n, c))


class CausalSelfAttention(nn.Module):
    """GPT-2's attention: fused qkv, a causal mask buffer sliced to the sequence, masked_fill, softmax."""

    def __init__(self, dim, heads, context):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)
        self.register_buffer("bias", torch.tril(torch.ones(context, context)).view(1, 1, context, context))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))


class GptBlock(nn.Module):
    def __init__(self, dim, heads, context):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads, context)
        self.ln_2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt(nn.Module):
    """GPT-2 style decoder: token + position embeddings, causal blocks, final LN, tied-size LM head."""

    def __init__(self, vocab, context, dim, heads, layers):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(context, dim)
        self.blocks = nn.ModuleList(GptBlock(dim, heads, context) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx):
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device).unsqueeze(0)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x))


class RmsNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def repeat_kv(x, n_rep):
    """Llama's repeat_kv: each K/V head repeated for its group of query heads (expand + reshape). PyTorch 1.13
    exports repeat_interleave(dim=1) with a Reshape whose copied (0) dimensions are off by one axis, a graph that
    computes the wrong shape (ecosim refuses it: the attention MatMul's batch dimensions do not broadcast)."""
    b, kv, t, d = x.shape
    return x[:, :, None, :, :].expand(b, kv, n_rep, t, d).reshape(b, kv * n_rep, t, d)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class LlamaBlock(nn.Module):
    """Llama: RMSNorm, rotary embedding (torch.outer of positions and frequencies), grouped-query attention
    (K/V heads repeated with repeat_interleave), causal mask (triu), SwiGLU MLP."""

    def __init__(self, dim, heads, kv_heads, hidden):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.attention_norm = RmsNorm(dim)
        self.wq = nn.Linear(dim, heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(heads * self.head_dim, dim, bias=False)
        self.ffn_norm = RmsNorm(dim)
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim)))

    def forward(self, x):
        b, t, _ = x.shape
        h = self.attention_norm(x)
        q = self.wq(h).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.wk(h).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(h).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        freqs = torch.outer(torch.arange(t, device=x.device, dtype=torch.float32), self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k, v = repeat_kv(k, self.heads // self.kv_heads), repeat_kv(v, self.heads // self.kv_heads)
        mask = torch.triu(torch.full((t, t), float("-inf"), device=x.device), diagonal=1)
        scores = q @ k.transpose(2, 3) / math.sqrt(self.head_dim) + mask
        out = (F.softmax(scores.float(), dim=-1).type_as(q) @ v).transpose(1, 2).reshape(b, t, -1)
        x = x + self.wo(out)
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


def shifted_window_attention(x, qkv, proj, bias, window, heads, shift):
    """torchvision 0.14's shifted_window_attention: pad to whole windows, cyclic shift, window partition,
    attention with relative-position bias and the shifted windows' mask, reverse, unpad."""
    b, h, w, c = x.shape
    pad_r = (window - w % window) % window
    pad_b = (window - h % window) % window
    x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
    _, pad_h, pad_w, _ = x.shape
    if shift > 0:
        x = torch.roll(x, shifts=(-shift, -shift), dims=(1, 2))
    windows = (pad_h // window) * (pad_w // window)
    x = x.view(b, pad_h // window, window, pad_w // window, window, c)
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(b * windows, window * window, c)
    qkv = qkv(x).reshape(x.size(0), x.size(1), 3, heads, c // heads).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    q = q * (c // heads) ** -0.5
    attn = q.matmul(k.transpose(-2, -1)) + bias
    if shift > 0:
        mask = x.new_zeros((pad_h, pad_w))
        slices = ((0, -window), (-window, -shift), (-shift, None))
        count = 0
        for hs in slices:
            for ws in slices:
                mask[hs[0]:hs[1], ws[0]:ws[1]] = count
                count += 1
        mask = mask.view(pad_h // window, window, pad_w // window, window)
        mask = mask.permute(0, 2, 1, 3).reshape(windows, window * window)
        mask = mask.unsqueeze(1) - mask.unsqueeze(2)
        mask = mask.masked_fill(mask != 0, float(-100.0)).masked_fill(mask == 0, float(0.0))
        attn = attn.view(x.size(0) // windows, windows, heads, x.size(1), x.size(1))
        attn = attn + mask.unsqueeze(1).unsqueeze(0)
        attn = attn.view(-1, heads, x.size(1), x.size(1))
    attn = F.softmax(attn, dim=-1)
    x = attn.matmul(v).transpose(1, 2).reshape(x.size(0), x.size(1), c)
    x = proj(x)
    x = x.view(b, pad_h // window, pad_w // window, window, window, c)
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(b, pad_h, pad_w, c)
    if shift > 0:
        x = torch.roll(x, shifts=(shift, shift), dims=(1, 2))
    return x[:, :h, :w, :].contiguous()


class Bottleneck(nn.Module):
    """torchvision's ResNet bottleneck (v1.5): 1×1, 3×3 (stride), 1×1 ×4, each with BatchNorm; a projected
    shortcut where the shape changes."""

    def __init__(self, c_in, width, stride):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(c_in, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, 4 * width, 1, bias=False), nn.BatchNorm2d(4 * width))
        self.shortcut = nn.Identity() if stride == 1 and c_in == 4 * width else nn.Sequential(
            nn.Conv2d(c_in, 4 * width, 1, stride, bias=False), nn.BatchNorm2d(4 * width))

    def forward(self, x):
        return F.relu(self.body(x) + self.shortcut(x))


class ResNet50(nn.Module):
    """torchvision's resnet50: 7×7 stem, max pool, stages of 3, 4, 6, 3 bottlenecks, average pool, fc."""

    def __init__(self, classes=1000):
        super().__init__()
        layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
        c_in = 64
        for s, (width, blocks) in enumerate(((64, 3), (128, 4), (256, 6), (512, 3))):
            for b in range(blocks):
                layers.append(Bottleneck(c_in, width, 2 if b == 0 and s > 0 else 1))
                c_in = 4 * width
        self.features = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(2048, classes)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


class RuntimeScaleAttention(nn.Module):
    """Self-attention whose scale follows the input's width at run time: softmax(q kᵀ · (C // heads)^−½) v."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        scale = (c // self.heads) ** -0.5
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        attn = (q @ k.transpose(-2, -1)) * scale
        return x + self.proj((attn.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, n, c))


class SwinBlock(nn.Module):
    """torchvision's SwinTransformerBlock (v1) on a [B, H, W, C] map: pre-norm shifted-window attention with a
    relative-position bias table indexed by a buffer, then a GELU MLP."""

    def __init__(self, dim, heads, window, shift):
        super().__init__()
        self.heads, self.window, self.shift = heads, window, shift
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.relative_position_bias_table = nn.Parameter(torch.zeros((2 * window - 1) ** 2, heads))
        coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")).flatten(1)
        relative = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0).contiguous()
        relative[:, :, 0] += window - 1
        relative[:, :, 1] += window - 1
        relative[:, :, 0] *= 2 * window - 1
        self.register_buffer("relative_position_index", relative.sum(-1).flatten())
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        n = self.window * self.window
        bias = self.relative_position_bias_table[self.relative_position_index].view(n, n, -1)
        bias = bias.permute(2, 0, 1).contiguous().unsqueeze(0)
        x = x + shifted_window_attention(self.norm1(x), self.qkv, self.proj, bias, self.window, self.heads, self.shift)
        return x + self.mlp(self.norm2(x))


class Swin(nn.Module):
    """A shifted Swin block (window 4, shift 2) over a 7×7 map (padded to 8×8 inside the block)."""

    def __init__(self, dim, heads, window):
        super().__init__()
        self.block = SwinBlock(dim, heads, window, window // 2)

    def forward(self, x):
        return self.block(x)


def score_addends(model):
    """Names of the rank-4 initializers whose every consumer is an Add: a bias or mask added to attention scores
    ([batch or 1, heads, queries, keys]), whose values tell a swap whether the block is causal."""
    consumers = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, set()).add(node.op_type)
    return {t.name for t in model.graph.initializer if len(t.dims) == 4 and consumers.get(t.name) == {"Add"}}


def strip_weights(model):
    """Marks every floating-point initializer with more than one element as external data (dims kept), but the
    ones added to attention scores (score_addends), which stay inline."""
    floating = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16, onnx.TensorProto.DOUBLE}
    keep = score_addends(model)
    for tensor in model.graph.initializer:
        if tensor.data_type not in floating or math.prod(tensor.dims) <= 1 or tensor.name in keep:
            continue
        length = len(tensor.raw_data) if tensor.raw_data else 4 * len(tensor.float_data)
        tensor.ClearField("raw_data")
        tensor.ClearField("float_data")
        tensor.data_location = onnx.TensorProto.EXTERNAL
        del tensor.external_data[:]
        for key, value in (("location", STRIPPED_LOCATION), ("offset", "0"), ("length", str(length))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, value
    return model


def export(name, module, inputs, input_names, out_dir, grad=False):
    """grad: export with gradients enabled (nn.MultiheadAttention's inference fast path cannot be exported)."""
    module.eval()
    path = out_dir / f"{name}.onnx"
    tmp = out_dir / f".{name}.full.onnx"
    with torch.set_grad_enabled(grad):
        torch.onnx.export(module, inputs, str(tmp), opset_version=OPSET, input_names=input_names,
                          output_names=["output"], do_constant_folding=True)
    model = onnx.load(str(tmp))
    tmp.unlink()
    onnx.checker.check_model(model)
    model = onnx.shape_inference.infer_shapes(strip_weights(model))
    model.doc_string = f"ecosim test model '{name}' (scripts/export_models.py); weights stripped"
    path.write_bytes(model.SerializeToString())
    print(f"{path}: {path.stat().st_size} bytes, {len(model.graph.node)} nodes")


def main():
    out_dir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "tests/ops_counter/data/onnx/models")
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    image224 = torch.zeros(1, 3, 224, 224)
    export("tiny_vit", ViT(32, 8, 64, 2, 2, 10), (torch.zeros(1, 3, 32, 32),), ["image"], out_dir)
    export("small_cnn", SmallCnn(), (torch.zeros(1, 3, 32, 32),), ["image"], out_dir)
    export("bert_tiny", BertTiny(), (torch.zeros(1, 16, 64), torch.ones(1, 16)), ["embeddings", "attention_mask"],
           out_dir)
    export("pvt_v2_b0", PvtV2([32, 64, 160, 256], [1, 2, 5, 8], [8, 8, 4, 4], [2, 2, 2, 2], [8, 4, 2, 1]),
           (image224,), ["image"], out_dir)
    export("deit_tiny", ViT(224, 16, 192, 3, 12, 1000), (image224,), ["image"], out_dir)
    export("vit_mha", ViT(32, 8, 64, 2, 2, 10, lambda: MhaBlock(64, 2)), (torch.zeros(1, 3, 32, 32),), ["image"], out_dir, grad=True)
    export("transformer_encoder", Encoder(64, 4, 128, 2), (torch.zeros(2, 16, 64), torch.zeros(2, 16, dtype=torch.bool)),
           ["src", "padding_mask"], out_dir, grad=True)
    for causal in ("float", "bool"):  # the causal mask merged with the padding one
        export(f"transformer_encoder_causal_{causal}", Encoder(64, 4, 128, 2, causal),
               (torch.zeros(2, 16, 64), torch.zeros(2, 16, dtype=torch.bool)), ["src", "padding_mask"], out_dir,
               grad=True)
    export("gpt_tiny", Gpt(100, 32, 64, 4, 2), (torch.zeros(1, 16, dtype=torch.long),), ["tokens"], out_dir)
    export("t5_block", T5SelfAttention(64, 4, 16), (torch.zeros(1, 16, 64),), ["x"], out_dir)
    export("llama_block", LlamaBlock(64, 4, 2, 172), (torch.zeros(1, 16, 64),), ["x"], out_dir)
    export("swin_block", Swin(32, 2, 4), (torch.zeros(1, 7, 7, 32),), ["x"], out_dir)
    export("resnet50", ResNet50(), (image224,), ["image"], out_dir)
    export("vit_b_16", ViT(224, 16, 768, 12, 12, 1000), (image224,), ["image"], out_dir)
    export("runtime_scale", nn.Sequential(RuntimeScaleAttention(64, 4), RuntimeScaleAttention(64, 4)),
           (torch.zeros(1, 16, 64),), ["x"], out_dir)


if __name__ == "__main__":
    main()
