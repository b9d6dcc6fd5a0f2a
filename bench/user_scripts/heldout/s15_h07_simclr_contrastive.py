import torch
import torch.nn as nn
import torch.nn.functional as F


def random_crop_flip(x, out=12):
    b, c, h, w = x.shape
    views = []
    for img in x:
        i = torch.randint(0, h - out + 1, (1,)).item()
        j = torch.randint(0, w - out + 1, (1,)).item()
        crop = img[:, i : i + out, j : j + out]
        if torch.rand(1) < 0.5:
            crop = crop.flip(-1)
        views.append(crop)
    return torch.stack(views)


def color_jitter(x, strength=0.4):
    b = x.shape[0]
    brightness = 1 + (torch.rand(b, 1, 1, 1) - 0.5) * strength
    contrast = 1 + (torch.rand(b, 1, 1, 1) - 0.5) * strength
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    return ((x - mean) * contrast + mean) * brightness


class Encoder(nn.Module):
    def __init__(self, dim=32, proj=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, dim, 3, padding=1), nn.BatchNorm2d(dim), nn.ReLU(),
            nn.Conv2d(dim, dim, 3, stride=2, padding=1), nn.BatchNorm2d(dim), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.proj = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, proj))

    def forward(self, x):
        h = self.net(x)
        return h, self.proj(h)


@torch.compile(backend="eager")
def nt_xent(z1, z2, tau=0.2):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    n = z1.shape[0]
    sim = z @ z.T / tau
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    loss = F.cross_entropy(sim, targets)
    with torch.no_grad():
        top1 = (sim.argmax(1) == targets).float().mean()
    return loss, top1


def linear_probe(encoder, x, y, n_classes, steps=20):
    with torch.no_grad():
        feats, _ = encoder(x)
    clf = nn.Linear(feats.shape[1], n_classes)
    opt = torch.optim.LBFGS(clf.parameters(), max_iter=steps)

    def closure():
        opt.zero_grad()
        l = F.cross_entropy(clf(feats), y)
        l.backward()
        return l

    opt.step(closure)
    return (clf(feats).argmax(1) == y).float().mean().item()


def main():
    torch.manual_seed(0)
    enc = Encoder()
    opt = torch.optim.Adam(enc.parameters(), lr=3e-3)
    images = torch.rand(32, 3, 16, 16)
    labels = (images[:, 0].mean((1, 2)) > images[:, 2].mean((1, 2))).long()
    for epoch in range(4):
        batch = images[torch.randperm(32)[:12]]
        v1 = color_jitter(random_crop_flip(batch))
        v2 = color_jitter(random_crop_flip(batch))
        _, z1 = enc(v1)
        _, z2 = enc(v2)
        loss, acc = nt_xent(z1, z2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"epoch {epoch} nt-xent {loss.item():.4f} pos@1 {acc.item():.2f}")
    enc.eval()
    probe_acc = linear_probe(enc, F.interpolate(images, size=12), labels, 2)
    print(f"linear probe acc {probe_acc:.3f}")


if __name__ == "__main__":
    main()
