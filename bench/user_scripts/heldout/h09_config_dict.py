import torch
import torch.nn as nn

CONFIG = {"act": "gelu", "hidden": 8, "norm": True}

class FFN(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.fc1 = nn.Linear(4, cfg["hidden"])
        self.fc2 = nn.Linear(cfg["hidden"], 4)

    def forward(self, x):
        h = self.fc1(x)
        h = getattr(torch.nn.functional, self.cfg["act"])(h)
        if self.cfg["norm"]:
            h = h / (h.norm(dim=-1, keepdim=True) + 1e-6)
        return self.fc2(h)

ffn = torch.compile(FFN(CONFIG))
print(ffn(torch.rand(2, 4)).shape)
