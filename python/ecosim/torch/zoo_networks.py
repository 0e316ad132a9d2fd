"""ecosim zoo models as PyTorch modules, in the layouts the zoo counts: torchvision's ResNet (v1.5) and VGG, timm's
DeiT/ViT (fused qkv, scores scaled after q·kᵀ, class token, pre-norm blocks, tanh GELU), and BERT's post-norm
encoder with its dropouts. Built from a zoo entry (ops_counter/data/model_zoo.json, or a user's --model-file), so
the hyper-parameters stay defined in the zoo alone — for measuring a real training step beside `ecosim train`'s
model of it (ecosim/torch/step_time.py) and for the tests that check what autograd saves. Plain torch with no
other import, so a script may load this file on its own.

    entry = resolve(json.load(open("ops_counter/data/model_zoo.json")), "resnet50")
    model, x = network(entry), example_input(entry, batch=32)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def resolve(zoo, name):
    """The zoo entry `name` with the entries it extends merged under it (as ecosim's zoo reads "extends")."""
    if name not in zoo:
        raise ValueError(f"no zoo entry '{name}'")
    entry = dict(zoo[name])
    parent = entry.pop("extends", None)
    return {**resolve(zoo, parent), **entry} if parent else entry


def network(entry):
    """The PyTorch module of a zoo entry of family resnet, vgg, vit or encoder (BERT's layout); ValueError otherwise."""
    family = entry.get("family")
    if family == "resnet":
        block = Bottleneck if entry["bottleneck"] else BasicBlock
        return ResNet(block, entry["depths"], entry["widths"], entry["num_classes"], entry.get("in_chans", 3))
    if family == "vgg":
        return VGG(entry["stage_convs"], entry["stage_widths"], entry["classifier_hidden"], entry["num_classes"],
                   0.5 if entry.get("dropout", True) else 0.0, entry.get("in_chans", 3))
    if family == "vit" and not entry.get("distillation_token", False):
        return ViT(entry["patch_size"], entry["embed_dim"], entry["num_heads"], entry["depth"], entry["num_classes"],
                   entry["image_size"], entry.get("mlp_ratio", 4), entry.get("in_chans", 3))
    bert = {"post_norm": True, "causal": False, "token_type_embedding": True, "embedding_norm": True,
            "final_norm": False, "lm_head": False}  # the encoder layout Bert builds
    if family == "encoder" and all(entry.get(key) == value for key, value in bert.items()):
        return Bert(entry["seq_len"], entry["embed_dim"], entry["num_heads"], entry["ffn_hidden"], entry["layers"],
                    0.1 if entry.get("dropout") else 0.0)
    raise ValueError(f"no PyTorch network for a zoo entry of family '{family}' with these settings "
                     "(built: resnet, vgg, vit without a distillation token, BERT's post-norm encoder)")


def example_input(entry, batch, resolution=None):
    """A random input of the entry's shape: images [batch, 3, H, W] (H = resolution or the entry's image_size), or an
    encoder's token embeddings [batch, seq_len, embed_dim] (the lookup is not a layer of ecosim's encoder)."""
    if entry.get("family") == "encoder":
        if resolution:
            raise ValueError("an encoder takes tokens: a resolution does not apply")
        return torch.randn(batch, entry["seq_len"], entry["embed_dim"])
    if resolution and entry.get("family") == "vit" and resolution != entry["image_size"]:
        raise ValueError(f"a ViT's position embeddings fix its image size ({entry['image_size']}): give that "
                         "resolution or none")
    size = resolution or entry["image_size"]
    return torch.randn(batch, entry.get("in_chans", 3), size, size)


# ---- ResNet, torchvision's v1.5 layout ----------------------------------------------------------------------


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample(inplanes, planes, stride)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.downsample(x) if self.downsample is not None else x
        return self.relu(out)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample(inplanes, planes * 4, stride)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        out += self.downsample(x) if self.downsample is not None else x
        return self.relu(out)


def downsample(inplanes, planes, stride):
    if stride == 1 and inplanes == planes:
        return None
    return nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))


