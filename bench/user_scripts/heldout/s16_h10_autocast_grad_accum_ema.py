import contextlib
import copy
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(19)

config = {
    "accum_steps": 4,
    "micro_batch": 8,
    "max_grad_norm": 1.0,
    "ema_decay": 0.9,
    "use_amp": True,
    "amp_dtype": torch.bfloat16,
    "warmup_steps": 3,
    "base_lr": 2e-3,
    "total_steps": 6,
}


class ResidualMLPBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, dim * 4)
        self.fc2 = nn.Linear(dim * 4, dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class Classifier(nn.Module):
    def __init__(self, in_dim=24, dim=32, depth=3, n_cls=6):
        super().__init__()
        self.stem = nn.Linear(in_dim, dim)
        self.blocks = nn.Sequential(*[ResidualMLPBlock(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, n_cls)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


class EMA:
    def __init__(self, model, decay):
        self.decay = decay
        self.shadow = copy.deepcopy(model).eval()
        for p in self.shadow.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for s, p in zip(self.shadow.parameters(), model.parameters()):
            s.mul_(self.decay).add_(p.detach(), alpha=1 - self.decay)


@contextlib.contextmanager
def timer(name, log):
    start = time.perf_counter()
    yield
    log[name] = log.get(name, 0.0) + time.perf_counter() - start


def lr_at(step):
    if step < config["warmup_steps"]:
        return config["base_lr"] * (step + 1) / config["warmup_steps"]
    return config["base_lr"]


model = Classifier()
ema = EMA(model, config["ema_decay"])
opt = torch.optim.AdamW(model.parameters(), lr=config["base_lr"])


@torch.compile(backend="eager")
def micro_step(x, y):
    amp = torch.autocast("cpu", dtype=config["amp_dtype"]) if config["use_amp"] else contextlib.nullcontext()
    with amp:
        logits = model(x)
        loss = F.cross_entropy(logits.float(), y)
    (loss / config["accum_steps"]).backward()
    return loss.detach(), logits.detach()


data_x = torch.randn(512, 24)
data_y = (data_x[:, :6] + 0.3 * torch.randn(512, 6)).argmax(dim=1)
timings = {}
cursor = 0
for step in range(config["total_steps"]):
    for g in opt.param_groups:
        g["lr"] = lr_at(step)
    losses, correct, seen = [], 0, 0
    with timer("forward_backward", timings):
        for _ in range(config["accum_steps"]):
            x = data_x[cursor:cursor + config["micro_batch"]]
            y = data_y[cursor:cursor + config["micro_batch"]]
            cursor = (cursor + config["micro_batch"]) % len(data_x)
            loss, logits = micro_step(x, y)
            losses.append(loss.item())
            correct += (logits.argmax(-1) == y).sum().item()
            seen += y.numel()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), config["max_grad_norm"])
    if not torch.isfinite(grad_norm):
        print(f"step {step}: non-finite grad norm, skipping")
        opt.zero_grad(set_to_none=True)
        continue
    opt.step()
    opt.zero_grad(set_to_none=True)
    ema.update(model)
    print(f"step {step}: lr={lr_at(step):.5f} loss={sum(losses) / len(losses):.4f} "
          f"acc={correct / seen:.3f} grad_norm={grad_norm.item():.3f}")

with torch.no_grad():
    acc = (model(data_x).argmax(-1) == data_y).float().mean().item()
    ema_acc = (ema.shadow(data_x).argmax(-1) == data_y).float().mean().item()
print(f"final acc={acc:.3f} ema acc={ema_acc:.3f}; fwd/bwd time {timings['forward_backward']:.2f}s")
