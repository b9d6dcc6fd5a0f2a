"""The accuracy benchmark's corpus: real model classes and functions from several code bases.

Each code base has a module here (``transformers_models``, ``diffusers_models``, ...) that
defines ``CASES``: a list of ``Case`` (data, no logic), each built from a tiny config with random
weights (seeded; nothing is downloaded, ``HF_HUB_OFFLINE=1``). A module case runs in eval mode
and in train mode (``model.train()``, the same forward: Dynamo then sees the ``self.training``
branches and dropout); a function case runs once (mode ``call``).

The held-out half: ``half(case)`` is fixed by the parity of the SHA-256 of the case's base name
(``codebase/name``, both modes of a model land in the same half), except the transformers models
the rules were developed on before this corpus existed (``Case.seen``), which are dev.

Usage::

    from bench.corpus import CODEBASES, cases, build
    fn, args, kwargs = build("kornia/filters.gaussian_blur2d", "call", "cpu")
"""

from __future__ import annotations

import hashlib
import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

# code base -> (its module here, the importable package whose installed source the static pass scans)
CODEBASES: dict[str, tuple[str, str]] = {  # in the order the benchmark runs them (largest last)
    "x_transformers": ("bench.corpus.x_transformers_models", "x_transformers"),
    "kornia": ("bench.corpus.kornia_models", "kornia"),
    "monai": ("bench.corpus.monai_models", "monai"),
    "torch_geometric": ("bench.corpus.pyg_models", "torch_geometric"),
    "diffusers": ("bench.corpus.diffusers_models", "diffusers"),
    "transformers": ("bench.corpus.transformers_models", "transformers"),
}

Factory = Callable[[str], tuple[Any, tuple, dict]]


@dataclass(frozen=True)
class Case:
    """One corpus entry.

    ``name``: unique within its code base. ``factory(device) -> (fn, args, kwargs)``: an
    ``nn.Module`` (modes eval and train) or a callable. ``target``: for a function case, its
    dotted import path (``kornia.filters.gaussian_blur2d``), imported by name in the generated
    examples file so that the static pass roots the compile region where the user's would be.
    ``seen``: the rules were developed looking at this case before the corpus existed (dev).
    """

    codebase: str
    name: str
    factory: Factory
    target: str = ""
    seen: bool = False
    modes: tuple[str, ...] = field(default=("eval", "train"))

    @property
    def key(self) -> str:
        """``codebase/name``: what the held-out split hashes."""
        return f"{self.codebase}/{self.name}"


def function_case(codebase: str, target: str, inputs: Callable[[str], tuple[tuple, dict]], name: str = "") -> Case:
    """A case that compiles the function ``target`` (dotted path) called on ``inputs(device)``."""

    def factory(device: str):
        module, _, attr = target.rpartition(".")
        fn = getattr(importlib.import_module(module), attr)
        args, kwargs = inputs(device)
        return fn, args, kwargs

    return Case(codebase, name or target.split(".", 1)[1], factory, target=target, modes=("call",))


def half(case: Case) -> str:
    """``dev`` or ``heldout``: even SHA-256 of ``case.key`` is dev, odd held-out; seen cases are dev."""
    if case.seen:
        return "dev"
    return "dev" if int(hashlib.sha256(case.key.encode()).hexdigest(), 16) % 2 == 0 else "heldout"


def cases(codebase: str) -> list[Case]:
    """The cases of ``codebase`` (a key of CODEBASES); imports its corpus module, not the library."""
    return list(importlib.import_module(CODEBASES[codebase][0]).CASES)


def find(key: str) -> Case:
    """The case named ``codebase/name``; KeyError when unknown."""
    codebase, _, name = key.partition("/")
    for case in cases(codebase):
        if case.name == name:
            return case
    raise KeyError(key)


def build(key: str, mode: str, device: str = "cpu"):
    """Build case ``key`` (seed 0) on ``device`` in ``mode`` (eval, train or call): ``(fn, args, kwargs)``."""
    import torch

    torch.manual_seed(0)
    fn, args, kwargs = find(key).factory(device)
    if isinstance(fn, torch.nn.Module):
        fn = fn.to(device)
        fn.train(mode == "train")
    return fn, args, kwargs
