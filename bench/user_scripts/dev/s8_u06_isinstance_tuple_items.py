import torch


@torch.compile
def flatten_outputs(outputs):
    flat = []
    for o in outputs:
        if isinstance(o, (list, tuple)):
            flat.extend(o)
        else:
            flat.append(o)
    return torch.cat([f.flatten() for f in flat])


flatten_outputs([torch.randn(2), (torch.randn(3), torch.randn(1))])
