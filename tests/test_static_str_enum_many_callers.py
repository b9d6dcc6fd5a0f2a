"""BRK247 in a lookup helper called from all over a project: call-site inference reads the
caller files of a function only when they are few (RegionFinder.traced_callers), but a `str` method
on its parameter breaks as soon as one traced call passes a `str` enum member (GB0156, on 2.13 and
2.15). The region pass therefore records, from every caller file, the parameters a traced call
passes a member into: a caller's parameter that defaults to a member (`mode: Blend | str =
Blend.CONSTANT`), passed on by keyword or position, also through a second helper. From the dev
misses of MONAI's `look_up_option` (`sliding_window_inference` -> `compute_importance_map`, whose
callers span the library). A user's package with relative imports and unannotated helpers; when
every caller passes a plain string, nothing is flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import assert_package_confirms, cli_findings, requires_torch, static_located, write_files

LOOKUP = '''
    def look_up_option(opt_str, supported, default="no_default"):
        if isinstance(opt_str, str):
            opt_str = opt_str.strip()
        if opt_str in {item.value for item in supported}:
            return supported(opt_str)
        return default
    '''

ENUMS = '''
    from enum import Enum


    class StrEnum(str, Enum):
        def __str__(self):
            return self.value


    class Blend(StrEnum):
        CONSTANT = "constant"
        GAUSSIAN = "gaussian"
    '''


def _package(name: str, importance_default: str) -> dict[str, str]:
    """Six modules that call `look_up_option` with a string from a compiled function, and one that
    passes `mode`, whose default is `importance_default`, through `importance` to it."""
    files = {f"{name}/__init__.py": "", f"{name}/enums.py": ENUMS, f"{name}/lookup.py": LOOKUP}
    for i in range(6):
        files[f"{name}/op{i}.py"] = f'''
            from .enums import Blend
            from .lookup import look_up_option


            def op{i}(x):
                mode = look_up_option("gaussian", Blend)
                return x * {i + 2} if mode == Blend.GAUSSIAN else x
            '''
    files[f"{name}/weights.py"] = f'''
        import torch

        from .enums import Blend
        from .lookup import look_up_option


        def importance(size, mode=Blend.GAUSSIAN, device=None):
            mode = look_up_option(mode, Blend)
            if mode == Blend.CONSTANT:
                return torch.ones(size, device=device)
            return torch.full((size,), 0.5, device=device)


        def blend(x, mode={importance_default}):
            w = importance(x.shape[-1], mode, device=x.device)
            return x * w
        '''
    lines = ["", "import torch", "", "from .weights import blend"]
    lines += [f"from .op{i} import op{i}" for i in range(6)]
    lines += ["", "x = torch.randn(2, 4)", 'torch.compile(blend, backend="eager")(x)']
    lines += [f'torch.compile(op{i}, backend="eager")(x)' for i in range(6)]
    files[f"{name}/run.py"] = "\n".join(lines) + "\n"
    return files


PACKAGE = _package("blendkit", "Blend.CONSTANT")
EXPECTED = {("BRK247", "lookup.py", 4)}
STRINGS = _package("strkit", '"constant"')


def test_a_member_passed_on_from_a_caller_default_is_seen_past_the_caller_file_limit(tmp_path):
    assert {f for f in static_located(tmp_path, PACKAGE) if f[0] == "BRK247"} == EXPECTED


def test_plain_strings_from_every_caller_are_not_flagged(tmp_path):
    assert not {f for f in static_located(tmp_path, STRINGS) if f[0] == "BRK247"}


def test_a_callers_default_is_part_of_the_helpers_cache_key(tmp_path):
    """lookup.py's finding depends on weights.py's default, which call-site inference never reads:
    changing it to a string drops the finding on a warm run."""
    write_files(tmp_path, PACKAGE)
    cache = tmp_path / ".cache"

    def brk247() -> set[tuple[str, int]]:
        found = cli_findings(tmp_path, "blendkit", "--no-dynamic", cache=cache)
        return {(Path(f["path"]).name, f["line"]) for f in found if f["rule_id"] == "BRK247"}

    assert brk247() == {("lookup.py", 4)}
    weights = tmp_path / "blendkit" / "weights.py"
    weights.write_text(weights.read_text().replace("mode=Blend.CONSTANT", 'mode="constant"'))
    assert brk247() == set()


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_breaks_on_the_str_method_of_the_member_passed_on(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "blendkit.run", EXPECTED)
