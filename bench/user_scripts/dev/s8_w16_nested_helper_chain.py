import torch


def _norm(v):
    return v / v.norm()


def _is_degenerate(v):
    return bool((v.abs() < 1e-8).all())


@torch.compile
def direction(a, b):
    d = _norm(b - a)
    if _is_degenerate(d):
        return torch.zeros_like(d)
    return d


direction(torch.randn(3), torch.randn(3))
