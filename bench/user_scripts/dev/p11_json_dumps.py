import json
import torch

@torch.compile
def step(x, log):
    y = x.relu()
    log.append(json.dumps({"shape": list(y.shape)}))
    return y

logs = []
step(torch.rand(3), logs)
