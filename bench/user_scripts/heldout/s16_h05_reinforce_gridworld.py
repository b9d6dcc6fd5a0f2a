import random
from collections import deque
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(9)
random.seed(9)


class LineWorld:
    """Agent on a 1-D line must reach the right end; -0.01 per step."""

    def __init__(self, size=8, max_steps=20):
        self.size = size
        self.max_steps = max_steps

    def reset(self):
        self.pos = random.randint(0, self.size // 2)
        self.t = 0
        return self._obs()

    def _obs(self):
        obs = torch.zeros(self.size)
        obs[self.pos] = 1.0
        return obs

    def step(self, action):
        self.t += 1
        self.pos = max(0, min(self.size - 1, self.pos + (1 if action == 1 else -1)))
        done = self.pos == self.size - 1 or self.t >= self.max_steps
        reward = 1.0 if self.pos == self.size - 1 else -0.01
        return self._obs(), reward, done


class Policy(nn.Module):
    def __init__(self, obs_dim, n_actions=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))
        self.value = nn.Linear(obs_dim, 1)

    def forward(self, obs):
        return self.net(obs), self.value(obs).squeeze(-1)


def discount(rewards, gamma):
    out, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        out.append(running)
    return torch.tensor(out[::-1])


env = LineWorld()
policy = Policy(env.size)
opt = torch.optim.Adam(policy.parameters(), lr=0.02)
GAMMA = 0.99
ENTROPY_COEF = 0.01


@torch.compile(backend="eager")
def update(obs, actions, returns):
    logits, values = policy(obs)
    dist = Categorical(logits=logits)
    adv = returns - values.detach()
    adv = (adv - adv.mean()) / (adv.std() + 1e-8) if adv.numel() > 1 else adv
    pg_loss = -(dist.log_prob(actions) * adv).mean()
    v_loss = 0.5 * (returns - values).pow(2).mean()
    loss = pg_loss + v_loss - ENTROPY_COEF * dist.entropy().mean()
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
    opt.step()
    return loss.detach()


recent = deque(maxlen=10)
for episode in range(30):
    obs_list, actions, rewards = [], [], []
    obs, done = env.reset(), False
    while not done:
        with torch.no_grad():
            logits, _ = policy(obs)
        action = Categorical(logits=logits).sample().item()
        obs_list.append(obs)
        actions.append(action)
        obs, reward, done = env.step(action)
        rewards.append(reward)
    returns = discount(rewards, GAMMA)
    loss = update(torch.stack(obs_list), torch.tensor(actions), returns)
    recent.append(sum(rewards))
    if episode % 5 == 4:
        avg = sum(recent) / len(recent)
        print(f"episode {episode + 1}: len={len(rewards)} avg_return={avg:.3f} loss={loss.item():.3f}")
