"""How long the static pre-commit hook takes on a typical commit: 5 model files.

Runs `breakscan check --no-dynamic --quiet FILES` (the hook's entry, as pre-commit calls it) in a
fresh process, several times, and prints the median wall time and the median CPU time (user +
system, which a busy shared machine disturbs less). Process start and imports are included: that
is breakscan's own time in a hook; pre-commit's own overhead is not.

    python docs/precommit_hook_bench.py [--runs 7] [--lines 200]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BLOCK = '''

class Block{n}(nn.Module):
    """A transformer-style block: attention, MLP, norms; one data-dependent branch."""

    def __init__(self, dim: int = 64, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm1 = nn.LayerNorm(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def attention(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(out.transpose(1, 2).reshape(b, t, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.norm1(x))
        h = self.mlp(self.norm2(x))
        if h.abs().max() > 100:  # a tensor-valued branch: BRK101
            h = h.clamp(-100, 100)
        return x + h
'''


def model_file(lines: int) -> str:
    text = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n"
    n = 0
    while text.count("\n") < lines:
        text += BLOCK.format(n=n)
        n += 1
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--files", type=int, default=5)
    parser.add_argument("--lines", type=int, default=200, help="lines per file")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i in range(args.files):
            path = Path(tmp) / f"model_{i}.py"
            path.write_text(model_file(args.lines), encoding="utf-8")
            files.append(str(path))
        command = [sys.executable, "-m", "breakscan", "check", "--no-dynamic", "--quiet", "--exit-zero", *files]
        walls, cpus = [], []
        for _ in range(args.runs + 1):  # one warm-up run (file cache, .pyc)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if proc.returncode != 0:
                sys.exit(f"breakscan failed ({proc.returncode}): {proc.stderr}")
            walls.append(wall)
            cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        walls, cpus = walls[1:], cpus[1:]
        findings = sum(1 for line in proc.stdout.splitlines() if " BRK" in line)
    total = args.files * args.lines
    print(f"{args.files} files, ~{total} lines, {findings} findings; {args.runs} runs")
    print(f"wall: median {statistics.median(walls):.2f} s (min {min(walls):.2f}, max {max(walls):.2f})")
    print(f"cpu:  median {statistics.median(cpus):.2f} s (min {min(cpus):.2f}, max {max(cpus):.2f})")


if __name__ == "__main__":
    main()
