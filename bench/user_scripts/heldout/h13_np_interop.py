import numpy as np
import torch

@torch.compile
def to_probs(logits):
    probs = torch.softmax(logits, -1)
    best = np.argmax(probs.detach().cpu().numpy(), axis=-1)
    return probs, torch.from_numpy(best)

print(to_probs(torch.rand(3, 4))[1])
