import hashlib
import torch


@torch.compile
def fingerprint(x):
    digest = hashlib.sha1(x.detach().numpy().tobytes()).hexdigest()
    return x * 2, digest


fingerprint(torch.randn(4))
