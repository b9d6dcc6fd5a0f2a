import re
import torch

@torch.compile
def route(x, name):
    m = re.match(r"layer(\d+)", name)
    k = int(m.group(1)) if m else 0
    return x * k

route(torch.randn(4), "layer3")
