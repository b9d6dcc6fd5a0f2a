import torch
import torch.nn as nn
import torch.nn.functional as F
from dataclasses import dataclass


@dataclass
class KDConfig:
    temperature: float = 4.0
    alpha: float = 0.7
    lr: float = 5e-3
    n_classes: int = 10
    epochs: int = 2


def mlp(sizes, dropout=0.0):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers += [nn.ReLU(), nn.Dropout(dropout)]
    return nn.Sequential(*layers)


class Teacher(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.body = mlp([20, 64, 64, n_classes], dropout=0.2)

    def forward(self, x):
        return self.body(x)


class Student(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.body = mlp([20, 16, n_classes])

    def forward(self, x):
        return self.body(x)


def kd_loss(student_logits, teacher_logits, labels, T, alpha):
    soft = F.kl_div(F.log_softmax(student_logits / T, dim=-1), F.softmax(teacher_logits / T, dim=-1),
                    reduction="batchmean") * (T * T)
    hard = F.cross_entropy(student_logits, labels)
    return alpha * soft + (1 - alpha) * hard


cfg = KDConfig()
teacher = Teacher(cfg.n_classes).eval()
student = Student(cfg.n_classes)
opt = torch.optim.Adam(student.parameters(), lr=cfg.lr)


@torch.compile
def distill_step(x, y):
    with torch.no_grad():
        t_logits = teacher(x)
    s_logits = student(x)
    loss = kd_loss(s_logits, t_logits, y, cfg.temperature, cfg.alpha)
    agree = (s_logits.argmax(-1) == t_logits.argmax(-1)).float().mean()
    return loss, agree


def batches(n_batches, bs=8):
    g = torch.Generator().manual_seed(123)
    for _ in range(n_batches):
        x = torch.randn(bs, 20, generator=g)
        y = (x[:, :cfg.n_classes].argmax(-1))
        yield x, y


if __name__ == "__main__":
    torch.manual_seed(0)
    for epoch in range(cfg.epochs):
        stats = {"loss": [], "agree": []}
        for x, y in batches(4):
            loss, agree = distill_step(x, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            stats["loss"].append(loss.item())
            stats["agree"].append(agree.item())
        summary = {k: sum(v) / len(v) for k, v in stats.items()}
        print(f"epoch {epoch} " + " ".join(f"{k}={v:.4f}" for k, v in summary.items()))
        if summary["agree"] > 0.95:
            print("student matches teacher, stopping")
            break
