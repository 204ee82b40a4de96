"""Rulesets: answer the questions players argue about, from positions in inches.

A ruleset is a :class:`Ruleset` subclass with class-level data tables and a few
overridden hooks, registered in :data:`RULESETS` (the way ``chess.variant``
subclasses ``Board``). Every convention where a rule book is silent is a field
of the ruleset's frozen ``Settings`` dataclass, switchable by keyword
(``find_ruleset("paper-tigers", follow_distance="centre")``) or by a scene
file's ``"settings"`` object; none is a hidden constant.

A question is a JSON object with an ``ask`` key; ``ruleset.answer(scene,
query)`` dispatches it to the method ``ask_<name>`` and returns a
:class:`Verdict`. The shared questions are read once into typed queries
(:mod:`referee.rules.queries`) and judged by the core's templates
(:meth:`Ruleset.judge_move`, :meth:`Ruleset.judge_range`), which the session also
calls directly with a typed :class:`~referee.rules.queries.MoveQuery`.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import textwrap
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from referee.errors import SceneError, at
from referee.rules.flow import GameFlow
from referee.validate import MAX_TEXT, is_number, shown

#: Largest magnitude of any numeric ruleset setting (inches, points, factors).
SETTING_LIMIT = 1e6

if TYPE_CHECKING:
    from referee.scene import Piece, Scene, Table


@dataclass(frozen=True)
class PieceField:
    """A game system's own piece field in the scene file, declared by its ruleset."""

    name: str
    type: str
    """``count`` (whole number >= 0), ``number`` (inches >= 0), ``piece`` (another
    piece's id), ``flag`` (true/false) or ``text``."""
    default: Any
    doc: str

    def problem(self, value: Any, ids: Mapping[str, int]) -> str | None:
        """Why ``value`` is not a valid value of this field, or None."""
        t = self.type
        if t == "count" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            return f"must be a whole number >= 0, got {value!r}"
        if t == "number" and (
            isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0
        ):
            return f"must be a number >= 0, got {value!r}"
        if t == "flag" and not isinstance(value, bool):
            return f"must be true or false, got {value!r}"
        if t in ("text", "piece") and (not isinstance(value, str) or not value.strip()):
            return f"must be a non-empty string, got {value!r}"
        if t == "piece" and value not in ids:
            return f"unknown piece id {value!r}"
        return None


@dataclass(frozen=True)
class PieceRange:
    """One distance the rules themselves use for a piece (its fire range, its move cap,
    the Follow Me radius), for a map to draw as a ring around it."""

    label: str
    """What the distance is: ``fire``, ``move`` or ``follow me``."""
    inches: float


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

    def asked(self, query: Mapping[str, Any]) -> Verdict:
        """This verdict with ``query`` as the question asked. Every answer passes through
        here, so it copies the fields directly: ``dataclasses.replace`` took a quarter of
        a range question's time."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.__dict__["query"] = dict(query)
        return new

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


def _wrong_argument(system: str, ask: str, query: Mapping[str, Any]) -> QueryError:
    """The refusal of a question whose handler choked on one of its values: names the first
    value that is not a word, a number or true/false (the likeliest culprit)."""
    hint = f"see 'referee rulesets {system}' for what {ask!r} takes"
    for key, value in query.items():
        if key == "ask":
            continue
        scalar = isinstance(value, (str, int, float)) and not isinstance(value, bool)
        listed = isinstance(value, list) and all(isinstance(v, str) for v in value)
        if not (scalar or listed):
            return QueryError(f".{key}", f"{shown(value)} is not a value {ask!r} takes; {hint}")
    return QueryError("", f"cannot be answered with these values; {hint}")


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


def _declared_types(settings: type) -> dict[str, Any]:
    """Each setting's declared type (the ``Settings`` dataclass annotations, resolved)."""
    found = _DECLARED.get(settings)
    if found is None:
        found = _DECLARED[settings] = typing.get_type_hints(settings)
    return found


_DECLARED: dict[type, dict[str, Any]] = {}


