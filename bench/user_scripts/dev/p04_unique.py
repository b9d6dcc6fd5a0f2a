import torch

def count_classes(labels):
    classes = torch.unique(labels)
    return classes.numel()

@torch.compile
def loss_fn(logits, labels):
    n = count_classes(labels)
    return logits.sum() / n

loss_fn(torch.rand(4, 3), torch.tensor([0, 1, 1, 2]))
