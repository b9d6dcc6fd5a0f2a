import torch


@torch.compile
def n_correct(preds, labels):
    return sum(p == l for p, l in zip(preds.argmax(-1), labels))


n_correct(torch.randn(4, 3), torch.tensor([0, 1, 2, 0]))
