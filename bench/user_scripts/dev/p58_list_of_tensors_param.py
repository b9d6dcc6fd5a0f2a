import torch

def merge(feats):
    out = feats[0]
    for f in feats[1:]:
        if f.mean() > out.mean():
            out = f
    return out

@torch.compile
def pick(a, b, c):
    return merge([a, b, c])

pick(torch.rand(3), torch.rand(3), torch.rand(3))
