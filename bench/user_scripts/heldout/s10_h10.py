"""Dense top-k retrieval: encode queries/documents with a small bag-of-embeddings model and score."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(10)
np.random.seed(10)


class HashTokenizer:
    def __init__(self, vocab_size, max_len):
        self.vocab_size = vocab_size
        self.max_len = max_len

    def encode(self, words):
        ids = [1 + (sum(ord(ch) * 31 ** i for i, ch in enumerate(w)) % (self.vocab_size - 1)) for w in words]
        ids = ids[: self.max_len]
        return ids + [0] * (self.max_len - len(ids))

    def batch(self, sentences):
        return torch.tensor([self.encode(s.split()) for s in sentences], dtype=torch.long)


class BagEncoder(nn.Module):
    def __init__(self, vocab_size, dim, pooling="mean"):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.proj = nn.Linear(dim, dim)
        self.pooling = pooling

    def forward(self, ids):
        mask = (ids != 0).unsqueeze(-1).float()
        e = self.emb(ids) * mask
        if self.pooling == "mean":
            pooled = e.sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        else:
            pooled = e.max(dim=1).values
        return F.normalize(self.proj(pooled), dim=-1)


def score_chunks(q, docs, chunk):
    scores = []
    for start in range(0, docs.shape[0], chunk):
        scores.append(q @ docs[start:start + chunk].t())
    return torch.cat(scores, dim=1)


@torch.compile(backend="eager")
def retrieve(encoder, q_ids, doc_emb, k, chunk=8):
    q = encoder(q_ids)
    scores = score_chunks(q, doc_emb, chunk)
    k = min(k, doc_emb.shape[0])
    top_scores, top_idx = scores.topk(k, dim=1)
    return top_scores, top_idx


def recall_at_k(top_idx, gold):
    hits = (top_idx.numpy() == np.asarray(gold)[:, None]).any(axis=1)
    return float(hits.mean())


if __name__ == "__main__":
    words = ["cat", "dog", "tensor", "graph", "loss", "model", "train", "river", "stone", "light", "cloud", "paper"]
    docs = [" ".join(np.random.choice(words, size=6)) for _ in range(20)]
    queries = [" ".join(d.split()[:3]) for d in docs[:5]]
    gold = list(range(5))

    tok = HashTokenizer(vocab_size=64, max_len=8)
    encoder = BagEncoder(64, 16).eval()
    with torch.no_grad():
        doc_emb = encoder(tok.batch(docs))
        for k in (3, 5):
            s, idx = retrieve(encoder, tok.batch(queries), doc_emb, k)
            print(f"k={k}: recall={recall_at_k(idx, gold):.2f} best score={s[:, 0].mean():.3f}")
