import torch

@torch.compile
def class_weights(labels):
    counts = torch.bincount(labels)
    return 1.0 / counts.float()

class_weights(torch.tensor([0, 1, 1, 2]))
