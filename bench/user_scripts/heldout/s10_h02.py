"""Evaluation loop with a running accuracy / loss meter for a small classifier."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)


class AverageMeter:
    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n

    @property
    def avg(self):
        return self.total / max(self.count, 1)


class ConfusionCounter:
    def __init__(self, num_classes):
        self.num_classes = num_classes
        self.mat = torch.zeros(num_classes, num_classes, dtype=torch.long)

    def add(self, preds, targets):
        idx = targets * self.num_classes + preds
        counts = torch.bincount(idx, minlength=self.num_classes ** 2)
        self.mat += counts.view(self.num_classes, self.num_classes)

    def per_class_recall(self):
        diag = self.mat.diag().float()
        return diag / self.mat.sum(dim=1).clamp(min=1).float()


class SmallNet(nn.Module):
    def __init__(self, in_dim=20, hidden=32, num_classes=5):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.bn = nn.BatchNorm1d(hidden)
        self.fc2 = nn.Linear(hidden, num_classes)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        h = F.relu(self.bn(self.fc1(x)))
        return self.fc2(self.drop(h))


def top_k_correct(logits, targets, k):
    _, pred = logits.topk(k, dim=1)
    hit = pred.eq(targets.unsqueeze(1)).any(dim=1)
    return hit.sum()


@torch.compile(backend="eager")
def eval_batch(model, x, y, loss_meter, acc_meter, confusion):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    preds = logits.argmax(dim=1)
    correct = top_k_correct(logits, y, 1)
    top3 = top_k_correct(logits, y, 3)
    bs = x.shape[0]
    loss_meter.update(loss.item(), bs)
    acc_meter.update(correct.float() / bs, bs)
    confusion.add(preds, y)
    return top3


def evaluate(model, batches, num_classes):
    loss_meter = AverageMeter("loss")
    acc_meter = AverageMeter("acc")
    confusion = ConfusionCounter(num_classes)
    top3_total = 0
    for x, y in batches:
        top3_total += int(eval_batch(model, x, y, loss_meter, acc_meter, confusion))
    return loss_meter.avg, acc_meter.avg, top3_total, confusion.per_class_recall()


if __name__ == "__main__":
    num_classes = 5
    model = SmallNet(num_classes=num_classes).eval()
    batches = [(torch.randn(8, 20), torch.randint(0, num_classes, (8,))) for _ in range(4)]
    with torch.no_grad():
        for epoch in range(2):
            loss, acc, top3, recall = evaluate(model, batches, num_classes)
            print(f"epoch {epoch}: loss={loss:.4f} acc={float(acc):.3f} top3={top3}")
            print("recall per class:", [round(r, 3) for r in recall.tolist()])
