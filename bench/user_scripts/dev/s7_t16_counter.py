from collections import Counter

import torch


@torch.compile
def label_weights(logits, labels):
    counts = Counter(labels.tolist())
    w = torch.tensor([1.0 / counts[i] for i in range(3)])
    return (logits * w).sum()


label_weights(torch.randn(3), torch.tensor([0, 1, 1, 2]))
