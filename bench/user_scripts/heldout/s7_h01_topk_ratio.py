import torch


class Pruner(torch.nn.Module):
    def __init__(self, ratio=0.5):
        super().__init__()
        self.ratio = ratio

    def forward(self, scores):
        keep = int(scores.numel() * self.ratio)
        vals, idx = scores.flatten().topk(keep)
        threshold = vals.min().item()
        return scores * (scores >= threshold)


torch.compile(Pruner())(torch.randn(4, 4))