def _typed_setting(name: str, value: Any, declared: Any, default: Any) -> Any:
    """``value`` as the type its system declares for setting ``name`` (an int where a float
    is declared, a list where a tuple is), or a ``ValueError`` saying what it must be.

    One generic check from the ``Settings`` annotations, so a wrong type (``null``, a list,
    a string) never reaches a system's own arithmetic, whatever the system.

    >>> _typed_setting("max_cards", 3, int, 2), _typed_setting("move_cap", 6, float, 6.0)
    (3, 6.0)
    >>> _typed_setting("boats", None, bool, True)
    Traceback (most recent call last):
    ...
    ValueError: setting boats must be true or false (default true), got None
    """
    options = typing.get_args(declared) if typing.get_origin(declared) in _UNIONS else ()
    if options and type(None) in options:
        if value is None:
            return None
        declared = next(t for t in options if t is not type(None))
    origin = typing.get_origin(declared)
    fits: Any = _NO
    if declared is bool:
        what = "true or false"
        fits = value if isinstance(value, bool) else _NO
    elif declared is int:
        what = "a whole number"
        fits = value if isinstance(value, int) and not isinstance(value, bool) else _NO
        if fits is not _NO and abs(fits) > SETTING_LIMIT:
            fits, what = _NO, f"a whole number within +/-{SETTING_LIMIT:g}"
    elif declared is float:
        what = "a number"
        if is_number(value):
            fits = float(value)
    elif declared is str:
        what = "a word"
        fits = value if isinstance(value, str) and len(value) <= MAX_TEXT else _NO
    elif origin is tuple:
        what = "a list of words"
        if isinstance(value, (list, tuple)) and all(
            isinstance(v, str) and len(v) <= MAX_TEXT for v in value
        ):
            fits = tuple(value)
    else:  # a type no generic check knows: the system's own check decides
        return value
    if fits is _NO:
        if options:
            what += " or null"
        shown_default = json.dumps(default) if _is_plain(default) else repr(default)
        raise ValueError(
            f"setting {name} must be {what} (default {shown_default}), got {shown(value)}"
        )
    return fits


_NO = object()
_UNIONS = (typing.Union, types.UnionType)


