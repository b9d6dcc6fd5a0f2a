import random
import logging

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical

logging.basicConfig(level=logging.INFO)
logger = logging.getLogger(__name__)

OBS_DIM = 6
N_ACTIONS = 3
N_ENVS = 4
ROLLOUT = 32
GAMMA = 0.99
LAM = 0.95
CLIP = 0.2
EPOCHS = 2
MINIBATCH = 32
ITERATIONS = 3


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS_DIM, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh())
        self.pi = nn.Linear(64, N_ACTIONS)
        self.v = nn.Linear(64, 1)

    def forward(self, obs):
        z = self.body(obs)
        return self.pi(z), self.v(z).squeeze(-1)


class ToyEnv:
    def __init__(self, n):
        self.n = n
        self.state = np.random.randn(n, OBS_DIM).astype(np.float32)
        self.t = np.zeros(n, dtype=np.int64)

    def step(self, actions):
        target = (self.state[:, 0] > 0).astype(np.int64)
        reward = np.where(actions == target, 1.0, -0.1).astype(np.float32)
        self.t += 1
        done = self.t >= 20
        self.state = np.random.randn(self.n, OBS_DIM).astype(np.float32)
        self.t[done] = 0
        return self.state.copy(), reward, done.astype(np.float32)


def compute_gae(rewards, values, dones, last_value):
    T = rewards.shape[0]
    advantages = torch.zeros_like(rewards)
    gae = torch.zeros_like(last_value)
    for t in reversed(range(T)):
        next_v = last_value if t == T - 1 else values[t + 1]
        nonterminal = 1.0 - dones[t]
        delta = rewards[t] + GAMMA * next_v * nonterminal - values[t]
        gae = delta + GAMMA * LAM * nonterminal * gae
        advantages[t] = gae
    returns = advantages + values
    return advantages, returns


compute_gae = torch.compile(compute_gae)


def ppo_loss(model, obs, actions, old_logp, adv, ret):
    logits, values = model(obs)
    dist = Categorical(logits=logits)
    logp = dist.log_prob(actions)
    ratio = torch.exp(logp - old_logp)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    pg = -torch.min(ratio * adv, torch.clamp(ratio, 1 - CLIP, 1 + CLIP) * adv).mean()
    vf = 0.5 * (ret - values).pow(2).mean()
    ent = dist.entropy().mean()
    approx_kl = (old_logp - logp).mean()
    return pg + 0.5 * vf - 0.01 * ent, {"pg": pg.item(), "vf": vf.item(), "kl": approx_kl.item()}


def collect(env, model, obs):
    buf = {k: [] for k in ["obs", "act", "logp", "rew", "done", "val"]}
    for _ in range(ROLLOUT):
        o = torch.from_numpy(obs)
        with torch.no_grad():
            logits, v = model(o)
        dist = Categorical(logits=logits)
        a = dist.sample()
        obs, r, d = env.step(a.numpy())
        buf["obs"].append(o); buf["act"].append(a); buf["logp"].append(dist.log_prob(a))
        buf["rew"].append(torch.from_numpy(r)); buf["done"].append(torch.from_numpy(d)); buf["val"].append(v)
    with torch.no_grad():
        _, last_v = model(torch.from_numpy(obs))
    return {k: torch.stack(v) for k, v in buf.items()}, last_v, obs


if __name__ == "__main__":
    random.seed(0); np.random.seed(0); torch.manual_seed(0)
    env = ToyEnv(N_ENVS)
    model = ActorCritic()
    opt = torch.optim.Adam(model.parameters(), lr=3e-4)
    obs = env.state.copy()
    for it in range(ITERATIONS):
        batch, last_v, obs = collect(env, model, obs)
        adv, ret = compute_gae(batch["rew"], batch["val"], batch["done"], last_v)
        flat = {k: v.reshape(ROLLOUT * N_ENVS, *v.shape[2:]) for k, v in batch.items()}
        adv, ret = adv.flatten(), ret.flatten()
        n = adv.shape[0]
        for ep in range(EPOCHS):
            idx = list(range(n))
            random.shuffle(idx)
            for s in range(0, n, MINIBATCH):
                mb = torch.tensor(idx[s:s + MINIBATCH])
                loss, info = ppo_loss(model, flat["obs"][mb], flat["act"][mb], flat["logp"][mb], adv[mb], ret[mb])
                opt.zero_grad(); loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 0.5)
                opt.step()
        logger.info("iter %d mean_reward=%.3f adv_std=%.3f last: %s", it, batch["rew"].mean().item(), adv.std().item(),
                    ", ".join(f"{k}={v:.4f}" for k, v in info.items()))
