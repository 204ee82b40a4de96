"""Playing cards for card-driven rulesets (Paper Tigers): parsing, initiative, difficulty.

A card is written rank then suit: ``"QS"`` (queen of spades), ``"10H"``, ``"AC"``;
``T`` is accepted for ten, suits may be the symbols ``♠♥♦♣``, and case does not
matter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
RED = ("H", "D")
#: Tie-break within a value: red before black, then spade over club, heart over diamond.
SUIT_ORDER = {"H": 3, "D": 2, "S": 1, "C": 0}
RANK_NAMES = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}

_CARD = re.compile(r"^\s*(10|[2-9]|[TJQKA])\s*(?:of\s*)?([SHDC])\w*\s*$", re.IGNORECASE)


@dataclass(frozen=True, order=False)
class Card:
    """One playing card."""

    rank: str
    """``"2"``..``"10"``, ``"J"``, ``"Q"``, ``"K"``, ``"A"``."""
    suit: str
    """``"S"``, ``"H"``, ``"D"`` or ``"C"``."""

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``"QS"``, ``"10h"``, ``"T♦"``; ``ValueError`` naming the text otherwise.

        >>> Card.parse("10h"), Card.parse("Q♠").code
        (Card(rank='10', suit='H'), 'QS')
        """
        if not isinstance(text, str):
            raise ValueError(f"a card is text like 'QS' or '10H', got {text!r}")
        raw = text
        for symbol, letter in SUIT_SYMBOLS.items():
            raw = raw.replace(symbol, letter)
        match = _CARD.match(raw)
        if not match:
            raise ValueError(f"not a card: {text!r} (write rank then suit, like 'QS', '10H', 'AC')")
        rank = match.group(1).upper()
        rank = "10" if rank == "T" else rank
        return cls(rank, match.group(2).upper())

    @property
    def code(self) -> str:
        return self.rank + self.suit

    @property
    def red(self) -> bool:
        return self.suit in RED

    @property
    def value(self) -> int:
        """Initiative value: 2..10, jack 11, queen 12, king 13, ace 14."""
        return RANKS.index(self.rank) + 2

    @property
    def difficulty(self) -> int:
        """Number cards their number, face cards 10, aces 11.

        >>> [Card.parse(c).difficulty for c in ("7S", "KH", "AD")]
        [7, 10, 11]
        """
        if self.rank == "A":
            return 11
        if self.rank in ("J", "Q", "K"):
            return 10
        return int(self.rank)

    @property
    def initiative(self) -> tuple[int, int]:
        """Sort key, larger acts first: value, then suit (hearts, diamonds, spades, clubs).

        >>> cards = [Card.parse(x) for x in ("QS", "QH", "10H", "AC")]
        >>> [c.code for c in sorted(cards, key=lambda c: c.initiative, reverse=True)]
        ['AC', 'QH', 'QS', '10H']
        """
        return (self.value, SUIT_ORDER[self.suit])

    def name(self) -> str:
        """``"queen of spades"``."""
        return f"{RANK_NAMES.get(self.rank, self.rank)} of {SUITS[self.suit]}"
