import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        logits = self.fc(x)
        pred = logits.argmax(-1)
        return logits, pred.unique()


def main():
    model = Net()
    model = torch.compile(model, backend="eager")
    model(torch.randn(3, 4))


if __name__ == "__main__":
    main()
