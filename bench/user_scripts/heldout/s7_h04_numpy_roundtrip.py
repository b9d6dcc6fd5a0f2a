import torch


class Quantize(torch.nn.Module):
    def forward(self, x):
        levels = x.detach().cpu().numpy().round()
        return torch.from_numpy(levels).to(x.dtype) + 0 * x


torch.compile(Quantize())(torch.randn(6))
