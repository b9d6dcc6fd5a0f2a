import torch
import torch.nn as nn

class PatchEmbed(nn.Module):
    def __init__(self, patch=4, dim=16):
        super().__init__()
        self.patch = patch
        self.proj = nn.Conv2d(3, dim, patch, patch)

    def forward(self, img):
        h, w = img.shape[-2:]
        if h % self.patch != 0:
            raise ValueError(f"height {h} not divisible by {self.patch}")
        x = self.proj(img).flatten(2).transpose(1, 2)
        return x

pe = torch.compile(PatchEmbed())
print(pe(torch.rand(1, 3, 16, 16)).shape)
