"""Rulesets: answer the questions players argue about, from positions in inches.

A ruleset is a :class:`Ruleset` subclass with class-level data tables and a few
overridden hooks, registered in :data:`RULESETS` (the way ``chess.variant``
subclasses ``Board``). Every convention where a rule book is silent is a field
of the ruleset's frozen ``Settings`` dataclass, switchable by keyword
(``find_ruleset("paper-tigers", follow_distance="centre")``) or by a scene
file's ``"settings"`` object; none is a hidden constant.

A question is a JSON object with an ``ask`` key; ``ruleset.answer(scene,
query)`` dispatches it to the method ``ask_<name>`` and returns a
:class:`Verdict`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from referee.errors import SceneError, at
from referee.rules.flow import GameFlow

if TYPE_CHECKING:
    from referee.scene import Scene


class QueryError(SceneError):
    """A question that cannot be answered as asked (bad field, wrong piece kind...).

    ``path`` is the JSON path inside the query (``".allowance"``), so a scene file
    reader can point at ``$.queries[3].allowance``.
    """

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path.lstrip('.') or 'query'}: {problem}")
        self.path = path
        self.problem = problem


@dataclass(frozen=True)
class Verdict:
    """The answer to one question, ready to print, log or serve.

    ``ok`` is True, False, or None when the measurement is too close to call
    (within its uncertainty of a limit) or the rule says "roll a die".
    """

    ask: str
    ok: bool | None
    reasons: tuple[str, ...] = ()
    """Human sentences: what was measured and which rule decided."""
    distance: float | None = None
    """Inches measured, as the rule measures it."""
    uncertainty: float | None = None
    """Inches of measurement doubt in ``distance``."""
    limit: float | None = None
    """The limit the distance was judged against, inches."""
    los: str | None = None
    """``clear``, ``blocked`` or ``doubtful``."""
    chains: tuple[tuple[str, ...], ...] | None = None
    """Follow Me chains, leader first."""
    followers: tuple[str, ...] | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    """Further keys for the JSON output (``controller``, ``order``, ``difficulty``...)."""
    summary: str = ""
    """One readable line, e.g. ``range t34 -> sq1: 4.50in, in range (limit 12")``."""
    query: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """The question as asked."""

    def to_json(self) -> dict[str, Any]:
        """The DESIGN.md output object: always ``ask``, ``ok``, ``reasons``; the rest when set."""
        data: dict[str, Any] = {"ask": self.ask, "ok": self.ok, "reasons": list(self.reasons)}
        for key in ("distance", "uncertainty", "limit"):
            value = getattr(self, key)
            if value is not None:
                data[key] = round(float(value), 4)
        if self.los is not None:
            data["los"] = self.los
        if self.chains is not None:
            data["chains"] = [list(c) for c in self.chains]
        if self.followers is not None:
            data["followers"] = list(self.followers)
        for key, value in self.details.items():
            data[key] = _plain(value)
        for key in ("from", "to", "piece", "leader", "side", "objective", "follower", "follows"):
            value = self.query.get(key)
            if isinstance(value, str) and key not in data:
                data[key] = value
        if self.summary:
            data["summary"] = self.summary
        return data


def _plain(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def judge(distance: float, limit: float, uncertainty: float) -> bool | None:
    """``distance <= limit``, or None when the two are within ``uncertainty`` and the
    limit is strictly inside the doubt (exactly at the limit with no doubt is ok).

    >>> judge(11.9, 12, 0.05), judge(12.1, 12, 0.05), judge(12.03, 12, 0.05), judge(12, 12, 0)
    (True, False, None, True)
    """
    if distance <= limit - uncertainty - 1e-9 or (uncertainty == 0 and distance <= limit + 1e-9):
        return True
    if distance > limit + uncertainty + 1e-9:
        return False
    return None


class Ruleset:
    """Base class: a game system as data tables plus hooks.

    Subclasses set :attr:`name`, :attr:`aliases`, :attr:`Settings` (a frozen
    dataclass of conventions) and define ``ask_<question>(scene, query)``
    methods returning :class:`Verdict`.
    """

    name: ClassVar[str] = "base"
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str] = ""
    kinds: ClassVar[Mapping[str, str]] = {}
    """Piece kind (lowercase letters and digits) -> category; empty accepts any kind."""

    @dataclass(frozen=True)
    class Settings:
        """No conventions."""

    def __init__(self, settings: Any = None, **overrides: Any) -> None:
        base = settings if settings is not None else self.Settings()
        known = {f.name for f in dataclasses.fields(base)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            names = ", ".join(sorted(known)) or "none"
            raise ValueError(f"unknown {self.name} setting {unknown[0]!r} (known: {names})")
        self.settings = dataclasses.replace(base, **overrides)
        check = getattr(self.settings, "check", None)
        if callable(check):
            check()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.settings!r})"

    @classmethod
    def kind_problem(cls, kind: str) -> str | None:
        """Why a scene's piece kind is not one this ruleset knows, or None if it is."""
        if not cls.kinds or name_key(kind) in cls.kinds:
            return None
        known = ", ".join(sorted(cls.kinds))
        return f"unknown piece kind {kind!r} for {cls.name} (known: {known})"

    @classmethod
    def questions(cls) -> tuple[str, ...]:
        """The ``ask`` names this ruleset answers."""
        return tuple(sorted(n[4:] for n in dir(cls) if n.startswith("ask_")))

    def game_flow(self) -> GameFlow:
        """The hook a referee session drives: declarations in, a judgement per settled move.

        The base flow asks the ruleset's own ``move`` question of every settled move.
        """
        return GameFlow(self)

    def answer(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Answer one question; bad questions raise :class:`QueryError`."""
        ask = query.get("ask")
        if not isinstance(ask, str):
            raise QueryError(".ask", f"must be a question name, got {ask!r}")
        method = getattr(self, "ask_" + ask.strip().lower().replace("-", "_"), None)
        if method is None:
            raise QueryError(
                ".ask",
                f"unknown question {ask!r} for {self.name} (known: {', '.join(self.questions())})",
            )
        verdict: Verdict = method(scene, query)
        return dataclasses.replace(verdict, query=dict(query))

    def answer_all(self, scene: Scene, source: str = "<scene>") -> list[Verdict]:
        """Answer every query of the scene in order; errors name ``$.queries[i]``."""
        out = []
        for i, query in enumerate(scene.queries):
            try:
                out.append(self.answer(scene, query))
            except QueryError as error:
                raise SceneError(at(source, f"$.queries[{i}]{error.path}", error.problem)) from None
        return out


#: Registered rulesets, in the order users see them.
RULESETS: list[type[Ruleset]] = []


def register(cls: type[Ruleset]) -> type[Ruleset]:
    """Class decorator adding a ruleset to :data:`RULESETS`."""
    RULESETS.append(cls)
    return cls


def name_key(name: str) -> str:
    """How ruleset names and piece kinds are compared: lowercase letters and digits only.

    >>> name_key("Anti-Tank Gun")
    'antitankgun'
    """
    return "".join(ch for ch in name.lower() if ch.isalnum())


def ruleset_names() -> tuple[str, ...]:
    return tuple(cls.name for cls in RULESETS)


def find_ruleset_class(name: str) -> type[Ruleset]:
    """The ruleset class for a name or alias (case, spaces and dashes ignored).

    >>> find_ruleset_class("Paper Tigers").name
    'paper-tigers'
    """
    key = name_key(name)
    for cls in RULESETS:
        if key in {name_key(cls.name), *(name_key(a) for a in cls.aliases)}:
            return cls
    raise ValueError(f"unknown ruleset {name!r} (known: {', '.join(ruleset_names())})")


def find_ruleset(name: str, settings: Mapping[str, Any] | None = None, **overrides: Any) -> Ruleset:
    """A configured ruleset: ``find_ruleset("pt", follow_distance="centre")``.

    Unknown names and settings raise ``ValueError`` listing what is known.

    >>> find_ruleset("PT").name
    'paper-tigers'
    """
    cls = find_ruleset_class(name)
    return cls(**{**dict(settings or {}), **overrides})


def ruleset_for(scene: Scene, **overrides: Any) -> Ruleset:
    """The scene's ruleset configured with the scene's ``settings`` (then ``overrides``)."""
    return find_ruleset(scene.ruleset, scene.settings, **overrides)


def as_ids(value: Any, path: str) -> Sequence[str]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise QueryError(path, f"must be a piece id or a list of ids, got {value!r}")


from referee.rules.paper_tigers import PaperTigers  # noqa: E402  (registers itself)

__all__ = [
    "RULESETS",
    "PaperTigers",
    "QueryError",
    "Ruleset",
    "Verdict",
    "find_ruleset",
    "find_ruleset_class",
    "judge",
    "register",
    "ruleset_for",
    "ruleset_names",
]
