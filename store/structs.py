"""Structs: dataclasses whose start costs one compiled method instead of six.

Python 3.11 builds each method of a dataclass by compiling generated source:
six for a frozen one (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__``, ``__delattr__``), three for a mutable one. memls defines some
seventy, and every process that imports the engine (a server's restart, each
CLI command) paid about 30 ms compiling them. Only ``__init__`` runs often
enough to be worth compiling for its own class; the other methods read the
fields through accessors kept on the class and are one shared function each.

A struct is still a dataclass: ``dataclasses.fields``, ``replace`` and pickling
work as before, and equality, hashing, ``repr`` and frozenness follow the
dataclass rules, ``field(compare=False, repr=False, hash=...)`` included.
``InitVar`` and keyword-only fields are refused, and so is a struct built on
a dataclass; memls uses none of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, field
from operator import attrgetter
from reprlib import recursive_repr
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:  # in typing itself from Python 3.11; only the type checker reads it
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        return lambda function: function

_Class = TypeVar("_Class", bound=type)


class _UseFactory:
    """The default of a parameter whose field has a ``default_factory``."""

    def __repr__(self) -> str:
        return "<factory>"


@overload
@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def struct(cls: _Class, /) -> _Class: ...
@overload
def struct(*, frozen: bool = True, eq: bool = True) -> Callable[[_Class], _Class]: ...


def struct(cls: Any = None, /, *, frozen: bool = True, eq: bool = True) -> Any:
    """Make ``cls`` a dataclass, frozen unless told otherwise.

    ``@struct`` stands for ``@dataclass(frozen=True)``, ``@struct(frozen=False)``
    for ``@dataclass`` and ``@struct(frozen=False, eq=False)`` for
    ``@dataclass(eq=False)``.
    """

    def build(cls: _Class) -> _Class:
        return _build(cls, frozen=frozen, eq=eq)

    return build if cls is None else build(cls)


def _build(cls: _Class, *, frozen: bool, eq: bool) -> _Class:
    # The dataclass machinery finds the fields and sets __dataclass_fields__,
    # __match_args__ and the class defaults; it compiles nothing when asked
    # for no methods.
    if any(dataclasses.is_dataclass(base) for base in cls.__mro__[1:]):
        raise TypeError(f"struct {cls.__name__} cannot extend a dataclass or another struct")
    dataclasses.dataclass(cls, init=False, repr=False, eq=False)
    fields = dataclasses.fields(cls)
    unsupported = [f.name for f in cls.__dataclass_fields__.values()  # type: ignore[attr-defined]
                   if f.kw_only is True or "InitVar" in str(f.type)]
    if unsupported:
        raise TypeError(f"struct {cls.__name__}: keyword-only and InitVar fields are not supported "
                        f"({', '.join(unsupported)})")
    own = cls.__dict__
    if "__init__" not in own:
        cls.__init__ = _compiled_init(cls, fields, frozen=frozen)  # type: ignore[misc]
    if "__repr__" not in own:
        cls._struct_shown = tuple(f.name for f in fields if f.repr)  # type: ignore[attr-defined]
        cls.__repr__ = _repr  # type: ignore[assignment, method-assign]
    if eq:
        # A class body that defines __eq__ gets __hash__ = None from Python;
        # only a __hash__ written out counts as the class's own.
        class_hash = own.get("__hash__", MISSING)
        explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in own))
        if "__eq__" not in own:
            cls._struct_compared = staticmethod(_tuple_of(  # type: ignore[attr-defined]
                [f.name for f in fields if f.compare]))
            cls.__eq__ = _eq  # type: ignore[assignment, method-assign]
        if not explicit_hash:
            if frozen:
                cls._struct_hashed = staticmethod(_tuple_of(  # type: ignore[attr-defined]
                    [f.name for f in fields if (f.compare if f.hash is None else f.hash)]))
                cls.__hash__ = _hash  # type: ignore[assignment, method-assign]
            else:
                cls.__hash__ = None  # type: ignore[assignment]
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if name in own:
                raise TypeError(f"cannot overwrite {name} in frozen struct {cls.__name__}")
        cls._struct_fields = frozenset(f.name for f in fields)  # type: ignore[attr-defined]
        cls.__setattr__ = _frozen_setattr  # type: ignore[assignment]
        cls.__delattr__ = _frozen_delattr  # type: ignore[assignment]
    return cls


def _compiled_init(cls: type, fields: tuple[Field[Any], ...], *, frozen: bool) -> Any:
    """``cls.__init__``, compiled for its fields: it runs for every struct built."""
    scope: dict[str, Any] = {"__name__": cls.__module__, "_set": object.__setattr__,
                             "_USE_FACTORY": _UseFactory()}
    parameters: list[str] = []
    assignments: list[str] = []
    for f in fields:
        name = f.name
        if f.default_factory is not MISSING:
            scope[f"_factory_{name}"] = f.default_factory
            if f.init:
                parameters.append(f"{name}=_USE_FACTORY")
                value = f"_factory_{name}() if {name} is _USE_FACTORY else {name}"
            else:
                value = f"_factory_{name}()"
        elif f.default is not MISSING:
            scope[f"_default_{name}"] = f.default
            if f.init:
                parameters.append(f"{name}=_default_{name}")
                value = name
            else:
                value = f"_default_{name}"
        elif f.init:
            parameters.append(name)
            value = name
        else:
            continue  # like a dataclass: a field with no init and no default stays unset
        assignments.append(f"_set(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    if hasattr(cls, "__post_init__"):
        assignments.append("self.__post_init__()")
    source = (f"def __init__(self, {', '.join(parameters)}):\n"
              + "".join(f"    {line}\n" for line in assignments or ["pass"]))
    exec(source, scope)  # noqa: S102 - source built above from field names only
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{f.name: f.type for f in fields if f.init}, "return": None}
    return init


def _tuple_of(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving the tuple of these attributes, as a dataclass compares."""
    if len(names) >= 2:
        return attrgetter(*names)
    if names:
        only = attrgetter(names[0])
        return lambda obj: (only(obj),)
    return lambda obj: ()


@recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self)._struct_shown)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        compared = self.__class__._struct_compared
        return compared(self) == compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__class__._struct_hashed(self))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    if _frozen_here(self, name):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    if _frozen_here(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _frozen_here(self: Any, name: str) -> bool:
    """As a frozen dataclass: every attribute of the struct itself, only its fields in a subclass."""
    cls = type(self)
    return "_struct_fields" in cls.__dict__ or name in cls._struct_fields
