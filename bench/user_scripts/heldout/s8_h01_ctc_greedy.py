import torch
import torch.nn as nn


class Decoder(nn.Module):
    def __init__(self, vocab=20, hidden=32):
        super().__init__()
        self.rnn_proj = nn.Linear(hidden, vocab)
        self.blank = 0

    def forward(self, feats, lengths):
        logits = self.rnn_proj(feats).log_softmax(-1)
        best = logits.argmax(-1)
        outputs = []
        for b in range(best.shape[0]):
            seq = best[b, : lengths[b]]
            seq = torch.unique_consecutive(seq)
            seq = seq[seq != self.blank]
            outputs.append(seq)
        return logits, outputs


model = torch.compile(Decoder())
feats = torch.randn(2, 12, 32)
lengths = torch.tensor([12, 9])
model(feats, lengths)
