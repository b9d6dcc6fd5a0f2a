import torch

@torch.compile
def greedy_decode(logits_seq, eos=2):
    tokens = []
    for step in range(logits_seq.shape[0]):
        tok = logits_seq[step].argmax()
        tokens.append(tok)
        if tok == eos:
            break
    return torch.stack(tokens)

print(greedy_decode(torch.rand(5, 4)))
