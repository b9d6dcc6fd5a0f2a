import torch
import torch.nn as nn


class Tracker:
    def __init__(self):
        self.history = []

    def log(self, name, value):
        self.history.append((name, value.item()))


class Tokenizer:
    def __init__(self, vocab):
        self.vocab = vocab

    def decode(self, ids):
        return "".join(self.vocab[i] for i in ids.tolist())


class Sampler:
    def __init__(self, temperature=1.0):
        self.temperature = temperature

    def sample(self, logits):
        probs = (logits / self.temperature).softmax(-1)
        idx = torch.multinomial(probs, 1)
        return int(idx)


class Trainer:
    def __init__(self, model, tracker: Tracker):
        self.model = model
        self.tracker = tracker
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)

    @torch.compile(backend="eager")
    def step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.tracker.log("loss", loss)
        return loss


@torch.compile(backend="eager")
def generate(model, x, tok: Tokenizer, sampler):
    logits = model(x)
    text = tok.decode(logits.argmax(-1))
    return text


def main():
    model = nn.Linear(4, 4)
    trainer = Trainer(model, Tracker())
    for _ in range(2):
        trainer.step(torch.randn(2, 4), torch.randn(2, 4))
    tok = Tokenizer(list("abcd"))
    print(generate(model, torch.randn(3, 4), tok, Sampler()))
    s = Sampler()
    fast = torch.compile(s.sample, backend="eager")
    print(fast(torch.randn(4)))


if __name__ == "__main__":
    main()
