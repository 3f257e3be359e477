"""YAML text read as DVC reads it: a key twice in one mapping is an error, not the last one winning.

PyYAML's ``safe_load`` keeps the last of two equal keys silently (a second ``tide-open:`` under
``models`` drops the first), while DVC's ruamel parser refuses the file with a six-line message.
:func:`load_yaml` refuses it first, in one line naming the file, the line and the key.
"""

from __future__ import annotations

from typing import Any

import yaml

from sideways.core.errors import SidewaysError


class _Duplicate(Exception):
    """A key met twice in one mapping (line, key): turned into the caller's error class."""


class _StrictLoader(yaml.SafeLoader):
    """``SafeLoader`` that refuses a mapping holding one key twice (merge keys ``<<`` aside)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[tuple[str, str]] = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = (key_node.tag, key_node.value)
            if key in seen:
                raise _Duplicate(key_node.start_mark.line + 1, key_node.value)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _StrictLoader.construct_mapping)


def load_yaml(text: str, source: str, error: type[SidewaysError]) -> Any:
    """The YAML document in ``text``; broken YAML, a duplicate key or nesting too deep raise ``error``
    in one line naming ``source``."""
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except _Duplicate as exc:
        line, key = exc.args
        raise error(f"{source}:{line}: key {str(key)[:80]!r} appears twice in one mapping "
                    "(YAML would keep only the last one, and DVC refuses the file)") from None
    except yaml.YAMLError as exc:
        raise error(f"{source}: not valid YAML ({' '.join(str(exc).split())[:200]})") from exc
    except RecursionError as exc:
        raise error(f"{source}: nested too deep to read") from exc
