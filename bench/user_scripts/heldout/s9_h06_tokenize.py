import torch
import torch.nn as nn


class CharEncoder(nn.Module):
    def __init__(self, alphabet="abcdefghijklmnopqrstuvwxyz ", dim=16):
        super().__init__()
        self.index = {c: i + 1 for i, c in enumerate(alphabet)}
        self.embed = nn.Embedding(len(alphabet) + 1, dim, padding_idx=0)

    def encode(self, texts, max_len=12):
        ids = torch.zeros(len(texts), max_len, dtype=torch.long)
        for row, text in enumerate(texts):
            for col, ch in enumerate(text[:max_len]):
                ids[row, col] = self.index.get(ch, 0)
        return ids

    def forward(self, texts):
        ids = self.encode(texts)
        lengths = (ids != 0).sum(1)
        h = self.embed(ids)
        return h.sum(1) / lengths.clamp(min=1).unsqueeze(1)


enc = torch.compile(CharEncoder())
enc(["hello world", "graph breaks"])
