import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(16)

SHAPES = ["sphere", "cube", "cylinder"]


def sample_shape(kind, n):
    if kind == "sphere":
        p = torch.randn(n, 3)
        return p / p.norm(dim=1, keepdim=True)
    if kind == "cube":
        p = torch.rand(n, 3) * 2 - 1
        axis = torch.randint(0, 3, (n,))
        p[torch.arange(n), axis] = torch.sign(p[torch.arange(n), axis])
        return p
    theta = torch.rand(n) * 2 * math.pi
    return torch.stack([theta.cos(), theta.sin(), torch.rand(n) * 2 - 1], dim=1)


def random_rotate_z(points):
    angle = torch.rand(points.size(0)) * 2 * math.pi
    c, s = angle.cos(), angle.sin()
    zeros, ones = torch.zeros_like(c), torch.ones_like(c)
    rot = torch.stack([c, -s, zeros, s, c, zeros, zeros, zeros, ones], dim=1).view(-1, 3, 3)
    return points @ rot.transpose(1, 2)


def jitter(points, sigma=0.01, clip=0.05):
    return points + (sigma * torch.randn_like(points)).clamp(-clip, clip)


def knn(x, k):
    # x: (B, C, N)
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    xx = torch.sum(x ** 2, dim=1, keepdim=True)
    pairwise = -xx - inner - xx.transpose(2, 1)
    return pairwise.topk(k=k, dim=-1)[1]


def edge_features(x, k):
    B, C, N = x.shape
    idx = knn(x, k)
    idx = (idx + torch.arange(B).view(-1, 1, 1) * N).view(-1)
    xt = x.transpose(2, 1).contiguous()
    neighbors = xt.view(B * N, -1)[idx].view(B, N, k, C)
    center = xt.view(B, N, 1, C).expand(-1, -1, k, -1)
    return torch.cat([neighbors - center, center], dim=3).permute(0, 3, 1, 2)


class EdgeConv(nn.Module):
    def __init__(self, in_ch, out_ch, k):
        super().__init__()
        self.k = k
        self.mlp = nn.Sequential(nn.Conv2d(2 * in_ch, out_ch, 1, bias=False), nn.BatchNorm2d(out_ch), nn.LeakyReLU(0.2))

    def forward(self, x):
        return self.mlp(edge_features(x, self.k)).max(dim=-1)[0]


class DGCNN(nn.Module):
    def __init__(self, k=8, num_classes=len(SHAPES)):
        super().__init__()
        self.ec1 = EdgeConv(3, 32, k)
        self.ec2 = EdgeConv(32, 32, k)
        self.head = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, num_classes))

    def forward(self, pts):
        x = pts.transpose(1, 2)
        x1 = self.ec1(x)
        x2 = self.ec2(x1)
        feat = torch.cat([x1, x2], dim=1)
        pooled = torch.cat([feat.max(dim=-1)[0], feat.mean(dim=-1)], dim=1)
        return self.head(pooled)


def make_batch(bs=12, n_points=128):
    labels = torch.randint(0, len(SHAPES), (bs,))
    pts = torch.stack([sample_shape(SHAPES[l], n_points) for l in labels.tolist()])
    return jitter(random_rotate_z(pts)), labels


model = DGCNN()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
cmodel = torch.compile(model, backend="eager")

for it in range(6):
    pts, labels = make_batch()
    logits = cmodel(pts)
    loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = (logits.argmax(1) == labels).float().mean().item()
    print(f"iter {it}: loss {loss.item():.4f} acc {acc:.2f}")

model.eval()
per_class = {name: [] for name in SHAPES}
with torch.no_grad():
    pts, labels = make_batch(bs=24)
    preds = cmodel(pts).argmax(1)
for p, l in zip(preds.tolist(), labels.tolist()):
    per_class[SHAPES[l]].append(p == l)
print({k: f"{sum(v)}/{len(v)}" for k, v in per_class.items()})