class ResNet(nn.Module):
    def __init__(self, block, depths, widths=(64, 128, 256, 512), classes=1000, in_chans=3):
        super().__init__()
        self.conv1 = nn.Conv2d(in_chans, widths[0], 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        layers, inplanes = [], widths[0]
        for s, (planes, depth) in enumerate(zip(widths, depths)):
            for i in range(depth):
                layers.append(block(inplanes, planes, 2 if i == 0 and s > 0 else 1))
                inplanes = planes * block.expansion
        self.layers = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(inplanes, classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.avgpool(self.layers(x))
        return self.fc(torch.flatten(x, 1))


# ---- VGG, torchvision's layout (dropout in the classifier) ---------------------------------------------------


class VGG(nn.Module):
    def __init__(self, stage_convs, widths=(64, 128, 256, 512, 512), hidden=4096, classes=1000, dropout=0.5,
                 in_chans=3):
        super().__init__()
        layers, in_ch = [], in_chans
        for convs, width in zip(stage_convs, widths):
            for _ in range(convs):
                layers += [nn.Conv2d(in_ch, width, 3, padding=1), nn.ReLU(inplace=True)]
                in_ch = width
            layers.append(nn.MaxPool2d(2, 2))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(nn.Linear(in_ch * 49, hidden), nn.ReLU(True), nn.Dropout(dropout),
                                        nn.Linear(hidden, hidden), nn.ReLU(True), nn.Dropout(dropout),
                                        nn.Linear(hidden, classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


# ---- transformers (timm's layout: fused qkv, scores scaled after q·kᵀ) ---------------------------------------


class Attention(nn.Module):
    def __init__(self, dim, heads, attn_drop=0.0):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.attn_drop = nn.Dropout(attn_drop)

    def forward(self, x, bias=None):
        B, N, C = x.shape
        q, k, v = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        if bias is not None:
            attn = attn + bias
        attn = self.attn_drop(attn.softmax(dim=-1))
        return self.proj((attn @ v).transpose(1, 2).reshape(B, N, C))


class Mlp(nn.Module):
    def __init__(self, dim, hidden, dwconv=False):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(dim, hidden), nn.Linear(hidden, dim)
        self.dwconv = nn.Conv2d(hidden, hidden, 3, 1, 1, groups=hidden) if dwconv else None

    def forward(self, x, hw=None):
        x = self.fc1(x)
        if self.dwconv is not None:  # PVTv2: a depthwise 3×3 conv over the token grid
            B, N, C = x.shape
            x = self.dwconv(x.transpose(1, 2).view(B, C, *hw)).flatten(2).transpose(1, 2)
        return self.fc2(F.gelu(x, approximate="tanh"))


class PreNormBlock(nn.Module):
    def __init__(self, dim, heads, hidden, dwconv=False):
        super().__init__()
        self.norm1, self.attn = nn.LayerNorm(dim), Attention(dim, heads)
        self.norm2, self.mlp = nn.LayerNorm(dim), Mlp(dim, hidden, dwconv)

    def forward(self, x, hw=None):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x), hw)


class ViT(nn.Module):
    def __init__(self, patch, dim, heads, depth, classes, image_size, mlp_ratio=4, in_chans=3):
        super().__init__()
        self.patch_embed = nn.Conv2d(in_chans, dim, patch, patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, (image_size // patch) ** 2 + 1, dim))
        self.blocks = nn.ModuleList(PreNormBlock(dim, heads, mlp_ratio * dim) for _ in range(depth))
        self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, 0])


# ---- BERT's post-norm encoder -----------------------------------------------------------------------------------


class BertLayer(nn.Module):
    """Post-norm encoder layer with BERT's dropouts (on the attention probabilities, and after the attention and
    FFN outputs)."""

    def __init__(self, dim, heads, hidden, p):
        super().__init__()
        self.attn, self.drop1, self.norm1 = Attention(dim, heads, p), nn.Dropout(p), nn.LayerNorm(dim)
        self.fc1, self.fc2, self.drop2, self.norm2 = nn.Linear(dim, hidden), nn.Linear(hidden, dim), nn.Dropout(p), \
            nn.LayerNorm(dim)

    def forward(self, x):
        x = self.norm1(x + self.drop1(self.attn(x)))
        return self.norm2(x + self.drop2(self.fc2(F.gelu(self.fc1(x), approximate="tanh"))))


class Bert(nn.Module):
    """BERT's encoder from its token embeddings: position and token-type embeddings added, LayerNorm, dropout, then
    the layers."""

    def __init__(self, seq, dim, heads, hidden, layers, p):
        super().__init__()
        self.position = nn.Parameter(torch.zeros(seq, dim))
        self.token_type = nn.Parameter(torch.zeros(dim))
        self.norm, self.drop = nn.LayerNorm(dim), nn.Dropout(p)
        self.layers = nn.ModuleList(BertLayer(dim, heads, hidden, p) for _ in range(layers))

    def forward(self, tokens):
        x = self.drop(self.norm(tokens + self.position + self.token_type))
        for layer in self.layers:
            x = layer(x)
        return x
