"""A small training script for `breakscan run`: a compiled model and a compiled loss step.

It breaks twice on purpose (a `.item()` in the loss step, a `print` in the model) and its
batch size changes once (a recompile). `--exit N` makes it exit with status N at the end;
`--raise` makes it raise after training.
"""

import argparse
import sys

import torch
from torch import nn


class TinyNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        print("forward", h.shape)  # a graph break in the compiled model
        return self.fc2(h)


def loss_step(pred, target):
    loss = nn.functional.mse_loss(pred, target)
    value = loss.item()  # a graph break in the compiled loss step
    return loss, value


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--exit", type=int, default=0)
    parser.add_argument("--raise", dest="do_raise", action="store_true")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    model = torch.compile(TinyNet())
    step = torch.compile(loss_step)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i in range(args.steps):
        batch = 4 if i < 2 else 6  # the third step changes the batch size: a recompile
        x, y = torch.randn(batch, 8), torch.randn(batch, 1)
        loss, value = step(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {i} loss {value:.4f}")
    print("training done", file=sys.stderr)
    if args.do_raise:
        raise RuntimeError("failed after training")
    sys.exit(args.exit)


if __name__ == "__main__":
    main()
