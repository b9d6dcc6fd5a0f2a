import torch
from torch import nn


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.mu = nn.Linear(4, 2)
        self.log_std = nn.Parameter(torch.zeros(2))

    def forward(self, obs):
        dist = torch.distributions.Normal(self.mu(obs), self.log_std.exp())
        action = dist.rsample()
        return action, dist.log_prob(action).sum(-1)


pi = torch.compile(Policy())
pi(torch.randn(3, 4))
