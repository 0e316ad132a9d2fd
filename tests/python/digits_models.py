"""The small networks the Python tests train on scikit-learn's digits (8×8 grey images, 10 classes) and count:
a ResNet in torchvision's layout (basic blocks) on the digits upsampled to 32×32 (its stem and four stages
divide the side by 32: at 8×8 every stage but the first would be one pixel), and a ViT in timm's (class token,
pre-norm blocks, fused qkv) on 4×4 patches of the 8×8 digits; each with the `ecosim train` zoo entry of the same
architecture (zoo_entries) for the saved-bytes check."""
import numpy as np
import torch
import torch.nn as nn
from ecosim.torch import zoo_networks

CNN_WIDTHS, VIT_DIM, VIT_HEADS, VIT_DEPTH, VIT_PATCH = [8, 16, 32, 64], 32, 2, 2, 4
IMAGE, CNN_IMAGE = 8, 32


def digits(seed=0):
    """The 1,797 digits as (images [N, 1, 8, 8] scaled to [0, 1], labels), shuffled by `seed`."""
    from sklearn.datasets import load_digits
    data = load_digits()
    order = np.random.default_rng(seed).permutation(len(data.target))
    images = torch.tensor(data.images[order] / 16.0, dtype=torch.float32).unsqueeze(1)
    return images, torch.tensor(data.target[order], dtype=torch.long)


class ResNet(zoo_networks.ResNet):
    """torchvision's ResNet (7×7 stem, max pool, four stages of one basic block) at the widths given
    (ecosim/torch/zoo_networks.py, the zoo entry digits_resnet), a digit upsampled to the side its stages need."""

    def __init__(self, widths=CNN_WIDTHS, in_chans=1, classes=10):
        super().__init__(zoo_networks.BasicBlock, [1, 1, 1, 1], widths, classes, in_chans)

    def forward(self, x):
        if x.shape[-1] == IMAGE:
            x = nn.functional.interpolate(x, size=CNN_IMAGE, mode="bilinear", align_corners=False)
        return super().forward(x)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        attn = ((q @ k.transpose(-2, -1)) * self.scale).softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(B, N, C))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1, self.attn = nn.LayerNorm(dim), Attention(dim, heads)
        self.norm2, self.fc1, self.act, self.fc2 = nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), \
            nn.Linear(4 * dim, dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.fc2(self.act(self.fc1(self.norm2(x))))


class ViT(nn.Module):
    def __init__(self, dim=VIT_DIM, heads=VIT_HEADS, depth=VIT_DEPTH, patch=VIT_PATCH, in_chans=1, classes=10):
        super().__init__()
        self.patch_embed = nn.Conv2d(in_chans, dim, patch, patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, (IMAGE // patch) ** 2 + 1, dim) * 0.02)
        self.blocks = nn.Sequential(*(Block(dim, heads) for _ in range(depth)))
        self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        return self.head(self.norm(self.blocks(x))[:, 0])


def zoo_entries():
    """The `ecosim train --model-file` entries of the two networks above."""
    return {
        "digits_resnet": {"family": "resnet", "image_size": CNN_IMAGE, "in_chans": 1, "num_classes": 10,
                          "depths": [1, 1, 1, 1], "widths": CNN_WIDTHS, "bottleneck": False},
        "digits_vit": {"family": "vit", "image_size": IMAGE, "in_chans": 1, "num_classes": 10,
                       "patch_size": VIT_PATCH, "embed_dim": VIT_DIM, "num_heads": VIT_HEADS, "depth": VIT_DEPTH,
                       "mlp_ratio": 4, "distillation_token": False, "native_attention": ["msa"]},
    }