def _is_plain(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


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
    piece_fields: ClassVar[tuple[PieceField, ...]] = ()
    """The system's own piece fields (beyond id, side, kind, pose, base, state,
    uncertainty, name), with their defaults."""
    source: ClassVar[str] = ""
    """Where the rules come from (the rule text in ``../shared/rule-sources/``)."""

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
        declared = _declared_types(type(base))
        typed = {
            key: _typed_setting(key, value, declared[key], getattr(base, key))
            for key, value in overrides.items()
        }
        self.settings = dataclasses.replace(base, **typed)
        for item in dataclasses.fields(self.settings):
            # Every system's numbers, before its own check: NaN or Infinity decides nothing.
            value = getattr(self.settings, item.name)
            if isinstance(value, float) and not (is_number(value) and abs(value) <= SETTING_LIMIT):
                raise ValueError(
                    f"setting {item.name} must be a finite number within "
                    f"+/-{SETTING_LIMIT:g}, got {value!r}"
                )
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
    def field(cls, piece: Any, name: str) -> Any:
        """A system field of ``piece``: the scene file's value or the declared default."""
        for f in cls.piece_fields:
            if f.name == name:
                return piece.get(name, f.default)
        raise KeyError(f"{cls.name} declares no piece field {name!r}")

    @classmethod
    def validate(cls, scene: Scene) -> None:
        """Check what the scene file holds for this system: piece kinds and the system's
        own piece fields; each problem is one :class:`SceneError` naming the JSON path."""
        ids = {p.id: i for i, p in enumerate(scene.pieces)}
        declared = {f.name: f for f in cls.piece_fields}
        for i, p in enumerate(scene.pieces):
            problem = cls.kind_problem(p.kind)
            if problem:
                raise SceneError(at(scene.source, f"$.pieces[{i}].kind", problem))
            for key, value in p.fields.items():
                spec = declared.get(key)
                if spec is None:
                    known = ", ".join(declared) or "none"
                    raise SceneError(
                        at(
                            scene.source,
                            f"$.pieces[{i}].{key}",
                            f"unknown piece field {key!r} for {cls.name} (its own fields: "
                            f"{known}; every system: id, side, kind, x, y, heading, base, "
                            "state, uncertainty, name)",
                        )
                    )
                why = spec.problem(value, ids)
                if why is None and spec.type == "piece" and value == p.id:
                    why = "a piece cannot name itself"
                if why:
                    raise SceneError(at(scene.source, f"$.pieces[{i}].{key}", why))

    @classmethod
    def conventions(cls) -> list[tuple[str, Any, str]]:
        """``(setting, default, what it switches)`` for every convention of the system."""
        docs: dict[str, str] = {}
        for klass in reversed(cls.Settings.__mro__):
            if not dataclasses.is_dataclass(klass):
                continue
            try:
                tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
            except (OSError, TypeError, SyntaxError):
                continue
            body = tree.body[0].body if tree.body and hasattr(tree.body[0], "body") else []
            for stmt, nxt in zip(body, [*body[1:], None], strict=True):
                if (
                    isinstance(stmt, ast.AnnAssign)
                    and isinstance(stmt.target, ast.Name)
                    and isinstance(nxt, ast.Expr)
                    and isinstance(nxt.value, ast.Constant)
                    and isinstance(nxt.value.value, str)
                ):
                    docs[stmt.target.id] = " ".join(nxt.value.value.split())
        defaults = cls.Settings()
        return [
            (f.name, getattr(defaults, f.name), docs.get(f.name, ""))
            for f in dataclasses.fields(defaults)
        ]

    @classmethod
    def questions(cls) -> tuple[str, ...]:
        """The ``ask`` names this ruleset answers."""
        return tuple(sorted(n[4:] for n in dir(cls) if n.startswith("ask_")))

    def piece_ranges(self, piece: Piece) -> tuple[PieceRange, ...]:
        """The distances this ruleset uses for ``piece``, longest rule first; none here.

        Never raises for a piece of a kind the system knows: a piece the rules give no
        such distance (an unarmed half-track, a unit without a range stat) has fewer rings,
        and a question that needs the missing weapon says so for that question alone."""
        return ()

    def grid_json(self, table: Table) -> dict[str, Any] | None:
        """The cells of the mat a grid game is played on (hexes, zones) in table inches,
        for a map to draw under the pieces; None for a game measured in inches."""
        return None

    def game_flow(self) -> GameFlow:
        """The hook a referee session drives: declarations in, a judgement per settled move.

        The base flow asks the ruleset's own ``move`` question of every settled move.
        """
        return GameFlow(self)

    # -- the shared questions, read once into typed queries -------------------------------

    def check_mover(self, piece: Piece) -> None:
        """Refuse a piece that cannot be asked to move (:class:`QueryError` on ``.piece``)."""

    def check_firer(self, piece: Piece) -> None:
        """Refuse a piece that cannot be asked to fire (:class:`QueryError` on ``.from``)."""

    move_needs_end: ClassVar[bool] = True
    """Whether a ``move`` question must give ``to`` (else the piece stays put)."""

    def ask_move(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """A move of ``piece`` from its pose (or ``from``) to ``to``: :meth:`judge_move`."""
        move = MoveQuery.parse(scene, query, self.check_mover, self.move_needs_end)
        return self.judge_move(scene, move)

    def ask_range(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """May ``from`` fire at ``to``: :meth:`judge_range`."""
        return self.judge_range(scene, RangeQuery.parse(scene, query, self.check_firer))

    def answer_move(self, scene: Scene, move: MoveQuery) -> Verdict:
        """The typed ``move`` question (a settled move the session tracked): the same
        verdict as :meth:`answer` gives the question as JSON, with no dict on the way in."""
        query = move.as_dict()
        return self._judged("move", query, lambda: self._checked_move(scene, move)).asked(query)

    def _checked_move(self, scene: Scene, move: MoveQuery) -> Verdict:
        self.check_mover(move.piece)
        return self.judge_move(scene, move)

    def judge_move(self, scene: Scene, move: MoveQuery) -> Verdict:
        """The verdict on a typed move (the session's entry point for a settled move). The
        table core (:class:`~referee.rules.core.TableRuleset`) judges it by its template
        and the system's hooks; a game on a grid judges it in cells."""
        raise QueryError(".ask", f"{self.name} has no move question")

    def judge_range(self, scene: Scene, query: RangeQuery) -> Verdict:
        """The verdict on a typed range question (see :meth:`judge_move`)."""
        raise QueryError(".ask", f"{self.name} has no range question")

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
        return self._judged(ask, query, lambda: method(scene, query)).asked(query)

    def _judged(self, ask: str, query: Mapping[str, Any], judge: Callable[[], Verdict]) -> Verdict:
        """``judge()``, where a value of a type the question does not take (a list where a
        word belongs) that reached the system's arithmetic is one line naming it, never a
        traceback: the same guard for a question as JSON and a typed settled move."""
        try:
            return judge()
        except QueryError:
            raise
        except (TypeError, KeyError, IndexError, AttributeError, ValueError) as error:
            if isinstance(error, SceneError):
                raise
            raise _wrong_argument(self.name, ask, query) from error

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
    key = _NAME_KEYS.get(name)
    if key is None:  # remembered: every piece's kind is looked up on every all-pairs map
        if len(_NAME_KEYS) >= 4096:
            _NAME_KEYS.clear()
        key = _NAME_KEYS[name] = "".join(ch for ch in name.lower() if ch.isalnum())
    return key


_NAME_KEYS: dict[str, str] = {}


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
    """The scene's ruleset configured with the scene's ``settings`` (then ``overrides``),
    after checking the scene against it (:meth:`Ruleset.validate`). Problems of the
    scene file are :class:`SceneError` naming ``$.ruleset``, ``$.settings`` or the piece;
    a bad override is a ``ValueError``."""
    try:
        cls = find_ruleset_class(scene.ruleset)
    except ValueError as error:
        raise SceneError(at(scene.source, "$.ruleset", str(error))) from None
    try:
        cls(**dict(scene.settings))
    except (TypeError, ValueError) as error:
        raise SceneError(at(scene.source, "$.settings", str(error))) from None
    cls.validate(scene)
    return cls(**{**dict(scene.settings), **overrides})


def as_ids(value: Any, path: str) -> Sequence[str]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise QueryError(path, f"must be a piece id or a list of ids, got {value!r}")


from referee.rules.paper_tigers import PaperTigers  # noqa: E402  (registers itself)
from referee.rules.papercraft import Papercraft  # noqa: E402
from referee.rules.plastic_skirmish import PlasticSkirmish  # noqa: E402
from referee.rules.pz8 import Pz8SciFi, Pz8WW2, Pz8Y1950, Pz8Y1975  # noqa: E402
from referee.rules.pz8_coastal import Pz8Coastal  # noqa: E402
from referee.rules.pz8_colonial import Pz8Colonial  # noqa: E402
from referee.rules.pz8_divisional import Pz8Divisional, Pz8WW1  # noqa: E402
from referee.rules.pz8_grid_games import (  # noqa: E402
    Pz8Aerial,
    Pz8Aerial1965,
    Pz8Naval,
    Pz8Space,
)
from referee.rules.queries import LosQuery, MoveQuery, PairQuery, RangeQuery  # noqa: E402

__all__ = [
    "RULESETS",
    "LosQuery",
    "MoveQuery",
    "PairQuery",
    "PaperTigers",
    "Papercraft",
    "PieceField",
    "PlasticSkirmish",
    "Pz8Aerial",
    "Pz8Aerial1965",
    "Pz8Coastal",
    "Pz8Colonial",
    "Pz8Divisional",
    "Pz8Naval",
    "Pz8SciFi",
    "Pz8Space",
    "Pz8WW1",
    "Pz8WW2",
    "Pz8Y1950",
    "Pz8Y1975",
    "QueryError",
    "RangeQuery",
    "Ruleset",
    "Verdict",
    "find_ruleset",
    "find_ruleset_class",
    "judge",
    "register",
    "ruleset_for",
    "ruleset_names",
]
