import random

import torch
import torch.nn as nn
import torch.nn.functional as F


def drop_path(x, drop_prob=0.0, training=False):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    return x * random_tensor / keep_prob


class DropPath(nn.Module):
    def __init__(self, drop_prob=0.0):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        return drop_path(x, self.drop_prob, self.training)

    def extra_repr(self):
        return f"drop_prob={round(self.drop_prob, 3):0.3f}"


class PatchDropout(nn.Module):
    """Randomly keep a subset of patch tokens during training (keeps CLS)."""

    def __init__(self, prob=0.5, num_prefix_tokens=1):
        super().__init__()
        assert 0 <= prob < 1.0
        self.prob = prob
        self.num_prefix_tokens = num_prefix_tokens

    def forward(self, x):
        if not self.training or self.prob == 0.0:
            return x
        prefix, x = x[:, : self.num_prefix_tokens], x[:, self.num_prefix_tokens:]
        B, L = x.shape[:2]
        num_keep = max(1, int(L * (1.0 - self.prob)))
        keep_indices = torch.argsort(torch.randn(B, L), dim=-1)[:, :num_keep]
        x = x.gather(1, keep_indices.unsqueeze(-1).expand(-1, -1, x.shape[-1]))
        return torch.cat([prefix, x], dim=1)


class Attention(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(out)


class Block(nn.Module):
    def __init__(self, dim, heads, mlp_ratio=2.0, drop_path=0.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(
            nn.Linear(dim, int(dim * mlp_ratio)), nn.GELU(), nn.Linear(int(dim * mlp_ratio), dim)
        )
        self.drop_path = DropPath(drop_path) if drop_path > 0 else nn.Identity()

    def forward(self, x):
        x = x + self.drop_path(self.attn(self.norm1(x)))
        x = x + self.drop_path(self.mlp(self.norm2(x)))
        return x


class TinyViT(nn.Module):
    def __init__(self, img_size=32, patch=8, dim=48, depth=4, heads=4,
                 num_classes=10, drop_path_rate=0.1, patch_drop=0.25):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)
        num_patches = (img_size // patch) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, dim) * 0.02)
        self.patch_drop = PatchDropout(patch_drop)
        dpr = [x.item() for x in torch.linspace(0, drop_path_rate, depth)]
        self.blocks = nn.ModuleList([Block(dim, heads, drop_path=dpr[i]) for i in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos_embed
        x = self.patch_drop(x)
        for blk in self.blocks:
            x = blk(x)
        x = self.norm(x)
        return self.head(x[:, 0])


def main():
    random.seed(0)
    torch.manual_seed(0)
    model = TinyViT()
    n_params = sum(p.numel() for p in model.parameters())
    print(f"params: {n_params / 1e3:.1f}k")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    cmodel = torch.compile(model, backend="eager")

    for step in range(3):
        images = torch.randn(4, 3, 32, 32)
        labels = torch.randint(0, 10, (4,))
        logits = cmodel(images)
        loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f}")

    cmodel.eval()
    with torch.no_grad():
        out = cmodel(torch.randn(2, 3, 32, 32))
    print("eval logits shape:", tuple(out.shape))


if __name__ == "__main__":
    main()
