import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from dataclasses import dataclass


@dataclass
class MoEConfig:
    d_model: int = 32
    d_ff: int = 64
    n_experts: int = 4
    top_k: int = 2
    capacity_factor: float = 1.5
    aux_loss_weight: float = 0.01


class Expert(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.fc1 = nn.Linear(d_model, d_ff)
        self.fc2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class MoELayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.gate = nn.Linear(cfg.d_model, cfg.n_experts, bias=False)
        self.experts = nn.ModuleList([Expert(cfg.d_model, cfg.d_ff) for _ in range(cfg.n_experts)])

    def forward(self, x):
        b, t, d = x.shape
        tokens = x.reshape(-1, d)
        logits = self.gate(tokens)
        probs = F.softmax(logits, dim=-1)
        topk_p, topk_idx = probs.topk(self.cfg.top_k, dim=-1)
        topk_p = topk_p / topk_p.sum(dim=-1, keepdim=True)

        capacity = math.ceil(self.cfg.capacity_factor * tokens.shape[0] * self.cfg.top_k / self.cfg.n_experts)
        out = torch.zeros_like(tokens)
        for e, expert in enumerate(self.experts):
            hit = (topk_idx == e)
            rows = hit.any(dim=-1).nonzero(as_tuple=True)[0]
            if rows.numel() == 0:
                continue
            rows = rows[:capacity]
            w = (topk_p[rows] * hit[rows].float()).sum(dim=-1, keepdim=True)
            out.index_add_(0, rows, w * expert(tokens[rows]))

        # load balancing loss (Switch-style)
        frac_tokens = F.one_hot(topk_idx[:, 0], self.cfg.n_experts).float().mean(0)
        frac_probs = probs.mean(0)
        aux = self.cfg.n_experts * (frac_tokens * frac_probs).sum()
        return out.reshape(b, t, d), aux


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.norm = nn.LayerNorm(cfg.d_model)
        self.moe = MoELayer(cfg)

    def forward(self, x):
        y, aux = self.moe(self.norm(x))
        return x + y, aux


cfg = MoEConfig()
block = Block(cfg)


@torch.compile
def forward_and_loss(x, target):
    y, aux = block(x)
    mse = F.mse_loss(y, target)
    return mse + cfg.aux_loss_weight * aux, aux


if __name__ == "__main__":
    torch.manual_seed(1)
    opt = torch.optim.SGD(block.parameters(), lr=0.05)
    for it in range(3):
        x = torch.randn(4, 6, cfg.d_model)
        target = torch.tanh(x.flip(-1))
        loss, aux = forward_and_loss(x, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        usage = torch.bincount(block.moe.gate(x.reshape(-1, cfg.d_model)).argmax(-1), minlength=cfg.n_experts)
        print(f"iter {it} loss {loss.item():.4f} aux {aux.item():.3f} usage {usage.tolist()}")
