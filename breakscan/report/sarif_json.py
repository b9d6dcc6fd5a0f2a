"""Turn sarif-om objects into SARIF 2.1.0 JSON values.

sarif-om's classes are attrs classes whose SARIF property names sit in each field's metadata
(`schema_property_name`). `attr.asdict` would give snake_case keys and default noise
(`rank: -1`, `byteOffset: -1`) that break the schema, so this walks the fields itself, uses
the SARIF name, and drops `None` and values equal to the field's default.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import attr
from sarif_om import PropertyBag

# Kept even when equal to the default: an absent `result.level` means "take the rule's
# configured level" (SARIF §3.27.10), not "warning".
_ALWAYS_KEEP = frozenset({"level"})
_INLINE = "breakscan_inline"


@attr.s
class Properties(PropertyBag):
    """A property bag (SARIF §3.8) with named properties besides `tags`.

    sarif-om's `PropertyBag` only knows `tags`; `extra` holds the rest (e.g.
    `breakscan/status`) and is written inline into the bag's JSON object.
    """

    extra: dict[str, Any] = attr.ib(factory=dict, metadata={_INLINE: True})


def to_json(value: Any) -> Any:
    """`value` (a sarif-om object, list, dict or scalar) as a JSON-ready value."""
    if attr.has(type(value)):
        return _object(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    return value


def _object(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in attr.fields(type(obj)):
        value = getattr(obj, field.name)
        if field.metadata.get(_INLINE):
            out.update(to_json(value))
            continue
        name = field.metadata.get("schema_property_name", field.name)
        if value is None or (name not in _ALWAYS_KEEP and _is_default(field, value)):
            continue
        out[name] = to_json(value)
    return out


def _is_default(field: attr.Attribute, value: Any) -> bool:
    default = field.default
    if default is attr.NOTHING:
        return False
    if isinstance(default, attr.Factory):  # type: ignore[arg-type]
        if default.takes_self:
            return False
        default = default.factory()
    return bool(value == default)
