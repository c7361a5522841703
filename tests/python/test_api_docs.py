"""The public Python API is documented and exports only itself: every
public callable (functions, classes, their public methods and properties)
has a docstring, and every public module lists its names in __all__,
with no typing helpers (Any, Optional, ...) among them."""

import importlib
import inspect
import typing

import pytest

MODULES = ["kuaisuo", "kuaisuo.sm2", "kuaisuo.ed25519", "kuaisuo.x25519", "kuaisuo.sm4",
           "kuaisuo.skinny", "kuaisuo.keystore", "kuaisuo.batching"]
TYPING_NAMES = set(dir(typing))


def _public_members(cls):
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if callable(member) or isinstance(member, property):
            yield name, member


@pytest.mark.parametrize("name", MODULES)
def test_every_public_callable_has_a_docstring(name):
    module = importlib.import_module(name)
    assert module.__doc__, f"{name} has no module docstring"
    missing = []
    for export in module.__all__:
        obj = getattr(module, export)
        if inspect.ismodule(obj) or not callable(obj) or obj.__module__ == "typing":
            continue  # a constant, or a type alias such as sm4.Mode
        if not (obj.__doc__ or "").strip():
            missing.append(export)
        if inspect.isclass(obj) and obj.__module__.startswith("kuaisuo"):
            missing += [f"{export}.{m}" for m, member in _public_members(obj)
                        if not (inspect.getdoc(member) or "").strip()]
    assert not missing, f"{name}: no docstring: {', '.join(missing)}"


@pytest.mark.parametrize("name", MODULES)
def test_modules_export_only_their_own_names(name):
    module = importlib.import_module(name)
    assert hasattr(module, "__all__"), f"{name} has no __all__"
    leaked = sorted(set(module.__all__) & TYPING_NAMES)
    assert not leaked, f"{name}.__all__ exports typing names: {leaked}"
    for export in module.__all__:
        assert hasattr(module, export), f"{name}.__all__ names {export}, which it lacks"
