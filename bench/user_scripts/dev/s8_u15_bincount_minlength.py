import torch


@torch.compile
def class_weights(labels, num_classes):
    counts = torch.bincount(labels, minlength=num_classes).float()
    return counts.sum() / (num_classes * counts.clamp(min=1))


class_weights(torch.tensor([0, 1, 1, 2]), 3)
