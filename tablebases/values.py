"""Stored codes and what they mean.

A code is 0 for a draw, ``plies + 1`` for a decided position (odd plies: the side to move
wins; even plies: it loses; 0 plies: it is mated or stalemated now) and ``ILLEGAL`` (0xFFFF)
for index entries that are not legal positions.
"""
from __future__ import annotations

import array
from typing import TYPE_CHECKING, Final

from xiangqi.rules import NATURAL_LIMIT_PLIES

from ._builder import StoredCode

if TYPE_CHECKING:
    from xiangqi.output import JsonObject

ILLEGAL: Final[int] = int(StoredCode.ILLEGAL)   # defined once, in _builder.pxd (0xFFFF)

RULES = {
    "rule_set": "中国象棋竞赛规则 棋例 and the Asian (AXF) rules agree on what the values apply "
                "(stalemate, perpetual check); the chase marks cover both (the Chinese rules "
                "forbid more: mixtures, 长杀, chases of different pieces)",
    "stalemate": "loss for the side to move (困毙)",
    "perpetual_check": "applied (长将): a side that can keep the draw only by checking on every "
                       "move loses; if both sides check on every move it is a draw",
    "perpetual_chase": "not applied to the values; where both sides have attacking pieces, "
                       "every drawn position whose value the chase rule (长捉) could change is "
                       "marked (rules/chase_*): a draw is left unmarked only if each side can "
                       "hold it without checking or threatening to win material",
    "natural_limit": "DTC60 stored: plies to a conversion that keeps the result within 60 moves "
                     "(120 plies) per phase; wins beyond it are cursed",
}


# The rule sets a two-sided table can be built under (``tb build --rules``), with what its
# header says; a table built without one applies RULES above.  One-sided tables (one side
# without attacking pieces) are shared by every rule set: their values apply RULES.
RULE_SET_RULES = {
    "chinese": {
        **RULES,
        "rule_set_name": "chinese",
        "rule_set": "中国象棋竞赛规则 棋例 (Chinese rules), for two-sided tables",
        "perpetual_chase": "applied (长捉, 一将一捉 and the other mixtures of checks and chases): "
                           "a side that can keep the draw only by checking or chasing on every "
                           "move, against idle answers, loses; a chase is a new threat to win "
                           "an unprotected piece (or a rook by a horse or cannon), at once or "
                           "after one check, by a piece other than a king or a pawn (a pawn's "
                           "chases count only against an attacker: 27.2); both sides attacking "
                           "on every move is a draw",
        "mate_threat": "applied (长杀 and its mixtures with checks and chases): a move that, "
                       "were the opponent to pass, mates by at most three checks in a row "
                       "(杀, as the judge finds it) is an attack, so never an idle answer",
        "history": "a value is that of the position as the start of a game: a draw is lost "
                   "only where the attacker cannot leave the attacks and the defender can "
                   "always answer idly, whichever side began the cycle; moves played before "
                   "the position (a cycle under way) are the judge's to rule on",
    },
}


def rules_for(rule_set: str | None) -> dict[str, str]:
    """The header's ``rules`` of a table built under ``rule_set`` (None: RULES).

    >>> rules_for("chinese")["rule_set_name"], rules_for(None) is RULES
    ('chinese', True)
    """
    if rule_set is None:
        return RULES
    if rule_set not in RULE_SET_RULES:
        raise ValueError(f"tables cannot be built under the {rule_set!r} rule set yet: use "
                         f"{', '.join(RULE_SET_RULES)} (the Asian rules' chase of one piece on "
                         "every move needs the victim followed through the cycle)")
    return RULE_SET_RULES[rule_set]


def code_words(code: int) -> str:
    """A stored or expected code in words, for reports.

    >>> code_words(0), code_words(1), code_words(2), code_words(5), code_words(ILLEGAL)
    ('draw', 'mated now', 'win in 1 ply', 'loss in 4 plies', 'not a legal position')
    """
    if code == ILLEGAL:
        return "not a legal position"
    if code < 0:
        return "a legal move reaches an entry stored as not a legal position"
    wdl, plies = decode(code)
    if wdl == 0:
        return "draw"
    if plies == 0:
        return "mated now"
    return f"{'win' if wdl > 0 else 'loss'} in {plies} {'ply' if plies == 1 else 'plies'}"


def decode(code: int) -> tuple[int, int | None]:
    """(wdl, plies): wdl 2 win / 0 draw / -2 loss for the side to move; None plies for draws.

    >>> decode(0), decode(1), decode(8)
    ((0, None), (-2, 0), (2, 7))
    """
    if code == ILLEGAL:
        raise ValueError("illegal position code")
    if code == 0:
        return 0, None
    plies = code - 1
    return (2 if plies % 2 else -2), plies


def summarise_metric(metric: str, side: str, values: array.array[int] | memoryview,
                     counts: dict[str, JsonObject]) -> None:
    """Add one metric's figures for one side to move to ``counts[side]``: win/draw/loss and
    the longest DTM from DTM, the longest DTC from DTC, cursed wins from DTC60 (needs DTM's
    figures first)."""
    from ._builder import first_index, histogram

    result = counts.setdefault(side, {})
    codes = histogram(values)
    decided = [code - 1 for code in codes if code not in (0, ILLEGAL)]
    if metric in ("dtm", "dtc"):
        # What `tb stats` shows, kept in the header so that it needs no pass over the arrays:
        # the histogram (plies -> positions) and where the longest win stands.
        result[f"{metric}_histogram"] = {str(plies): codes[plies + 1] for plies in sorted(decided)}
        wins = [plies for plies in decided if plies % 2]
        if wins:
            result[f"longest_{metric}_win_index"] = first_index(values, max(wins) + 1)
    if metric == "dtm":
        result.update({
            "wins": sum(n for code, n in codes.items()
                        if code not in (0, ILLEGAL) and (code - 1) % 2),
            "draws": codes.get(0, 0),
            "losses": sum(n for code, n in codes.items()
                          if code not in (0, ILLEGAL) and not (code - 1) % 2),
            "illegal": codes.get(ILLEGAL, 0),
            "longest_dtm_plies": max(decided, default=0)})
    elif metric == "dtc":
        result["longest_dtc_plies"] = max(decided, default=0)
    elif metric == "dtc60":
        sound_wins = sum(n for code, n in codes.items() if code not in (0, ILLEGAL)
                         and (code - 1) % 2 and code - 1 <= NATURAL_LIMIT_PLIES)
        result["cursed_wins"] = result["wins"] - sound_wins


def summarise(arrays: dict[str, array.array[int]]) -> dict[str, JsonObject]:
    """Win/draw/loss counts per side to move and the longest distances (see
    :func:`summarise_metric`)."""
    counts: dict[str, JsonObject] = {}
    for metric in ("dtm", "dtc", "dtc60"):
        for side in ("red", "black"):
            summarise_metric(metric, side, arrays[f"{metric}/{side}"], counts)
    return counts
