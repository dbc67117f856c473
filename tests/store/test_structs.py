"""A struct behaves as the dataclass it stands for, built from the same fields.

Each case builds one class twice from one random field list, once with
``dataclasses.dataclass`` and once with ``struct``, and compares what a user
of the class can see: construction, defaults, equality, hashing, ``repr``,
frozenness, ``replace``, ``fields``.
"""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memls.store.structs import struct

# A field: (has default, has default factory, init, compare, repr, hash).
_field_spec = st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans(),
                        st.booleans(), st.sampled_from([None, True, False]))
_value = st.one_of(st.integers(-3, 3), st.text(max_size=2), st.none())
_modes = st.sampled_from([{"frozen": True}, {"frozen": False}, {"frozen": False, "eq": False}])


def _classes(specs: list[tuple[bool, bool, bool, bool, bool, bool | None]],
             mode: dict[str, bool]) -> tuple[type, type, list[str], list[str]]:
    """The dataclass and the struct for ``specs``, the names of their init parameters,
    required first, and of the fields init leaves at their defaults."""
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {"__doc__": "A test class.", "__annotations__": annotations}
    required: list[str] = []
    optional: list[str] = []
    ordered = sorted(enumerate(specs), key=lambda item: item[1][0] or item[1][1])
    for number, (default, factory, init, compare, shown, hashed) in ordered:
        name = f"f{number}"
        annotations[name] = "Any"
        if not (default or factory) and not init:
            init = True  # a field with no default must be passed (dataclasses leaves it unset)
        options = {"init": init, "compare": compare, "repr": shown, "hash": hashed}
        if factory:
            namespace[name] = dataclasses.field(default_factory=lambda n=number: (n,), **options)
        elif default:
            namespace[name] = dataclasses.field(default=number, **options)
        else:
            namespace[name] = dataclasses.field(**options)
        if init:
            (optional if default or factory else required).append(name)
    plain = dataclasses.dataclass(**mode)(type("Thing", (), dict(namespace)))
    ours = struct(**mode)(type("Thing", (), dict(namespace)))
    return plain, ours, required, optional


def _seen(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


@given(st.lists(_field_spec, max_size=5), _modes, st.data())
def test_a_record_behaves_as_its_dataclass(specs, mode, data):
    plain, ours, required, optional = _classes(specs, mode)
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(plain)]
    arguments = [{name: data.draw(_value) for name in required + data.draw(
        st.lists(st.sampled_from(optional), unique=True) if optional else st.just([]))}
        for _ in range(2)]
    pairs = [(plain(**kwargs), ours(**kwargs)) for kwargs in arguments]
    for left, right in pairs:
        assert _seen(left) == _seen(right)
        assert repr(left) == repr(right)
    (a_plain, a_ours), (b_plain, b_ours) = pairs
    assert (a_plain == b_plain) == (a_ours == b_ours)
    assert (a_ours == a_ours) and (a_ours != object())
    hashable = plain.__hash__ is not None
    assert (ours.__hash__ is not None) == hashable
    if hashable and mode.get("eq", True):
        for left, right in pairs:
            assert hash(left) == hash(right)  # both hash the same tuple of fields
    if mode["frozen"]:
        for name in [f.name for f in dataclasses.fields(ours)] + ["other"]:
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(a_ours, name, 1)
            with pytest.raises(dataclasses.FrozenInstanceError):
                delattr(a_ours, name)
    if required:
        with pytest.raises(TypeError):
            ours()
    changed = {name: "changed" for name in required}
    assert _seen(dataclasses.replace(a_ours, **changed)) == _seen(dataclasses.replace(a_plain, **changed))


def test_a_default_factory_gives_each_record_its_own_value():
    @struct
    class Bag:
        """A bag."""

        items: list[int] = dataclasses.field(default_factory=list)

    first, second = Bag(), Bag()
    first.items.append(1)
    assert second.items == [] and Bag([2]).items == [2]


def test_post_init_runs_after_the_fields_are_set():
    @struct
    class Checked:
        """A value checked when built."""

        value: int

        def __post_init__(self) -> None:
            if self.value < 0:
                raise ValueError("negative")

    assert Checked(1).value == 1
    with pytest.raises(ValueError, match="negative"):
        Checked(-1)


def test_methods_the_class_defines_are_kept():
    @struct
    class Loud:
        """A struct with its own repr and equality."""

        value: int

        def __repr__(self) -> str:
            return "loud"

        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    assert repr(Loud(1)) == "loud" and Loud(1) == Loud(2) and hash(Loud(1)) != hash(Loud(1)) + 1


@struct
class _Pickled:
    """A module-level struct, so pickle can find its class."""

    name: str
    tags: tuple[str, ...] = ()


def test_a_record_pickles_and_copies_as_a_dataclass_does():
    thing = _Pickled("a", ("x",))
    again = pickle.loads(pickle.dumps(thing))
    assert again == thing and hash(again) == hash(thing) and again.tags == ("x",)


def test_what_a_struct_cannot_be_is_refused_when_it_is_defined():
    for namespace in ({"__annotations__": {"n": "dataclasses.InitVar[int]"}},
                      {"__annotations__": {"n": "int"}, "n": dataclasses.field(kw_only=True)}):
        with pytest.raises(TypeError, match="not supported"):
            struct(type("Odd", (), {"__doc__": "An odd struct.", **namespace}))
    with pytest.raises(TypeError, match="cannot extend"):
        struct(type("Child", (_Pickled,), {"__doc__": "A child."}))


def test_a_plain_subclass_of_a_frozen_struct_may_add_attributes_but_not_change_fields():
    class Child(_Pickled):
        pass

    child = Child("a")
    child.extra = 1
    assert child.extra == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        child.name = "b"
