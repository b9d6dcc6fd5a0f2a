import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=64):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(obs_dim, hidden), nn.Tanh(),
            nn.Linear(hidden, hidden), nn.Tanh(),
        )
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.body(obs)
        return self.pi(h), self.v(h).squeeze(-1)


def compute_gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    T = rewards.shape[0]
    advantages = torch.zeros_like(rewards)
    gae = 0.0
    for t in reversed(range(T)):
        next_value = last_value if t == T - 1 else values[t + 1]
        nonterminal = 1.0 - dones[t]
        delta = rewards[t] + gamma * next_value * nonterminal - values[t]
        gae = delta + gamma * lam * nonterminal * gae
        advantages[t] = gae
    returns = advantages + values
    return advantages, returns


class PPOConfig:
    clip_eps = 0.2
    value_coef = 0.5
    entropy_coef = 0.01
    max_grad_norm = 0.5
    norm_adv = True
    target_kl = 0.05


@torch.compile(backend="eager")
def ppo_loss(model, obs, actions, old_logp, advantages, returns, cfg):
    logits, values = model(obs)
    dist = Categorical(logits=logits)
    logp = dist.log_prob(actions)
    entropy = dist.entropy().mean()

    if cfg.norm_adv and advantages.numel() > 1:
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)

    ratio = torch.exp(logp - old_logp)
    surr1 = ratio * advantages
    surr2 = torch.clamp(ratio, 1 - cfg.clip_eps, 1 + cfg.clip_eps) * advantages
    policy_loss = -torch.min(surr1, surr2).mean()
    value_loss = F.mse_loss(values, returns)
    loss = policy_loss + cfg.value_coef * value_loss - cfg.entropy_coef * entropy

    with torch.no_grad():
        approx_kl = ((ratio - 1) - torch.log(ratio)).mean()
        clipfrac = ((ratio - 1.0).abs() > cfg.clip_eps).float().mean()

    stats = {
        "policy_loss": policy_loss.item(),
        "value_loss": value_loss.item(),
        "entropy": entropy.item(),
        "approx_kl": approx_kl.item(),
        "clipfrac": clipfrac.item(),
    }
    return loss, stats


def collect_fake_rollout(model, T=32, obs_dim=6):
    obs = torch.randn(T, obs_dim)
    with torch.no_grad():
        logits, values = model(obs)
        dist = Categorical(logits=logits)
        actions = dist.sample()
        logp = dist.log_prob(actions)
    rewards = torch.randn(T)
    dones = (torch.rand(T) < 0.1).float()
    return obs, actions, logp, values, rewards, dones


def main():
    torch.manual_seed(0)
    cfg = PPOConfig()
    model = ActorCritic(obs_dim=6, n_actions=4)
    opt = torch.optim.Adam(model.parameters(), lr=3e-4, eps=1e-5)

    obs, actions, old_logp, values, rewards, dones = collect_fake_rollout(model)
    adv, ret = compute_gae(rewards, values, dones, last_value=torch.tensor(0.0))

    minibatch = 16
    for epoch in range(3):
        perm = torch.randperm(obs.shape[0])
        epoch_stats = []
        for start in range(0, obs.shape[0], minibatch):
            idx = perm[start:start + minibatch]
            loss, stats = ppo_loss(model, obs[idx], actions[idx], old_logp[idx],
                                   adv[idx], ret[idx], cfg)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            opt.step()
            epoch_stats.append(stats)
        mean_kl = sum(s["approx_kl"] for s in epoch_stats) / len(epoch_stats)
        mean_clip = sum(s["clipfrac"] for s in epoch_stats) / len(epoch_stats)
        print(f"epoch {epoch}: kl={mean_kl:.5f} clipfrac={mean_clip:.3f} "
              f"entropy={epoch_stats[-1]['entropy']:.3f}")
        if mean_kl > cfg.target_kl:
            print("early stop: KL exceeded target")
            break


if __name__ == "__main__":
    main()
