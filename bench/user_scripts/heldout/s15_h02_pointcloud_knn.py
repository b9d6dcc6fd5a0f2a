import torch
import torch.nn as nn
import torch.nn.functional as F


def knn(x, k):
    # x: (B, N, 3)
    d = torch.cdist(x, x)
    idx = d.topk(k + 1, largest=False).indices[..., 1:]
    return idx


def gather_neighbors(feat, idx):
    B, N, C = feat.shape
    k = idx.shape[-1]
    batch_idx = torch.arange(B).view(B, 1, 1).expand(B, N, k)
    return feat[batch_idx, idx]


class EdgeConv(nn.Module):
    def __init__(self, c_in, c_out, k):
        super().__init__()
        self.k = k
        self.mlp = nn.Sequential(nn.Linear(2 * c_in, c_out), nn.ReLU(), nn.Linear(c_out, c_out))

    def forward(self, feat, idx):
        nbrs = gather_neighbors(feat, idx)
        center = feat.unsqueeze(2).expand_as(nbrs)
        edge = torch.cat([center, nbrs - center], dim=-1)
        return self.mlp(edge).max(dim=2).values


class DGCNNLite(nn.Module):
    def __init__(self, k=6, num_classes=3):
        super().__init__()
        self.k = k
        self.ec1 = EdgeConv(3, 32, k)
        self.ec2 = EdgeConv(32, 48, k)
        self.cls = nn.Linear(32 + 48, num_classes)

    def forward(self, pts):
        idx = knn(pts, self.k)
        f1 = self.ec1(pts, idx)
        idx2 = knn(f1, self.k)
        f2 = self.ec2(f1, idx2)
        g = torch.cat([f1, f2], -1).max(dim=1).values
        return self.cls(g)


def random_shape(label, n):
    if label == 0:
        p = torch.randn(n, 3)
        return p / p.norm(dim=1, keepdim=True)
    if label == 1:
        return torch.rand(n, 3) * 2 - 1
    t = torch.rand(n) * 6.28
    return torch.stack([t.cos(), t.sin(), torch.randn(n) * 0.05], 1)


def augment(pts):
    theta = torch.rand(1).item() * 6.28
    c, s = torch.cos(torch.tensor(theta)), torch.sin(torch.tensor(theta))
    rot = torch.tensor([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return pts @ rot.T * (0.8 + 0.4 * torch.rand(1)) + 0.01 * torch.randn_like(pts)


def main():
    torch.manual_seed(3)
    model = DGCNNLite()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    train_step_model = torch.compile(model.forward, backend="eager")
    for epoch in range(3):
        labels = torch.randint(0, 3, (8,))
        pts = torch.stack([augment(random_shape(int(l), 64)) for l in labels])
        logits = train_step_model(pts)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        correct = (logits.argmax(1) == labels).sum().item()
        print(f"epoch {epoch}: loss={loss.item():.4f} correct={correct}/{len(labels)}")


if __name__ == "__main__":
    main()
