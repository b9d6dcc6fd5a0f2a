import random
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(4)
random.seed(4)

PAD, BOS, EOS = 0, 1, 2
VOCAB = 20


def pad_batch(seqs, pad_value=PAD):
    max_len = max(len(s) for s in seqs)
    out = torch.full((len(seqs), max_len), pad_value, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, : len(s)] = torch.tensor(s)
    return out


def make_reverse_task(n):
    srcs, tgts = [], []
    for _ in range(n):
        length = random.randint(3, 7)
        toks = [random.randint(3, VOCAB - 1) for _ in range(length)]
        srcs.append(toks + [EOS])
        tgts.append([BOS] + toks[::-1] + [EOS])
    return pad_batch(srcs), pad_batch(tgts)


class Seq2Seq(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d, padding_idx=PAD)
        self.tf = nn.Transformer(d_model=d, nhead=4, num_encoder_layers=1, num_decoder_layers=1,
                                 dim_feedforward=64, dropout=0.0, batch_first=True)
        self.out = nn.Linear(d, VOCAB)

    def encode(self, src):
        src_pad = src == PAD
        return self.tf.encoder(self.emb(src), src_key_padding_mask=src_pad), src_pad

    def decode(self, tgt_in, memory, src_pad):
        T = tgt_in.size(1)
        causal = self.tf.generate_square_subsequent_mask(T)
        h = self.tf.decoder(self.emb(tgt_in), memory, tgt_mask=causal,
                            tgt_key_padding_mask=tgt_in == PAD,
                            memory_key_padding_mask=src_pad)
        return self.out(h)

    def forward(self, src, tgt_in):
        memory, src_pad = self.encode(src)
        return self.decode(tgt_in, memory, src_pad)


model = Seq2Seq()
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
fwd = torch.compile(model, backend="eager")


def greedy_decode(model, src, max_len=10):
    memory, src_pad = model.encode(src)
    ys = torch.full((src.size(0), 1), BOS, dtype=torch.long)
    done = torch.zeros(src.size(0), dtype=torch.bool)
    for _ in range(max_len):
        logits = model.decode(ys, memory, src_pad)
        nxt = logits[:, -1].argmax(-1)
        nxt = torch.where(done, torch.full_like(nxt, PAD), nxt)
        ys = torch.cat([ys, nxt[:, None]], dim=1)
        done = done | (nxt == EOS)
        if bool(done.all()):
            break
    return ys


def strip(seq):
    out = []
    for t in seq:
        if t in (BOS, PAD):
            continue
        if t == EOS:
            break
        out.append(t)
    return out


for step in range(8):
    src, tgt = make_reverse_task(16)
    logits = fwd(src, tgt[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), tgt[:, 1:].reshape(-1), ignore_index=PAD)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 2 == 1:
        print(f"step {step}: loss {loss.item():.3f}")

model.eval()
src, tgt = make_reverse_task(4)
with torch.no_grad():
    hyp = greedy_decode(model, src)
exact = sum(strip(h) == strip(t) for h, t in zip(hyp.tolist(), tgt.tolist()))
print("example src:", strip(src[0].tolist()), "hyp:", strip(hyp[0].tolist()))
print(f"exact match {exact}/4")
