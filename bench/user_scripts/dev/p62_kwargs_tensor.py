import torch

def attention(q, k, v, scale=None, causal=False):
    scale = scale or q.shape[-1] ** -0.5
    w = (q @ k.transpose(-1, -2)) * scale
    if causal:
        w = w.masked_fill(torch.ones_like(w).triu(1).bool(), float("-inf"))
    return w.softmax(-1) @ v

@torch.compile
def f(q, k, v, s):
    return attention(q, k, v, scale=s, causal=True)

f(torch.rand(1, 3, 4), torch.rand(1, 3, 4), torch.rand(1, 3, 4), torch.tensor(0.5))
