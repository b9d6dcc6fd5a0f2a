import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

IMG = 48
STEPS = 12
STYLE_LAYERS = ["relu1", "relu2", "relu3"]
CONTENT_LAYER = "relu2"
WEIGHTS = {"content": 1.0, "style": 1e3, "tv": 1e-4}
MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)


class FeatureNet(nn.Module):
    """Stand-in for a frozen pretrained backbone."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleDict({
            "conv1": nn.Conv2d(3, 16, 3, padding=1),
            "relu1": nn.ReLU(),
            "pool1": nn.AvgPool2d(2),
            "conv2": nn.Conv2d(16, 32, 3, padding=1),
            "relu2": nn.ReLU(),
            "pool2": nn.AvgPool2d(2),
            "conv3": nn.Conv2d(32, 32, 3, padding=1),
            "relu3": nn.ReLU(),
        })
        for p in self.parameters():
            p.requires_grad_(False)

    def forward(self, x, wanted):
        feats = {}
        x = (x - MEAN) / STD
        for name, layer in self.layers.items():
            x = layer(x)
            if name in wanted:
                feats[name] = x
            if len(feats) == len(wanted):
                break
        return feats


def gram_matrix(feat):
    b, c, h, w = feat.shape
    f = feat.view(b, c, h * w)
    return torch.bmm(f, f.transpose(1, 2)) / (c * h * w)


def total_variation(img):
    dx = img[:, :, :, 1:] - img[:, :, :, :-1]
    dy = img[:, :, 1:, :] - img[:, :, :-1, :]
    return dx.abs().mean() + dy.abs().mean()


class PerceptualLoss(nn.Module):
    def __init__(self, net, style_img, content_img):
        super().__init__()
        self.net = net
        wanted = set(STYLE_LAYERS) | {CONTENT_LAYER}
        with torch.no_grad():
            sf = net(style_img, wanted)
            cf = net(content_img, wanted)
        self.style_targets = {k: gram_matrix(sf[k]) for k in STYLE_LAYERS}
        self.content_target = cf[CONTENT_LAYER]
        self.wanted = wanted

    def forward(self, img):
        feats = self.net(img, self.wanted)
        c_loss = F.mse_loss(feats[CONTENT_LAYER], self.content_target)
        s_loss = sum(F.mse_loss(gram_matrix(feats[k]), self.style_targets[k]) for k in STYLE_LAYERS)
        tv = total_variation(img)
        total = WEIGHTS["content"] * c_loss + WEIGHTS["style"] * s_loss + WEIGHTS["tv"] * tv
        return total, {"content": c_loss.item(), "style": s_loss.item(), "tv": tv.item()}


def make_texture(size, freq):
    xs = np.linspace(0, 1, size)
    xx, yy = np.meshgrid(xs, xs)
    chans = [np.sin(2 * np.pi * freq * (xx + k * yy)) * 0.5 + 0.5 for k in range(3)]
    return torch.from_numpy(np.stack(chans)[None].astype(np.float32))


if __name__ == "__main__":
    torch.manual_seed(0)
    net = FeatureNet().eval()
    style = make_texture(IMG, freq=6)
    content = torch.rand(1, 3, IMG, IMG)
    criterion = PerceptualLoss(net, style, content)
    criterion = torch.compile(criterion)

    img = content.clone().requires_grad_(True)
    opt = torch.optim.Adam([img], lr=0.03)
    t0 = time.time()
    for step in range(STEPS):
        loss, parts = criterion(img)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            img.clamp_(0, 1)
        if step % 3 == 0 or step == STEPS - 1:
            print(f"[{step:3d}] total={loss.item():.5f} " + " ".join(f"{k}={v:.5f}" for k, v in parts.items()))
    out = img.detach().squeeze(0).permute(1, 2, 0).numpy()
    print("result range", out.min().round(3), out.max().round(3), "elapsed %.1fs" % (time.time() - t0))
