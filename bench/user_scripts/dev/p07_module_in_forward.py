import torch
import torch.nn as nn

class Head(nn.Module):
    def forward(self, x):
        proj = nn.Linear(x.shape[-1], 2)
        return proj(x)

head = torch.compile(Head())
head(torch.rand(2, 5))
