import torch
import torch.nn as nn
import torch.nn.functional as F


BOS, EOS, PAD = 1, 2, 0
VOCAB = 40


class Seq2Seq(nn.Module):
    def __init__(self, vocab=VOCAB, dim=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=PAD)
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.decoder = nn.GRUCell(dim, dim)
        self.attn = nn.Linear(dim, dim, bias=False)
        self.out = nn.Linear(2 * dim, vocab)

    def encode(self, src):
        enc, h = self.encoder(self.emb(src))
        return enc, h.squeeze(0)

    def decode_step(self, tok, h, enc, src_mask):
        h = self.decoder(self.emb(tok), h)
        scores = torch.bmm(enc, self.attn(h).unsqueeze(-1)).squeeze(-1)
        scores = scores.masked_fill(~src_mask, float("-inf"))
        ctx = torch.bmm(scores.softmax(-1).unsqueeze(1), enc).squeeze(1)
        return F.log_softmax(self.out(torch.cat([h, ctx], -1)), -1), h


def beam_search(model, src, beam=4, max_len=12, len_penalty=0.6):
    enc, h = model.encode(src)
    src_mask = src != PAD
    enc = enc.expand(beam, -1, -1)
    src_mask = src_mask.expand(beam, -1)
    h = h.expand(beam, -1).contiguous()
    seqs = torch.full((beam, 1), BOS, dtype=torch.long)
    scores = torch.zeros(beam)
    scores[1:] = float("-inf")
    finished = []
    step = torch.compile(model.decode_step, backend="eager")
    for t in range(max_len):
        logp, h = step(seqs[:, -1], h, enc, src_mask)
        cand = (scores[:, None] + logp).view(-1)
        top, idx = cand.topk(beam)
        beam_idx = idx // VOCAB
        tok_idx = idx % VOCAB
        seqs = torch.cat([seqs[beam_idx], tok_idx[:, None]], 1)
        h = h[beam_idx]
        scores = top.clone()
        for b in range(beam):
            if tok_idx[b].item() == EOS:
                lp = ((5 + seqs.shape[1]) / 6) ** len_penalty
                finished.append((scores[b].item() / lp, seqs[b].tolist()))
                scores[b] = float("-inf")
        if len(finished) >= beam or torch.isinf(scores).all():
            break
    if not finished:
        finished = [(s.item(), seq.tolist()) for s, seq in zip(scores, seqs)]
    return sorted(finished, key=lambda x: -x[0])


def main():
    torch.manual_seed(0)
    model = Seq2Seq()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    for it in range(3):
        src = torch.randint(3, VOCAB, (8, 7))
        tgt = torch.cat([torch.full((8, 1), BOS), src.flip(1), torch.full((8, 1), EOS)], 1)
        enc, h = model.encode(src)
        mask = src != PAD
        loss = 0.0
        for t in range(tgt.shape[1] - 1):
            logp, h = model.decode_step(tgt[:, t], h, enc, mask)
            loss = loss + F.nll_loss(logp, tgt[:, t + 1])
        opt.zero_grad()
        (loss / tgt.shape[1]).backward()
        opt.step()
        print(f"iter {it} loss {loss.item() / tgt.shape[1]:.3f}")
    model.eval()
    with torch.no_grad():
        src = torch.tensor([[5, 9, 11, 3, 7, PAD, PAD]])
        hyps = beam_search(model, src)
    for score, seq in hyps[:3]:
        print(f"{score:.3f}", seq)


if __name__ == "__main__":
    main()
