"""Probing tables, in the style of python-chess.

>>> import tempfile
>>> from xiangqi import Board
>>> from tablebases.build import build
>>> directory = tempfile.mkdtemp()
>>> _ = build("KRK", directory, log=lambda line: None)
>>> tablebase = open_tablebase(directory)
>>> board = Board("3k5/9/9/9/9/9/9/9/9/R3K4 w")
>>> tablebase.probe_wdl(board), tablebase.probe_dtm(board)
(2, 1)
>>> describe(tablebase.probe(board), board.turn)
'Red wins, mate in 1 (1 ply)'
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xiangqi import Board, Move
from xiangqi.pieces import COLOR_NAMES
from xiangqi.rules import NATURAL_LIMIT_PLIES

from ._chase import Attack, attack_of
from .format import SIDES, SUFFIX, TablebaseError, TableFile, TableHeader, table_path
from .material import Material, indexer_for
from .values import ILLEGAL, decode


class MissingTableError(TablebaseError, KeyError):
    """No table for the position's material in the directory (a ``KeyError`` too: the
    directory is a mapping from materials to tables)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "missing table"


def missing_table_text(material: Material, directory: Path) -> str:
    """``no table for KRKAA in DIR (build it with: xqstudio tb build KRKAA --tables DIR)``,
    or, for a material whose table cannot be built here, why not."""
    from .build import too_large_reason
    from .paths import default_directory

    reason = too_large_reason(material)
    if reason is not None:
        return f"no table for this position: {reason}"
    where = "" if directory == default_directory() else f" --tables {directory}"
    return f"no table for {material} in {directory} (build it with: xqstudio tb build " \
           f"{material}{where})"


__all__ = ["Tablebase", "TableValue", "RankedMove", "MissingTableError", "TablebaseError",
           "describe",
           "open_tablebase", "NATURAL_LIMIT_PLIES"]


@dataclass(frozen=True)
class TableValue:
    """A position's value for the side to move, distances in plies (None for a draw).

    ``wdl``: 2 win, 1 cursed win (a win that the 60-move natural limit turns into a draw),
    0 draw, -1 blessed loss (a loss that the limit saves), -2 loss.
    """
    wdl: int
    dtm: int | None     # plies to mate
    dtc: int | None     # plies to the first capture or mate
    dtc60: int | None = None   # plies to a conversion that keeps the win within the limit
    must_stop_checking: bool = False   # lost because the only drawing moves are perpetual checks
    chase_sensitive: bool = False      # a draw the chase rule (长捉) could change (values.RULES)
    rule_set: str | None = None        # the rule set whose table answered ("chinese"), None:
                                       # perpetual check only (or a one-sided table, the same
                                       # under every rule set)

    @property
    def theoretical_wdl(self) -> int:
        """The value without the natural limit: 2, 0 or -2."""
        return 2 * (self.wdl > 0) - 2 * (self.wdl < 0)


@dataclass(frozen=True)
class RankedMove:
    move: Move
    value: TableValue   # for the side that plays the move
    forbidden: bool = False     # a perpetual check the rule takes away (see forbidden_moves)
    after: TableValue | None = None     # the position after the move, for its side to move


# What moves are ordered by for a line (see _rank_key and _conversion_key): a class (wins,
# draws, losses), a distance within it, the move's ICCS to break ties.
MoveOrderKey = tuple[int, int | None, str]


def describe(value: TableValue, side_to_move: int) -> str:
    """The value in words with units, e.g. ``Red wins, mate in 19 (37 plies)``."""
    if value.wdl == 0:
        if value.chase_sensitive:
            return ("Draw (the chase rule, 长捉, could change this: "
                    "a side may hold it only by attacking)")
        return "Draw" + _under(value)
    winner = side_to_move if value.wdl > 0 else side_to_move ^ 1
    plies = _decided(value.dtm)
    if plies == 0:
        return f"{COLOR_NAMES[winner]} wins: {COLOR_NAMES[side_to_move]} has no move (mated)"
    moves = (plies + 1) // 2
    unit = "ply" if plies == 1 else "plies"
    text = f"{COLOR_NAMES[winner]} wins, mate in {moves} ({plies} {unit})"
    if abs(value.wdl) == 1:
        text += "; a draw under the 60-move rule"
    if value.must_stop_checking:
        text += (f" ({COLOR_NAMES[side_to_move]} can hold only by perpetual check, 长将, "
                 "which loses)" if value.rule_set is None else
                 f" ({COLOR_NAMES[side_to_move]} can hold only by perpetual attack, 长将, "
                 "长杀, 长捉 or their mixtures, which loses)")
    return text + _under(value)


def _under(value: TableValue) -> str:
    """Which rule set's table answered, when it is not the default's."""
    return "" if value.rule_set is None else f" [{value.rule_set} rules]"


