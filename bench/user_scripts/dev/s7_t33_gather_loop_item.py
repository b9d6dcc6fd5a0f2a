import torch


def decode(logits):
    out = []
    for step in range(logits.shape[0]):
        tok = logits[step].argmax()
        out.append(int(tok))
    return out


@torch.compile
def greedy(logits):
    ids = decode(logits)
    return torch.tensor(ids)


greedy(torch.randn(4, 10))
