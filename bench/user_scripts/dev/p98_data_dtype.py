import torch

class Half(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.rand(4))

    def forward(self, x):
        self.w.data = self.w.data.to(torch.float16)
        return x * self.w.float()

h = torch.compile(Half())
h(torch.rand(4))
