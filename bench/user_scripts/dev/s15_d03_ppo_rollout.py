import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical


class ToyEnv:
    def __init__(self, obs_dim=6, n_actions=3, horizon=20, seed=0):
        self.rng = np.random.default_rng(seed)
        self.obs_dim = obs_dim
        self.n_actions = n_actions
        self.horizon = horizon

    def reset(self):
        self.t = 0
        self.state = self.rng.normal(size=self.obs_dim).astype(np.float32)
        return self.state

    def step(self, action):
        self.t += 1
        reward = float(self.state[action % self.obs_dim] > 0) - 0.1
        self.state = (0.9 * self.state + 0.3 * self.rng.normal(size=self.obs_dim)).astype(np.float32)
        done = self.t >= self.horizon
        return self.state, reward, done


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.body(obs)
        return self.pi(h), self.v(h).squeeze(-1)


def compute_gae(rewards, values, dones, gamma=0.99, lam=0.95):
    adv = torch.zeros_like(rewards)
    last = 0.0
    for t in reversed(range(len(rewards))):
        next_v = values[t + 1] if t + 1 < len(values) else 0.0
        nonterminal = 1.0 - dones[t]
        delta = rewards[t] + gamma * next_v * nonterminal - values[t]
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    return adv


def ppo_loss(model, obs, actions, old_logp, adv, returns, clip=0.2):
    logits, values = model(obs)
    dist = Categorical(logits=logits)
    logp = dist.log_prob(actions)
    ratio = torch.exp(logp - old_logp)
    surr = torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv)
    v_loss = (returns - values).pow(2).mean()
    return -surr.mean() + 0.5 * v_loss - 0.01 * dist.entropy().mean()


def main():
    torch.manual_seed(0)
    env = ToyEnv()
    model = ActorCritic(env.obs_dim, env.n_actions)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = torch.compile(ppo_loss, backend="eager")
    for it in range(3):
        obs_buf, act_buf, logp_buf, rew_buf, done_buf, val_buf = [], [], [], [], [], []
        obs = env.reset()
        done = False
        while not done:
            o = torch.from_numpy(obs)
            with torch.no_grad():
                logits, v = model(o)
                dist = Categorical(logits=logits)
                a = dist.sample()
            obs, r, done = env.step(a.item())
            obs_buf.append(o); act_buf.append(a); logp_buf.append(dist.log_prob(a))
            rew_buf.append(r); done_buf.append(float(done)); val_buf.append(v)
        rewards = torch.tensor(rew_buf)
        values = torch.stack(val_buf)
        adv = compute_gae(rewards, values, torch.tensor(done_buf))
        returns = adv + values
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        batch = (torch.stack(obs_buf), torch.stack(act_buf), torch.stack(logp_buf), adv, returns)
        for epoch in range(4):
            loss = loss_fn(model, *batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"iter {it} return {sum(rew_buf):.2f} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
