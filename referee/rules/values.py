"""The values every ruleset answers with: verdicts, piece fields and ranges, the question
error, the one ``judge`` of a measurement against a limit, and how names compare."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from referee.errors import SceneError

if TYPE_CHECKING:
    pass


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


def as_ids(value: Any, path: str) -> Sequence[str]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise QueryError(path, f"must be a piece id or a list of ids, got {value!r}")
