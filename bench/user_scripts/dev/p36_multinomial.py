import torch

@torch.compile
def sample(logits):
    probs = logits.softmax(-1)
    nxt = torch.multinomial(probs, 1)
    return nxt

sample(torch.rand(2, 5))