class _Table:
    def __init__(self, path: Path) -> None:
        self.file = TableFile(path)
        self.header: TableHeader = self.file.header
        self.material = Material.parse(self.header.material)
        self.indexer = indexer_for(self.material)
        if self.indexer.size != self.header.size:
            from .format import CorruptTableError
            raise CorruptTableError(path, 8, f"header size {self.header.size} does not match the "
                                    f"index of {self.material} ({self.indexer.size})")


class Tablebase:
    """The tables of one directory, opened lazily per material."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)
        self._tables: dict[str, _Table] = {}

    def close(self) -> None:
        for table in self._tables.values():
            table.file.close()
        self._tables.clear()

    def __enter__(self) -> Tablebase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def materials(self) -> list[str]:
        return sorted(p.name[:-len(SUFFIX)] for p in self.directory.glob(f"*{SUFFIX}"))

    def _table(self, material: Material) -> _Table:
        name = str(material)
        table = self._tables.get(name)
        if table is None:
            path = table_path(self.directory, name)
            if not path.exists():
                raise MissingTableError(missing_table_text(material, self.directory))
            table = _Table(path)
            self._tables[name] = table
        return table

    def header(self, material: str) -> TableHeader:
        return self._table(Material.parse(material).canonical()).header

    def _locate(self, board: Board) -> tuple[_Table, int, int]:
        """The table of ``board``, the side to move as the table stores it, and the index."""
        material = Material.from_board(board)
        canonical = material.canonical()
        table = self._table(canonical)
        flip = 0 if canonical == material else 1
        index = table.indexer.index_of(board, flip)
        if index < 0:
            raise MissingTableError(f"position does not fit the table of {canonical}")
        return table, board.turn ^ flip, index

    def probe(self, board: Board) -> TableValue:
        table, side, index = self._locate(board)
        codes = [table.file.code(metric, side, index) for metric in ("dtm", "dtc", "dtc60")]
        if ILLEGAL in codes:
            from .format import CorruptTableError
            raise CorruptTableError(table.file.path, 0,
                                    f"legal position {board.fen()} stored as illegal")
        (wdl, dtm_plies), (wdl_c, dtc_plies), (wdl_60, dtc60_plies) = map(decode, codes)
        if wdl != wdl_c or (wdl_60 and wdl_60 != wdl):
            from .format import CorruptTableError
            raise CorruptTableError(table.file.path, 0,
                                    f"the metrics disagree on {board.fen()}")
        budget = NATURAL_LIMIT_PLIES - min(board.halfmove_clock, NATURAL_LIMIT_PLIES)
        if wdl and (dtc60_plies is None or dtc60_plies > budget):
            wdl //= 2       # cursed win / blessed loss
        by_rule = table.file.bit(f"rules/checker_{SIDES[side]}", index)
        chase = wdl == 0 and table.file.bit(f"rules/chase_{SIDES[side]}", index)
        return TableValue(wdl, dtm_plies, dtc_plies, dtc60_plies, by_rule, chase,
                          table.header.rules.get("rule_set_name"))

    def forbidden_moves(self, board: Board) -> list[Move]:
        """The legal moves that the perpetual-check rule (长将) takes from the side to move
        (under the Chinese rules' tables, the perpetual-attack rule: checks and chases).

        Where a side can keep the draw only by checking on every move, the tables make it
        stop: its quiet checks into the positions those checks lead to (the rule's victim
        set) are not its moves there, and it loses.  The values around such a position
        follow from the moves left; a line that plays a forbidden check goes round the
        perpetual check for ever (the values after it are those of a fresh position)."""
        table, side, index = self._locate(board)
        if not table.file.bit(f"rules/checker_{SIDES[side]}", index):
            return []
        chases = table.header.rules.get("rule_set_name") == "chinese"
        forbidden = []
        for move in board.legal_moves:
            if board.is_capture(move):
                continue
            chase = chases and bool(attack_of(board, move.from_square, move.to_square)
                                    & Attack.ATTACK_CHASE)
            board.push_unchecked(move)
            try:
                if chase or board.is_check():
                    _, after_side, after_index = self._locate(board)
                    if table.file.bit(f"rules/victim_{SIDES[after_side]}", after_index):
                        forbidden.append(move)
            finally:
                board.pop()
        return forbidden

    def dtm_code(self, board: Board) -> int:
        """The raw stored DTM code of ``board`` for its side to move (see
        :mod:`tablebases.values`), or -1 if no table covers it."""
        try:
            table, side, index = self._locate(board)
        except MissingTableError:
            return -1
        return table.file.code("dtm", side, index)

    def probe_codes(self, codes: bytes, turn: int) -> int:
        """:meth:`dtm_code` of a placement given as 90 piece codes (the solver's leaf probe)."""
        return self.dtm_code(Board.from_codes(codes, turn))

    def max_pieces(self) -> int:
        """The most pieces (kings included) of any table in the directory."""
        return max((len(name) for name in self.materials()), default=0)

    def probe_wdl(self, board: Board) -> int:
        """2 win, 1 cursed win (drawn by the 60-move rule), 0 draw, -1 blessed loss, -2 loss,
        for the side to move, counting the board's halfmove clock towards the limit."""
        return self.probe(board).wdl

    def probe_dtm(self, board: Board) -> int:
        """Plies to mate: positive if the side to move wins, negative if it loses, 0 for a
        draw or a position already lost (use :meth:`probe` to tell them apart)."""
        value = self.probe(board)
        if value.wdl == 0:
            return 0
        dtm = _decided(value.dtm)
        return dtm if value.wdl > 0 else -dtm

    def probe_dtc(self, board: Board) -> int:
        """Plies to the first capture or mate, signed like :meth:`probe_dtm`."""
        value = self.probe(board)
        if value.wdl == 0:
            return 0
        dtc = _decided(value.dtc)
        return dtc if value.wdl > 0 else -dtc

    def get_wdl(self, board: Board, default: int | None = None) -> int | None:
        try:
            return self.probe_wdl(board)
        except MissingTableError:
            return default

    def get_dtm(self, board: Board, default: int | None = None) -> int | None:
        try:
            return self.probe_dtm(board)
        except MissingTableError:
            return default

    def get_dtc(self, board: Board, default: int | None = None) -> int | None:
        try:
            return self.probe_dtc(board)
        except MissingTableError:
            return default

    def ranked_moves(self, board: Board) -> list[RankedMove]:
        """Every legal move with its value for the mover: wins fastest first, then draws,
        then losses with the longest resistance first; the moves the perpetual-check rule
        forbids (:meth:`forbidden_moves`) last, whatever the value after them."""
        forbidden = set(self.forbidden_moves(board))
        ranked = []
        for move in board.legal_moves:
            board.push_unchecked(move)
            try:
                after = self.probe(board)
            finally:
                board.pop()
            capture = board.is_capture(move)
            value = TableValue(
                -after.wdl,
                None if after.dtm is None else after.dtm + 1,
                None if after.dtc is None else (1 if capture else after.dtc + 1),
                None if after.dtc60 is None else (1 if capture else after.dtc60 + 1))
            ranked.append(RankedMove(move, value, move in forbidden, after))
        ranked.sort(key=lambda item: (item.forbidden, _rank_key(item)))
        return ranked

    def best_line(self, board: Board, max_plies: int = 1000) -> list[Move]:
        """The main line: both sides play the first ranked move until the game ends."""
        return self._line(board, _rank_key, False, max_plies)

    def conversion_line(self, board: Board, max_plies: int = 2000) -> list[Move]:
        """The line by DTC: the winner converts fastest, the loser delays the first capture
        (or mate) longest; the line ends with that capture or mate."""
        return self._line(board, _conversion_key, True, max_plies)

    def _line(self, board: Board, order: Callable[[RankedMove], MoveOrderKey], until_capture: bool,
              max_plies: int) -> list[Move]:
        """Both sides play the move first in ``order`` until the game (or, with
        ``until_capture``, the phase) ends."""
        board = board.copy(stack=False)
        line: list[Move] = []
        while len(line) < max_plies:
            value = self.probe(board)
            if value.wdl == 0 or value.dtm == 0:
                break
            move = min((item for item in self.ranked_moves(board) if not item.forbidden),
                       key=order).move
            line.append(move)
            if until_capture and board.is_capture(move):
                break
            board.push_unchecked(move)
        return line


def _decided(plies: int | None) -> int:
    """The distance of a won or lost position (a draw's is None)."""
    assert plies is not None, "a decided position has a distance"
    return plies


def _conversion_key(ranked: RankedMove) -> MoveOrderKey:
    """Order by DTC: wins fastest first, then draws, then losses slowest first."""
    value = ranked.value
    if value.wdl > 0:
        return (0, value.dtc, ranked.move.iccs())
    if value.wdl == 0:
        return (1, 0, ranked.move.iccs())
    return (2, -_decided(value.dtc), ranked.move.iccs())


def _rank_key(ranked: RankedMove) -> MoveOrderKey:
    value = ranked.value
    if value.wdl > 0:
        return (-value.wdl, value.dtm, ranked.move.iccs())
    if value.wdl == 0:
        return (0, 0, ranked.move.iccs())
    return (-value.wdl, -_decided(value.dtm), ranked.move.iccs())


def open_tablebase(directory: Path | str | None = None) -> Tablebase:
    """The tables in ``directory`` (default: :func:`tablebases.paths.default_directory`)."""
    if directory is None:
        from .paths import default_directory
        directory = default_directory()
    return Tablebase(directory)
