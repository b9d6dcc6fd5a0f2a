import inspect
import torch

def act(x, inplace=False):
    return torch.relu(x)

@torch.compile
def apply(x, fn=act):
    if "inplace" in inspect.signature(fn).parameters:
        return fn(x, inplace=False)
    return fn(x)

apply(torch.randn(4))
