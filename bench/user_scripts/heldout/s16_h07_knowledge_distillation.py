import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(13)

CFG = dict(temperature=4.0, alpha=0.7, epochs=3, lr=1e-2, num_classes=5)


def make_mlp(sizes, dropout=0.0):
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
            if dropout:
                layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers)


class Teacher(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = make_mlp([20, 128, 128, CFG["num_classes"]], dropout=0.1)

    def forward(self, x):
        return self.net(x)


class Student(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = make_mlp([20, 16, CFG["num_classes"]])
        self.hint = nn.Linear(16, 128)  # matches teacher hidden size

    def forward(self, x, return_hidden=False):
        h = self.net[1](self.net[0](x))
        logits = self.net[2](h)
        if return_hidden:
            return logits, self.hint(h)
        return logits


def distillation_loss(student_logits, teacher_logits, labels, T, alpha):
    soft = F.kl_div(
        F.log_softmax(student_logits / T, dim=-1),
        F.softmax(teacher_logits / T, dim=-1),
        reduction="batchmean",
    ) * (T * T)
    hard = F.cross_entropy(student_logits, labels)
    return alpha * soft + (1 - alpha) * hard, soft, hard


TRUE_W = torch.randn(20, CFG["num_classes"])


def make_data(n, w=TRUE_W):
    x = torch.randn(n, 20)
    return x, (x @ w + 0.5 * torch.randn(n, CFG["num_classes"])).argmax(-1)


x_train, y_train = make_data(512)
x_test, y_test = make_data(128)

teacher = Teacher()
t_opt = torch.optim.Adam(teacher.parameters(), lr=CFG["lr"])
for _ in range(30):
    t_opt.zero_grad()
    F.cross_entropy(teacher(x_train), y_train).backward()
    t_opt.step()
teacher.eval()

student = Student()
s_opt = torch.optim.Adam(student.parameters(), lr=CFG["lr"])


@torch.compile(backend="eager")
def distill_step(x, y):
    with torch.no_grad():
        t_logits = teacher(x)
        t_hidden = teacher.net[3](teacher.net[2](teacher.net[1](teacher.net[0](x))))
    s_logits, s_hint = student(x, return_hidden=True)
    loss, soft, hard = distillation_loss(s_logits, t_logits, y, CFG["temperature"], CFG["alpha"])
    loss = loss + 0.01 * F.mse_loss(s_hint, t_hidden)
    s_opt.zero_grad()
    loss.backward()
    s_opt.step()
    return {"loss": loss.item(), "soft": soft.item(), "hard": hard.item()}


def evaluate(model):
    with torch.no_grad():
        return (model(x_test).argmax(-1) == y_test).float().mean().item()


for epoch in range(CFG["epochs"]):
    student.train()
    logs = []
    for i in range(0, 512, 64):
        logs.append(distill_step(x_train[i:i + 64], y_train[i:i + 64]))
    avg = {k: sum(d[k] for d in logs) / len(logs) for k in logs[0]}
    print(f"epoch {epoch}: " + ", ".join(f"{k}={v:.3f}" for k, v in avg.items()))

n_params = lambda m: sum(p.numel() for p in m.parameters())
print(f"teacher acc={evaluate(teacher):.3f} ({n_params(teacher)} params)")
print(f"student acc={evaluate(student):.3f} ({n_params(student)} params)")
