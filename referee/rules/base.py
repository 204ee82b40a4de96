"""The base class of every game system: :class:`Ruleset`, a system as data tables plus
hooks (the way ``chess.variant`` subclasses ``Board``); the registry
(:mod:`referee.rules.registry`) lists the systems users see."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from referee.errors import SceneError, at
from referee.rules.flow import GameFlow
from referee.rules.queries import MoveQuery, RangeQuery, piece_arg
from referee.rules.settings import SETTING_LIMIT, _declared_types, _typed_setting, docs
from referee.rules.values import PieceField, PieceRange, QueryError, Verdict, name_key
from referee.validate import is_number, shown

if TYPE_CHECKING:
    from referee.scene import Piece, Scene, Table


class Check(Protocol):
    """A question declared as data (:mod:`referee.rules.checks`): its name, what it asks,
    and how the template answers it for a ruleset."""

    @property
    def ask(self) -> str: ...

    @property
    def doc(self) -> str: ...

    def answer(self, rules: Any, scene: Scene, query: Mapping[str, Any]) -> Verdict: ...


class Ruleset:
    """Base class: a game system as data tables plus hooks.

    Subclasses set :attr:`name`, :attr:`aliases`, :attr:`Settings` (a frozen
    dataclass of conventions), declare template questions in :attr:`checks`, and
    define ``ask_<question>(scene, query)`` methods returning :class:`Verdict` for
    the questions no template fits.
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
    checks: ClassVar[tuple[Check, ...]] = ()
    """Questions answered by a template (:mod:`referee.rules.checks`), by name."""

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
        words, defaults = docs(cls.Settings), cls.Settings()
        return [
            (f.name, getattr(defaults, f.name), words[f.name]) for f in dataclasses.fields(defaults)
        ]

    @classmethod
    def questions(cls) -> tuple[str, ...]:
        """The ``ask`` names this ruleset answers."""
        methods = {n[4:] for n in dir(cls) if n.startswith("ask_")}
        return tuple(sorted(methods | {c.ask for c in cls.checks}))

    def question_piece(self, scene: Scene, query: Mapping[str, Any], key: str) -> Piece:
        """The piece a question's field ``key`` names (a system may refuse some kinds)."""
        return piece_arg(scene, query, key)

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
        name = ask.strip().lower().replace("-", "_")
        method = getattr(self, "ask_" + name, None)
        check = next((c for c in self.checks if c.ask == name), None)
        if check is not None:
            return self._judged(ask, query, lambda: check.answer(self, scene, query)).asked(query)
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
