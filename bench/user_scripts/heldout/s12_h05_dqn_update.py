import random
from collections import deque

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

GAMMA = 0.99
EPS_START, EPS_END, EPS_DECAY = 1.0, 0.05, 30
N_STATES, N_ACTIONS = 6, 3


class QNet(nn.Module):
    def __init__(self, n_in, n_out, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, n_out))

    def forward(self, x):
        return self.net(x)


class ToyEnv:
    """Random walk on a line; action 0 left, 1 stay, 2 right; reward at the right end."""

    def reset(self):
        self.pos = N_STATES // 2
        return self._obs()

    def _obs(self):
        o = np.zeros(N_STATES, dtype=np.float32)
        o[self.pos] = 1.0
        return o

    def step(self, a):
        self.pos = int(np.clip(self.pos + (a - 1), 0, N_STATES - 1))
        done = self.pos in (0, N_STATES - 1)
        reward = 1.0 if self.pos == N_STATES - 1 else -0.01
        return self._obs(), reward, done


policy, target = QNet(N_STATES, N_ACTIONS), QNet(N_STATES, N_ACTIONS)
target.load_state_dict(policy.state_dict())
opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
buffer = deque(maxlen=500)


def td_loss(states, actions, rewards, next_states, dones):
    q = policy(states).gather(1, actions.unsqueeze(1)).squeeze(1)
    with torch.no_grad():
        next_q = target(next_states).max(1).values
        y = rewards + GAMMA * next_q * (1 - dones)
    return F.smooth_l1_loss(q, y)


compiled_loss = torch.compile(td_loss, backend="eager")


def select_action(state, step):
    eps = EPS_END + (EPS_START - EPS_END) * np.exp(-step / EPS_DECAY)
    if random.random() < eps:
        return random.randrange(N_ACTIONS)
    with torch.no_grad():
        return policy(torch.as_tensor(state)[None]).argmax(1).item()


def update(batch_size=8):
    if len(buffer) < batch_size:
        return None
    batch = random.sample(buffer, batch_size)
    s, a, r, s2, d = zip(*batch)
    loss = compiled_loss(torch.tensor(np.array(s)), torch.tensor(a), torch.tensor(r, dtype=torch.float32),
                         torch.tensor(np.array(s2)), torch.tensor(d, dtype=torch.float32))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


random.seed(0)
torch.manual_seed(0)
np.random.seed(0)
env = ToyEnv()
global_step = 0
for episode in range(6):
    state, total, losses = env.reset(), 0.0, []
    for t in range(15):
        action = select_action(state, global_step)
        nxt, reward, done = env.step(action)
        buffer.append((state, action, reward, nxt, done))
        state, total = nxt, total + reward
        global_step += 1
        l = update()
        if l is not None:
            losses.append(l)
        if done:
            break
    if episode % 2 == 1:
        target.load_state_dict(policy.state_dict())
    print(f"episode {episode} return {total:.2f} steps {t + 1} loss {np.mean(losses) if losses else float('nan'):.4f}")
