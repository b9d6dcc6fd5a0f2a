import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(18)


class FakeQuantSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale, num_bits):
        qmin, qmax = -(2 ** (num_bits - 1)), 2 ** (num_bits - 1) - 1
        q = torch.clamp(torch.round(x / scale), qmin, qmax)
        ctx.save_for_backward(x, scale)
        ctx.bounds = (qmin * scale, qmax * scale)
        return q * scale

    @staticmethod
    def backward(ctx, grad_out):
        x, scale = ctx.saved_tensors
        lo, hi = ctx.bounds
        pass_through = (x >= lo) & (x <= hi)
        return grad_out * pass_through.to(grad_out.dtype), None, None


def fake_quant(x, num_bits=8):
    scale = x.detach().abs().max().clamp(min=1e-8) / (2 ** (num_bits - 1) - 1)
    return FakeQuantSTE.apply(x, scale, num_bits)


class QuantLinear(nn.Linear):
    def __init__(self, in_features, out_features, w_bits=4, a_bits=8, **kw):
        super().__init__(in_features, out_features, **kw)
        self.w_bits = w_bits
        self.a_bits = a_bits
        self.quantize = True

    def forward(self, x):
        if not self.quantize:
            return super().forward(x)
        w = fake_quant(self.weight, self.w_bits)
        x = fake_quant(x, self.a_bits)
        return F.linear(x, w, self.bias)


class QuantMLP(nn.Module):
    def __init__(self, dims=(16, 64, 64, 4), w_bits=4):
        super().__init__()
        self.layers = nn.ModuleList(QuantLinear(a, b, w_bits=w_bits) for a, b in zip(dims[:-1], dims[1:]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i != len(self.layers) - 1:
                x = F.relu(x)
        return x

    def set_quantize(self, flag):
        for m in self.modules():
            if isinstance(m, QuantLinear):
                m.quantize = flag


def quantization_error(model):
    errs = {}
    for name, m in model.named_modules():
        if isinstance(m, QuantLinear):
            w = m.weight.detach()
            errs[name] = (fake_quant(w, m.w_bits) - w).abs().mean().item()
    return errs


x = torch.randn(256, 16)
y = (x[:, :4] * 2 + x[:, 4:8]).argmax(dim=1)

model = QuantMLP()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
compiled = torch.compile(model, backend="eager")

# warm up in float, then switch on QAT
for epoch in range(6):
    qat = epoch >= 2
    model.set_quantize(qat)
    total = 0.0
    for i in range(0, 256, 64):
        out = compiled(x[i:i + 64])
        loss = F.cross_entropy(out, y[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    with torch.no_grad():
        acc = (compiled(x).argmax(1) == y).float().mean().item()
    print(f"epoch {epoch} ({'qat' if qat else 'fp32'}): loss={total / 4:.4f} acc={acc:.3f}")

# sanity check of the STE gradient
t = torch.linspace(-2, 2, 9, requires_grad=True)
FakeQuantSTE.apply(t, torch.tensor(0.5), 2).sum().backward()
print("STE grad mask:", t.grad.tolist())
print("weight quant error:", {k: round(v, 4) for k, v in quantization_error(model).items()})
