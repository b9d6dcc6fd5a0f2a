import random

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD_IDX = 0
VOCAB = 50
NUM_CLASSES = 3


def make_fake_dataset(n, min_len=3, max_len=12):
    data = []
    for _ in range(n):
        length = random.randint(min_len, max_len)
        tokens = [random.randint(1, VOCAB - 1) for _ in range(length)]
        label = sum(tokens) % NUM_CLASSES
        data.append({"tokens": tokens, "label": label})
    return data


def collate(batch):
    batch = sorted(batch, key=lambda ex: len(ex["tokens"]), reverse=True)
    lengths = [len(ex["tokens"]) for ex in batch]
    max_len = max(lengths)
    ids = torch.full((len(batch), max_len), PAD_IDX, dtype=torch.long)
    for i, ex in enumerate(batch):
        ids[i, : len(ex["tokens"])] = torch.tensor(ex["tokens"])
    labels = torch.tensor([ex["label"] for ex in batch])
    return {"input_ids": ids, "lengths": torch.tensor(lengths), "labels": labels}


def lengths_to_mask(lengths, max_len=None):
    if max_len is None:
        max_len = int(lengths.max())
    rng = torch.arange(max_len, device=lengths.device)
    return rng[None, :] < lengths[:, None]


class MaskedAttentionPool(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, h, mask):
        scores = self.score(h).squeeze(-1)
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        return torch.bmm(weights.unsqueeze(1), h).squeeze(1)


class SeqClassifier(nn.Module):
    def __init__(self, vocab, dim=32, num_classes=NUM_CLASSES):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=PAD_IDX)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=64,
                                       dropout=0.1, batch_first=True),
            num_layers=2,
        )
        self.pool = MaskedAttentionPool(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, input_ids, lengths):
        mask = lengths_to_mask(lengths, input_ids.size(1))
        x = self.embed(input_ids)
        h = self.encoder(x, src_key_padding_mask=~mask)
        pooled = self.pool(h, mask)
        return self.head(pooled)


def main():
    random.seed(0)
    torch.manual_seed(0)
    data = make_fake_dataset(24)
    model = SeqClassifier(VOCAB)
    compiled = torch.compile(model, backend="eager")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

    batch_size = 8
    for step in range(3):
        batch = collate(data[step * batch_size:(step + 1) * batch_size])
        logits = compiled(batch["input_ids"], batch["lengths"])
        loss = F.cross_entropy(logits, batch["labels"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        acc = (logits.argmax(-1) == batch["labels"]).float().mean().item()
        print(f"step {step} max_len={batch['input_ids'].shape[1]} "
              f"loss={loss.item():.4f} acc={acc:.2f}")

    compiled.eval()
    with torch.no_grad():
        batch = collate(data[:4])
        preds = compiled(batch["input_ids"], batch["lengths"]).argmax(-1)
    print("eval preds:", preds.tolist())


if __name__ == "__main__":
    main()
