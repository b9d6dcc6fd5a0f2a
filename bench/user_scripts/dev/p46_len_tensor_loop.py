import torch

@torch.compile
def per_row_max(x):
    out = []
    for i in range(len(x)):
        out.append(x[i].max())
    return torch.stack(out)

per_row_max(torch.rand(3, 4))
