import copy
import json
import logging
import torch
import torch.nn as nn
import torch.nn.functional as F

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
log = logging.getLogger("train")


class ModelEMA:
    def __init__(self, model, decay=0.9):
        self.ema = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.ema.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        msd = model.state_dict()
        for k, v in self.ema.state_dict().items():
            if v.dtype.is_floating_point:
                v.mul_(self.decay).add_(msd[k].detach(), alpha=1 - self.decay)


class Classifier(nn.Module):
    def __init__(self, in_dim=24, hidden=48, n_classes=6, p=0.1):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.bn = nn.BatchNorm1d(hidden)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.bn(self.fc1(x)))))


def evaluate(model, loader, n_classes):
    total, correct, loss_sum = 0, 0, 0.0
    per_class = torch.zeros(n_classes)
    counts = torch.zeros(n_classes)
    for x, y in loader:
        logits = model(x)
        loss_sum += F.cross_entropy(logits, y, reduction="sum").item()
        pred = logits.argmax(-1)
        hit = pred == y
        correct += hit.sum().item()
        total += y.numel()
        per_class.index_add_(0, y, hit.float())
        counts.index_add_(0, y, torch.ones_like(y, dtype=torch.float))
        if total > 1000:
            log.warning("eval truncated")
            break
    balanced = (per_class / counts.clamp(min=1))[counts > 0].mean().item()
    return {"loss": loss_sum / total, "acc": correct / total, "bal_acc": balanced}


def make_loader(X, Y, bs):
    return [(X[i : i + bs], Y[i : i + bs]) for i in range(0, len(X), bs)]


def main():
    torch.manual_seed(0)
    n_classes = 6
    centers = torch.randn(n_classes, 24) * 2
    Y = torch.randint(0, n_classes, (160,))
    X = centers[Y] + torch.randn(160, 24)
    train, val = make_loader(X[:128], Y[:128], 16), make_loader(X[128:], Y[128:], 16)

    model = Classifier()
    ema = ModelEMA(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=3 * len(train))
    eval_model = torch.compile(evaluate, backend="eager")
    history = []
    for epoch in range(3):
        model.train()
        for x, y in train:
            loss = F.cross_entropy(model(x), y, label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            ema.update(model)
        model.eval()
        with torch.no_grad():
            m = eval_model(model, val, n_classes)
            e = eval_model(ema.ema, val, n_classes)
        history.append({"epoch": epoch, "lr": sched.get_last_lr()[0], "model": m, "ema": e})
        log.info("epoch %d acc %.3f ema_acc %.3f", epoch, m["acc"], e["acc"])
    print(json.dumps(history[-1], indent=1))


if __name__ == "__main__":
    main()
