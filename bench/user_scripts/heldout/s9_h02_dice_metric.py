import torch
import torch.nn.functional as F


def one_hot(labels, num_classes):
    return F.one_hot(labels.long(), num_classes).permute(0, 3, 1, 2).float()


def dice_per_class(pred, target, eps=1e-6):
    inter = (pred * target).sum(dim=(2, 3))
    denom = pred.sum(dim=(2, 3)) + target.sum(dim=(2, 3))
    return (2 * inter + eps) / (denom + eps)


class DiceMetric:
    def __init__(self, num_classes, ignore_empty=True):
        self.num_classes = num_classes
        self.ignore_empty = ignore_empty

    def __call__(self, logits, labels):
        pred = one_hot(logits.argmax(1), self.num_classes)
        target = one_hot(labels, self.num_classes)
        scores = dice_per_class(pred, target)
        if self.ignore_empty:
            present = target.sum(dim=(2, 3)) > 0
            scores = torch.where(present, scores, torch.nan)
        return scores.nanmean(0)


metric = DiceMetric(3)


@torch.compile
def evaluate(logits, labels):
    scores = metric(logits, labels)
    worst = scores.argmin().item()
    return scores, worst


evaluate(torch.randn(2, 3, 16, 16), torch.randint(0, 3, (2, 16, 16)))
