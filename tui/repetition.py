"""The repetition rules (棋例) as the studio's screens show them: a short note for the status
line and a notification announcing a judged cycle with its rule."""
from __future__ import annotations

from textual.widget import Widget

from xiangqi import Board
from xiangqi.rules import Ruling, adjudicate

SIDES = ("Red", "Black")


def status_note(verdict: Ruling | None) -> str:
    """``repetition ×3: Red must deviate`` (or ``draw``); empty without a verdict."""
    if verdict is None:
        return ""
    who = "draw" if verdict.loser is None else f"{SIDES[verdict.loser]} must deviate"
    return f"repetition ×{verdict.cycle.occurrences}: {who}"


def judge(board: Board, rules: str = "chinese", min_occurrences: int = 3) -> Ruling | None:
    """The verdict on the repetition ``board``'s last move completed, if any."""
    return adjudicate(board, rules, min_occurrences=min_occurrences)


def announce(node: Widget, verdict: Ruling) -> None:
    """Notify the verdict: what each side played, who must deviate and the rule applied."""
    sides = "; ".join(f"{SIDES[c.color]} {c.label}" for c in verdict.conduct)
    if verdict.loser is None:
        title = "Repetition: a draw"
    else:
        title = f"Forbidden repetition: {SIDES[verdict.loser]} must deviate or lose"
    node.notify(f"{sides}. {verdict.clause}", title=title, markup=False,
                severity="information" if verdict.loser is None else "warning", timeout=8)
