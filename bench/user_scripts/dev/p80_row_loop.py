import torch

def normalize_rows(x):
    out = x.clone()
    for i in range(x.size(0)):
        if x[i].norm() > 1:
            out[i] = x[i] / x[i].norm()
    return out

class Net(torch.nn.Module):
    def forward(self, x):
        return normalize_rows(x) * 2

net = torch.compile(Net())
net(torch.randn(3, 4))
