import copy
import math
import numpy as np
import torch
import torch.nn as nn

settings = {"start_lr": 1e-5, "end_lr": 1.0, "num_iter": 12, "beta": 0.9, "diverge_factor": 4.0}


class SmallConvNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def data_iter(bs=8):
    while True:
        x = torch.randn(bs, 1, 12, 12)
        y = (x.mean(dim=(1, 2, 3)) > 0).long() + 2 * (x[:, 0, 0, 0] > 0).long()
        yield x, y


def find_lr(model, criterion, num_iter, start_lr, end_lr, beta, diverge_factor):
    state = copy.deepcopy(model.state_dict())
    opt = torch.optim.SGD(model.parameters(), lr=start_lr, momentum=0.9)
    mult = (end_lr / start_lr) ** (1 / (num_iter - 1))
    compiled = torch.compile(model)
    lrs, losses = [], []
    avg, best = 0.0, math.inf
    it = data_iter()
    for i in range(num_iter):
        x, y = next(it)
        loss = criterion(compiled(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        avg = beta * avg + (1 - beta) * loss.item()
        smoothed = avg / (1 - beta ** (i + 1))
        lr = opt.param_groups[0]["lr"]
        lrs.append(lr)
        losses.append(smoothed)
        if smoothed < best:
            best = smoothed
        if i > 2 and smoothed > diverge_factor * best:
            print(f"stopping early at lr={lr:.2e}, loss is diverging")
            break
        for g in opt.param_groups:
            g["lr"] = lr * mult
    model.load_state_dict(state)
    return np.array(lrs), np.array(losses)


def suggest(lrs, losses):
    if len(losses) < 3:
        return lrs[0]
    grads = np.gradient(losses)
    return lrs[int(np.argmin(grads))]


if __name__ == "__main__":
    torch.manual_seed(0)
    net = SmallConvNet()
    lrs, losses = find_lr(net, nn.CrossEntropyLoss(), **settings)
    for lr, l in zip(lrs[::3], losses[::3]):
        print(f"lr {lr:.2e}  loss {l:.4f}")
    print(f"suggested lr: {suggest(lrs, losses):.2e}")
