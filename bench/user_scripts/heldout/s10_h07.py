"""Recurrent policy rollout in a toy differentiable point-mass environment."""
from collections import deque
from dataclasses import dataclass, field

import torch
import torch.nn as nn

torch.manual_seed(7)


@dataclass
class EnvConfig:
    dt: float = 0.1
    horizon: int = 16
    goal_radius: float = 0.15
    max_force: float = 1.0
    damping: float = 0.05


@dataclass
class EpisodeLog:
    returns: list = field(default_factory=list)
    lengths: deque = field(default_factory=lambda: deque(maxlen=10))

    def record(self, ret, length):
        self.returns.append(ret)
        self.lengths.append(length)


class PointMass:
    def __init__(self, cfg, batch):
        self.cfg = cfg
        self.batch = batch
        self.goal = torch.tensor([1.0, -0.5])

    def reset(self):
        pos = torch.zeros(self.batch, 2)
        vel = torch.zeros(self.batch, 2)
        return pos, vel

    def step(self, pos, vel, force):
        force = force.clamp(-self.cfg.max_force, self.cfg.max_force)
        vel = (1.0 - self.cfg.damping) * vel + self.cfg.dt * force
        pos = pos + self.cfg.dt * vel
        dist = (pos - self.goal).norm(dim=-1)
        reward = -dist - 0.01 * (force ** 2).sum(dim=-1)
        done = dist < self.cfg.goal_radius
        return pos, vel, reward, done


class RecurrentPolicy(nn.Module):
    def __init__(self, obs_dim=4, hidden=32, act_dim=2):
        super().__init__()
        self.enc = nn.Linear(obs_dim, hidden)
        self.lstm = nn.LSTMCell(hidden, hidden)
        self.mu = nn.Linear(hidden, act_dim)
        self.log_std = nn.Parameter(torch.full((act_dim,), -1.0))
        self.hidden = hidden

    def initial_state(self, batch):
        return torch.zeros(batch, self.hidden), torch.zeros(batch, self.hidden)

    def forward(self, obs, state):
        h, c = self.lstm(torch.tanh(self.enc(obs)), state)
        mu = self.mu(h)
        action = mu + self.log_std.exp() * torch.randn_like(mu)
        return action, (h, c)


def discounted_sum(rewards, gamma):
    total = torch.zeros_like(rewards[0])
    for r in reversed(rewards):
        total = r + gamma * total
    return total


@torch.compile(backend="eager")
def rollout(policy, env, gamma):
    pos, vel = env.reset()
    state = policy.initial_state(env.batch)
    rewards = []
    alive = torch.ones(env.batch)
    steps = 0
    for t in range(env.cfg.horizon):
        obs = torch.cat([pos, vel], dim=-1)
        action, state = policy(obs, state)
        pos, vel, r, done = env.step(pos, vel, action)
        rewards.append(r * alive)
        alive = alive * (~done).float()
        steps = t + 1
        if alive.sum() == 0:
            break
    return discounted_sum(rewards, gamma), steps


if __name__ == "__main__":
    cfg = EnvConfig()
    env = PointMass(cfg, batch=8)
    policy = RecurrentPolicy()
    opt = torch.optim.Adam(policy.parameters(), lr=3e-3)
    log = EpisodeLog()
    for it in range(4):
        ret, steps = rollout(policy, env, 0.97)
        loss = -ret.mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
        opt.step()
        log.record(ret.mean().item(), steps)
        print(f"iter {it}: return={log.returns[-1]:.3f} steps={steps}")
    print("avg length:", sum(log.lengths) / len(log.lengths))
