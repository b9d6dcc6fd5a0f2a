import torch
import torch.nn as nn
import torch.nn.functional as F
import time


def mlp(sizes, act=nn.ReLU):
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), act()]
    return nn.Sequential(*layers[:-1])


class Teacher(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = mlp([20, 64, 64, 64, 5])

    def forward(self, x):
        return self.net(x)


class Student(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = mlp([20, 16, 5])
        self.hint = nn.Linear(16, 64)

    def forward(self, x, return_hidden=False):
        h = F.relu(self.net[0](x))
        out = self.net[2](h)
        if return_hidden:
            return out, self.hint(h)
        return out


class DistillLoss(nn.Module):
    def __init__(self, T=4.0, alpha=0.7):
        super().__init__()
        self.T = T
        self.alpha = alpha

    def forward(self, s_logits, t_logits, labels):
        soft = F.kl_div(F.log_softmax(s_logits / self.T, -1), F.softmax(t_logits / self.T, -1),
                        reduction="batchmean") * self.T ** 2
        hard = F.cross_entropy(s_logits, labels)
        return self.alpha * soft + (1 - self.alpha) * hard


def accuracy(model, x, y):
    with torch.no_grad():
        return (model(x).argmax(-1) == y).float().mean().item()


def main():
    torch.manual_seed(0)
    W = torch.randn(20, 5)
    X = torch.randn(256, 20)
    Y = (X @ W).argmax(-1)

    teacher = Teacher()
    t_opt = torch.optim.Adam(teacher.parameters(), lr=1e-2)
    for _ in range(30):
        loss = F.cross_entropy(teacher(X), Y)
        t_opt.zero_grad(); loss.backward(); t_opt.step()
    teacher.eval()
    print("teacher acc", round(accuracy(teacher, X, Y), 3))

    student = Student()
    criterion = torch.compile(DistillLoss(T=3.0), backend="eager")
    s_opt = torch.optim.Adam(student.parameters(), lr=1e-2)
    logs = []
    t0 = time.time()
    for step in range(10):
        idx = torch.randint(0, 256, (16,))
        with torch.no_grad():
            t_logits = teacher(X[idx])
            t_hidden = F.relu(teacher.net[2](F.relu(teacher.net[0](X[idx]))))
        s_logits, s_hint = student(X[idx], return_hidden=True)
        loss = criterion(s_logits, t_logits, Y[idx]) + 0.1 * F.mse_loss(s_hint, t_hidden)
        s_opt.zero_grad(); loss.backward(); s_opt.step()
        logs.append({"step": step, "loss": round(loss.item(), 4)})
        if step % 3 == 0:
            print(logs[-1])
    print(f"student acc {accuracy(student, X, Y):.3f} in {time.time() - t0:.2f}s")


if __name__ == "__main__":
    main()
