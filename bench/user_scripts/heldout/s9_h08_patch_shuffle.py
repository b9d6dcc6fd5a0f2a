import random

import torch
import torch.nn as nn


class PatchShuffle(nn.Module):
    def __init__(self, patch=4, p=0.5):
        super().__init__()
        self.patch = patch
        self.p = p

    def forward(self, img):
        if not self.training or random.random() > self.p:
            return img
        b, c, h, w = img.shape
        ph, pw = h // self.patch, w // self.patch
        patches = img.unfold(2, self.patch, self.patch).unfold(3, self.patch, self.patch)
        patches = patches.reshape(b, c, ph * pw, self.patch, self.patch)
        perm = torch.randperm(ph * pw)
        patches = patches[:, :, perm]
        patches = patches.reshape(b, c, ph, pw, self.patch, self.patch)
        return patches.permute(0, 1, 2, 4, 3, 5).reshape(b, c, h, w)


aug = torch.compile(PatchShuffle())
aug.train()
aug(torch.randn(2, 3, 16, 16))
