import torch

def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {k: to_device(v, device) for k, v in batch.items()}
    return [to_device(v, device) for v in batch]

@torch.compile
def forward(batch):
    batch = to_device(batch, "cpu")
    return batch["x"] * 2 + batch["y"][0]

forward({"x": torch.rand(3), "y": [torch.rand(3)]})
