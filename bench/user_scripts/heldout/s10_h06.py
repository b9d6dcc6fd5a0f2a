"""Supervised contrastive (SupCon-style) loss with masks, trained on a tiny encoder."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(6)


class SupConLoss(nn.Module):
    def __init__(self, temperature=0.1, base_temperature=0.1, ignore_index=-1, reduction="mean"):
        super().__init__()
        self.temperature = temperature
        self.base_temperature = base_temperature
        self.ignore_index = ignore_index
        self.reduction = reduction

    def forward(self, features, labels):
        # features: (N, D) already normalized
        n = features.shape[0]
        valid = labels != self.ignore_index
        features = features[valid]
        labels = labels[valid]
        n = features.shape[0]
        sim = features @ features.t() / self.temperature
        sim = sim - sim.max(dim=1, keepdim=True).values.detach()
        self_mask = torch.eye(n, dtype=torch.bool)
        pos_mask = (labels.unsqueeze(0) == labels.unsqueeze(1)) & ~self_mask
        exp_sim = torch.exp(sim).masked_fill(self_mask, 0.0)
        log_prob = sim - torch.log(exp_sim.sum(dim=1, keepdim=True) + 1e-8)
        pos_count = pos_mask.sum(dim=1)
        mean_log_pos = (log_prob * pos_mask).sum(dim=1) / pos_count.clamp(min=1)
        loss = -(self.temperature / self.base_temperature) * mean_log_pos
        has_pos = pos_count > 0
        if self.reduction == "mean":
            return loss[has_pos].mean()
        return loss.sum()


class Encoder(nn.Module):
    def __init__(self, in_dim=12, hidden=32, proj_dim=8):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(), nn.Linear(hidden, hidden))
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(hidden, proj_dim))

    def forward(self, x):
        return F.normalize(self.head(self.backbone(x)), dim=-1)


def make_views(x, noise=0.1):
    return x + noise * torch.randn_like(x), x + noise * torch.randn_like(x)


def train_step(model, criterion, opt, x, y):
    v1, v2 = make_views(x)
    feats = model(torch.cat([v1, v2], dim=0))
    labels = torch.cat([y, y], dim=0)
    loss = criterion(feats, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


if __name__ == "__main__":
    model = Encoder()
    criterion = SupConLoss(temperature=0.2, base_temperature=0.2)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    step_fn = torch.compile(train_step, backend="eager")
    centers = torch.randn(4, 12)
    for step in range(5):
        y = torch.randint(-1, 4, (16,))
        x = centers[y.clamp(min=0)] + 0.3 * torch.randn(16, 12)
        loss = step_fn(model, criterion, opt, x, y)
        print(f"step {step}: supcon loss={loss.item():.4f}")
