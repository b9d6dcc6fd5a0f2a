import torch

@torch.compile
def safe_log(x):
    torch._check_tensor_all(x > 0, lambda: f"non-positive input {x.min()}")
    return x.log()

safe_log(torch.rand(3) + 0.1)
