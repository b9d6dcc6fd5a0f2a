import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_POINTS = 128
K = 8
NUM_CLASSES = 5
BATCH = 4
EPOCHS = 3
BATCHES_PER_EPOCH = 3


def knn(x, k):
    # x: B x C x N
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    xx = torch.sum(x ** 2, dim=1, keepdim=True)
    pairwise = -xx - inner - xx.transpose(2, 1)
    return pairwise.topk(k=k, dim=-1)[1]


def gather_neighbors(x, idx):
    B, C, N = x.shape
    k = idx.shape[-1]
    base = torch.arange(0, B, device=x.device).view(-1, 1, 1) * N
    flat_idx = (idx + base).view(-1)
    feats = x.transpose(2, 1).contiguous().view(B * N, C)[flat_idx]
    feats = feats.view(B, N, k, C)
    center = x.transpose(2, 1).unsqueeze(2).expand(-1, -1, k, -1)
    return torch.cat([feats - center, center], dim=3).permute(0, 3, 1, 2).contiguous()


class EdgeConv(nn.Module):
    def __init__(self, in_ch, out_ch, k):
        super().__init__()
        self.k = k
        self.mlp = nn.Sequential(
            nn.Conv2d(in_ch * 2, out_ch, 1, bias=False),
            nn.BatchNorm2d(out_ch),
            nn.LeakyReLU(0.2),
        )

    def forward(self, x):
        idx = knn(x, self.k)
        edge = gather_neighbors(x, idx)
        return self.mlp(edge).max(dim=-1)[0]


class DGCNNLite(nn.Module):
    def __init__(self, k=K, num_classes=NUM_CLASSES):
        super().__init__()
        self.convs = nn.ModuleList([EdgeConv(3, 32, k), EdgeConv(32, 32, k), EdgeConv(32, 64, k)])
        self.proj = nn.Conv1d(128, 128, 1)
        self.cls = nn.Sequential(nn.Linear(256, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, num_classes))

    def forward(self, pts):
        feats = []
        x = pts
        for conv in self.convs:
            x = conv(x)
            feats.append(x)
        x = self.proj(torch.cat(feats, dim=1))
        x = torch.cat([x.max(dim=-1)[0], x.mean(dim=-1)], dim=1)
        return self.cls(x)


def normalize_cloud(pts):
    pts = pts - pts.mean(axis=0, keepdims=True)
    scale = np.max(np.linalg.norm(pts, axis=1))
    return pts / (scale + 1e-8)


def random_cloud(label):
    n = NUM_POINTS
    if label == 0:
        pts = np.random.randn(n, 3)
    elif label == 1:
        pts = np.random.rand(n, 3) * np.array([2.0, 0.2, 0.2])
    elif label == 2:
        theta = np.random.rand(n) * 2 * np.pi
        pts = np.stack([np.cos(theta), np.sin(theta), np.random.randn(n) * 0.05], axis=1)
    else:
        pts = np.random.rand(n, 3) * (label + 1)
    return normalize_cloud(pts).astype(np.float32)


def make_batch():
    labels = [random.randrange(NUM_CLASSES) for _ in range(BATCH)]
    clouds = [random_cloud(l) for l in labels]
    x = torch.from_numpy(np.stack(clouds)).transpose(1, 2).contiguous()
    return x, torch.tensor(labels)


def jitter(x, sigma=0.01):
    if random.random() < 0.5:
        x = x + sigma * torch.randn_like(x)
    return x


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    model = DGCNNLite()
    model = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(EPOCHS):
        model.train()
        losses, correct, seen = [], 0, 0
        for _ in range(BATCHES_PER_EPOCH):
            x, y = make_batch()
            x = jitter(x)
            logits = model(x)
            loss = F.cross_entropy(logits, y, label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            correct += (logits.argmax(1) == y).sum().item()
            seen += y.numel()
        print(f"epoch {epoch} loss {sum(losses) / len(losses):.4f} acc {correct / seen:.3f}")
    model.eval()
    with torch.no_grad():
        x, y = make_batch()
        pred = model(x).argmax(1)
        print("eval preds", pred.tolist(), "labels", y.tolist())


if __name__ == "__main__":
    main()
