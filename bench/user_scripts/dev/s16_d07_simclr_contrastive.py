import random
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(12)
random.seed(12)


def random_crop_resize(x, scale=(0.6, 1.0)):
    n, c, h, w = x.shape
    s = random.uniform(*scale)
    ch, cw = max(4, int(h * s)), max(4, int(w * s))
    top = random.randint(0, h - ch)
    left = random.randint(0, w - cw)
    crop = x[:, :, top:top + ch, left:left + cw]
    return F.interpolate(crop, size=(h, w), mode="bilinear", align_corners=False)


def color_jitter(x, strength=0.4):
    b = 1 + (torch.rand(x.size(0), 1, 1, 1) - 0.5) * 2 * strength
    c = 1 + (torch.rand(x.size(0), 1, 1, 1) - 0.5) * 2 * strength
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    return ((x - mean) * c + mean) * b


def random_flip(x, p=0.5):
    if random.random() < p:
        return x.flip(-1)
    return x


AUGMENTATIONS = [random_crop_resize, color_jitter, random_flip]


def augment(x):
    for aug in AUGMENTATIONS:
        x = aug(x)
    return x


class Encoder(nn.Module):
    def __init__(self, feat_dim=32, proj_dim=16):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, feat_dim, 3, stride=2, padding=1), nn.BatchNorm2d(feat_dim), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.projector = nn.Sequential(nn.Linear(feat_dim, feat_dim), nn.ReLU(), nn.Linear(feat_dim, proj_dim))

    def forward(self, x):
        return self.projector(self.backbone(x))


def nt_xent(z1, z2, temperature=0.5):
    n = z1.size(0)
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
    sim = z @ z.t() / temperature
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


encoder = Encoder()
opt = torch.optim.SGD(encoder.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
total_steps = 8
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + torch.cos(torch.tensor(s / total_steps * 3.14159)).item()))


@torch.compile(backend="eager")
def contrastive_step(view1, view2):
    z1 = encoder(view1)
    z2 = encoder(view2)
    loss = nt_xent(z1, z2)
    loss.backward()
    with torch.no_grad():
        pos_sim = F.cosine_similarity(z1, z2).mean()
    return loss, pos_sim


images = torch.rand(32, 3, 24, 24)
for step in range(total_steps):
    batch = images[torch.randperm(32)[:16]]
    v1, v2 = augment(batch), augment(batch)
    opt.zero_grad()
    loss, pos_sim = contrastive_step(v1, v2)
    opt.step()
    sched.step()
    print(f"step {step} lr={opt.param_groups[0]['lr']:.4f} loss={loss.item():.4f} pos_sim={pos_sim.item():.3f}")

# linear probe features
encoder.eval()
with torch.no_grad():
    feats = encoder.backbone(images)
print("feature shape", tuple(feats.shape), "mean norm", feats.norm(dim=1).mean().item())
