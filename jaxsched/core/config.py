"""Typed experiment configs: YAML files plus ``key=value`` overrides, checked against a dataclass.

An unknown key is an error that lists the valid keys; a value of the wrong type is an error naming
the key, the expected type and the value. Nested dicts (``env.load=0.9``) address dict fields.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from pathlib import Path
from typing import Any

import yaml

from jaxsched.errors import ConfigError, UsageError


_FLOAT_LITERAL = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _check_type(key: str, value: Any, annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        for option in typing.get_args(annotation):
            try:
                return _check_type(key, value, option)
            except ConfigError:
                pass
        raise ConfigError(f"{key}: {value!r} matches none of {annotation}")
    if annotation is type(None):
        if value is None:
            return None
        raise ConfigError(f"{key}: expected null, got {value!r}")
    if annotation is Any:
        return value
    if origin is dict or annotation is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected a mapping, got {value!r}")
        return dict(value)
    if origin in (list, tuple) or annotation in (list, tuple):
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{key}: expected a list, got {value!r}")
        args = typing.get_args(annotation)
        inner = args[0] if args else Any
        return type(value)(_check_type(f"{key}[]", v, inner) for v in value) if origin is list or \
            annotation is list else tuple(_check_type(f"{key}[]", v, inner) for v in value)
    if annotation is float:
        if isinstance(value, str) and _FLOAT_LITERAL.fullmatch(value.strip()):
            return float(value)  # YAML 1.1 (PyYAML) reads 1e-4, without a dot, as a string
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key}: expected a number, got {value!r}")
        return float(value)
    if annotation is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key}: expected an integer, got {value!r}")
        return value
    if annotation is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: expected true or false, got {value!r}")
        return value
    if annotation is str:
        if not isinstance(value, str):
            raise ConfigError(f"{key}: expected a string, got {value!r}")
        return value
    return value


def _parse_override(text: str) -> tuple[list[str], Any]:
    if "=" not in text:
        raise ConfigError(f"override {text!r} is not key=value")
    key, raw = text.split("=", 1)
    return key.strip().split("."), yaml.safe_load(raw) if raw.strip() else ""


def build_config(cls, values: dict, overrides: list[str] = (), migrate=None):
    """An instance of dataclass ``cls`` from ``values`` and ``key=value`` overrides, fully checked.
    ``migrate(values) -> values``, if given, rewrites older keys after the overrides are applied."""
    values = {k: (dict(v) if isinstance(v, dict) else v) for k, v in (values or {}).items()}
    for text in overrides:
        path, value = _parse_override(text)
        target = values
        for part in path[:-1]:
            target = target.setdefault(part, {})
            if not isinstance(target, dict):
                raise ConfigError(f"override {text!r}: {part} is not a mapping")
        target[path[-1]] = value
    if migrate is not None:
        values = migrate(values)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise ConfigError(f"unknown config key(s) {', '.join(unknown)}; valid keys: {', '.join(sorted(fields))}")
    hints = typing.get_type_hints(cls)
    checked = {k: _check_type(k, v, hints[k]) for k, v in values.items()}
    try:
        return cls(**checked)
    except (TypeError, ValueError) as error:
        raise ConfigError(str(error)) from None


def load_config(cls, path: str | Path | None, overrides: list[str] = (), migrate=None):
    """Reads a YAML file (a mapping) and applies overrides; see :func:`build_config`."""
    values = {}
    if path is not None:
        path = Path(path)
        if not path.exists():
            raise ConfigError(f"config file not found: {path}")
        try:
            values = yaml.safe_load(path.read_text())
        except yaml.YAMLError as error:
            raise ConfigError(f"{path}: not valid YAML: {error}") from None
        if values is None or values == {}:  # an empty file would run every default without a word
            raise ConfigError(f"{path} is empty: give at least one key (see configs/), or no config file")
        if not isinstance(values, dict):
            raise ConfigError(f"{path}: the top level must be a mapping of keys to values")
    return build_config(cls, values, overrides, migrate)


def to_dict(config) -> dict:
    return dataclasses.asdict(config)


def parse_seeds(text: str) -> list[int]:
    """``--seeds`` of every command: ``a:b`` (a, ..., b - 1) or ``a,b,c``; distinct integers, at least one."""
    try:
        if ":" in text:
            low, high = (int(part) for part in text.split(":"))
            seeds = list(range(low, high))
        else:
            seeds = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"--seeds {text!r}: expected a:b (a, ..., b - 1) or a,b,c") from None
    if not seeds or len(set(seeds)) != len(seeds):
        raise UsageError(f"--seeds {text!r}: expected a non-empty set of distinct integers")
    return seeds
