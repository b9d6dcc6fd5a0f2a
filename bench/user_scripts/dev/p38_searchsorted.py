import torch

@torch.compile
def bucket(x, edges):
    return torch.bucketize(x, edges)

bucket(torch.rand(5), torch.tensor([0.25, 0.5, 0.75]))
