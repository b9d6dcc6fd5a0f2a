import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SETTINGS = {"n_points": 128, "n_classes": 4, "batch": 4, "epochs": 3, "iters": 4, "seed": 1}


@torch.compile(dynamic=False)
def farthest_point_sample(xyz, npoint):
    B, N, _ = xyz.shape
    centroids = torch.zeros(B, npoint, dtype=torch.long)
    distance = torch.full((B, N), 1e10)
    farthest = torch.tensor([random.randrange(N) for _ in range(B)], dtype=torch.long)
    batch_idx = torch.arange(B)
    for i in range(npoint):
        centroids[:, i] = farthest
        centroid = xyz[batch_idx, farthest].unsqueeze(1)
        dist = ((xyz - centroid) ** 2).sum(-1)
        distance = torch.minimum(distance, dist)
        farthest = distance.argmax(-1)
    return centroids


def index_points(points, idx):
    B = points.shape[0]
    view = [B] + [1] * (idx.ndim - 1)
    batch = torch.arange(B).view(view).expand_as(idx)
    return points[batch, idx]


def ball_query(radius, nsample, xyz, new_xyz):
    B, N, _ = xyz.shape
    S = new_xyz.shape[1]
    sqr = torch.cdist(new_xyz, xyz) ** 2
    idx = torch.arange(N).view(1, 1, N).repeat(B, S, 1)
    idx[sqr > radius ** 2] = N
    idx = idx.sort(dim=-1)[0][:, :, :nsample]
    first = idx[:, :, :1].expand(-1, -1, nsample)
    idx = torch.where(idx == N, first, idx)
    return idx


class SetAbstraction(nn.Module):
    def __init__(self, npoint, radius, nsample, in_ch, mlp):
        super().__init__()
        self.npoint, self.radius, self.nsample = npoint, radius, nsample
        layers, last = [], in_ch + 3
        for out in mlp:
            layers += [nn.Conv2d(last, out, 1), nn.BatchNorm2d(out), nn.ReLU()]
            last = out
        self.mlp = nn.Sequential(*layers)
        self.out_ch = last

    def forward(self, xyz, feats):
        if self.npoint is None:
            new_xyz = xyz.mean(1, keepdim=True)
            grouped = xyz.unsqueeze(1) - new_xyz.unsqueeze(2)
            if feats is not None:
                grouped = torch.cat([grouped, feats.unsqueeze(1)], -1)
        else:
            fps_idx = farthest_point_sample(xyz, self.npoint)
            new_xyz = index_points(xyz, fps_idx)
            idx = ball_query(self.radius, self.nsample, xyz, new_xyz)
            grouped = index_points(xyz, idx) - new_xyz.unsqueeze(2)
            if feats is not None:
                grouped = torch.cat([grouped, index_points(feats, idx)], -1)
        h = self.mlp(grouped.permute(0, 3, 2, 1))
        return new_xyz, h.max(2)[0].transpose(1, 2)


class PointNet2Cls(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.sa1 = SetAbstraction(32, 0.4, 16, 0, [16, 32])
        self.sa2 = SetAbstraction(8, 0.8, 8, 32, [32, 64])
        self.sa3 = SetAbstraction(None, None, None, 64, [64, 128])
        self.head = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, n_classes))

    def forward(self, xyz):
        xyz1, f1 = self.sa1(xyz, None)
        xyz2, f2 = self.sa2(xyz1, f1)
        _, f3 = self.sa3(xyz2, f2)
        return self.head(f3.squeeze(1))


def synth_shape(label, n):
    pts = np.random.randn(n, 3)
    if label == 0:
        pts /= np.linalg.norm(pts, axis=1, keepdims=True)
    elif label == 1:
        pts = np.random.uniform(-1, 1, (n, 3))
    elif label == 2:
        pts[:, 2] *= 0.05
    else:
        pts[:, :2] *= 0.1
    return pts.astype(np.float32)


def loader(batch, iters, n_points, n_classes):
    for _ in range(iters):
        labels = [random.randrange(n_classes) for _ in range(batch)]
        pts = np.stack([synth_shape(l, n_points) for l in labels])
        yield torch.from_numpy(pts), torch.tensor(labels)


if __name__ == "__main__":
    s = SETTINGS
    random.seed(s["seed"]); np.random.seed(s["seed"]); torch.manual_seed(s["seed"])
    model = PointNet2Cls(s["n_classes"])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    start = time.time()
    for epoch in range(s["epochs"]):
        correct = total = 0
        for xyz, y in loader(s["batch"], s["iters"], s["n_points"], s["n_classes"]):
            logits = model(xyz)
            loss = F.cross_entropy(logits, y)
            opt.zero_grad(); loss.backward(); opt.step()
            correct += (logits.argmax(-1) == y).sum().item()
            total += y.numel()
        print(f"epoch {epoch} loss {loss.item():.3f} acc {correct / total:.2f} ({time.time() - start:.1f}s)")
    sample = torch.from_numpy(synth_shape(0, 64)).unsqueeze(0)
    idx = farthest_point_sample(sample, 8)
    print("fps indices:", idx[0].tolist())
