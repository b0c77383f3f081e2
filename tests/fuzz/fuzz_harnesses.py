"""Seeded fuzz harnesses for issue 16 (each finding is also a plain test elsewhere).

Each harness takes a ``random.Random`` and a number of cases and raises AssertionError with
the failing input.  ``tests/fuzz/test_fuzz_seeded.py`` runs a few hundred cases of each in
``make test``; ``make fuzz`` runs ``tests/fuzz/run.py`` for long.
"""
from __future__ import annotations

import json
import random
import struct
import tempfile
import zlib
from pathlib import Path

from xiangqi import Board, FenError
from xiangqi.fen import CLOCK_LIMIT

SEEDS = [
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "3ak4/9/9/9/9/9/9/9/9/3K4R w - - 40000 1",
    "4k4/9/9/9/9/9/9/9/9/3K5 w - - 32768 1",
    "3ak4/4a4/4b4/9/9/9/9/9/4R4/4K1B2 w - - 0 1",
    "9/9/3ak4/9/9/9/9/9/9/N2K5 w - - 100 60",
]
CLOCKS = ["0", "1", "119", "120", "32767", "32768", "40000", "65535", "65536", "99999",
          "100000", "100001", "-1", "1e3", "x", "0" * 51 + "1", "9" * 13, "٣"]


def _mutated_fen(rng: random.Random) -> str:
    fields = rng.choice(SEEDS).split()
    roll = rng.random()
    if roll < 0.4:
        fields[4 + rng.randrange(2)] = rng.choice(CLOCKS)
    elif roll < 0.7:
        text = list(fields[0])
        for _ in range(rng.randint(1, 3)):
            text[rng.randrange(len(text))] = rng.choice("kKaAbBnNrRcCpPhHeE123456789/x")
        fields[0] = "".join(text)
    elif roll < 0.85:
        fields[1] = rng.choice(["w", "b", "r", "B", "x", ""])
    else:
        fields = fields[:rng.randint(1, 6)]
    return " ".join(f for f in fields if f)


def fuzz_fen(rng: random.Random, cases: int) -> None:
    """Parsed FENs: every board keeps its clock through move generation, make and unmake,
    writes a FEN that reads back, and rejects bad input only with FenError."""
    for _ in range(cases):
        fen = _mutated_fen(rng)
        try:
            board = Board(fen)
        except FenError:
            continue
        clock = board.halfmove_clock
        moves = board.legal_moves
        board.is_checkmate()
        assert board.halfmove_clock == clock, (fen, board.halfmove_clock)
        for move in rng.sample(moves, min(3, len(moves))):
            board.push(move)
            assert 0 <= board.halfmove_clock <= CLOCK_LIMIT, (fen, move)
            again = Board(board.fen())               # what it writes reads back
            assert again.halfmove_clock == board.halfmove_clock, (fen, board.fen())
            board.pop()
        assert board.halfmove_clock == clock and board.fen() == Board(board.fen()).fen(), fen


SETTER_VALUES = [0, 1, 2, -1, 100_000, 100_001, 2**31, -2**31, 2**63, True, 1.0, "1", None]


def fuzz_setters(rng: random.Random, cases: int) -> None:
    """Setters take their range or raise ValueError, and never leave a board that crashes."""
    for _ in range(cases):
        board = Board(rng.choice(SEEDS))
        name = rng.choice(["turn_code", "halfmove_clock", "fullmove_number"])
        value = rng.choice(SETTER_VALUES)
        try:
            setattr(board, name, value)
        except ValueError:
            pass
        assert board.turn_code in (0, 1)
        assert 0 <= board.halfmove_clock <= CLOCK_LIMIT
        assert 1 <= board.fullmove_number <= CLOCK_LIMIT
        assert len(board.legal_moves) < 128
        Board(board.fen())


_TABLE_CACHE: dict[str, bytes] = {}


def _krk_bytes() -> bytes:
    if "KRK" not in _TABLE_CACHE:
        from tablebases.build import build
        from tablebases.format import table_path
        with tempfile.TemporaryDirectory() as directory:
            build("KRK", directory, log=lambda line: None)
            _TABLE_CACHE["KRK"] = table_path(directory, "KRK").read_bytes()
    return _TABLE_CACHE["KRK"]


def _rewrite(data: bytes, fields: dict) -> bytes:
    (length,) = struct.unpack("<I", data[4:8])
    encoded = json.dumps(fields, sort_keys=True).encode().ljust(length, b" ")
    return (data[:4] + struct.pack("<I", len(encoded)) + encoded
            + struct.pack("<I", zlib.crc32(encoded)) + data[8 + length + 4:])


ODD_VALUES = [0, -1, 1, 2**40, -2**40, "x", None, [], {}, 1.5, True, "KXK", "K"]


def _mutated_table(rng: random.Random, data: bytes) -> bytes:
    (length,) = struct.unpack("<I", data[4:8])
    fields = json.loads(data[8:8 + length])
    roll = rng.random()
    if roll < 0.5:                                   # a field, with a valid header checksum
        key = rng.choice(["material", "size", "block_entries", "data_checksum", "metrics",
                          "blocks", "lengths", "extra", "counts"])
        fields[key] = rng.choice(ODD_VALUES)
        return _rewrite(data, fields)
    if roll < 0.75:                                  # one block row
        name = rng.choice(sorted(fields["blocks"]))
        row = rng.choice(fields["blocks"][name])
        row[rng.randrange(3)] = rng.choice(ODD_VALUES + [row[0] + 1, row[1] - 1])
        return _rewrite(data, fields)
    mutated = bytearray(data)                        # raw bytes, anywhere
    for _ in range(rng.randint(1, 4)):
        mutated[rng.randrange(len(mutated))] ^= 1 << rng.randrange(8)
    if rng.random() < 0.2:
        mutated = mutated[:rng.randrange(len(mutated))]
    return bytes(mutated)


def fuzz_table_files(rng: random.Random, cases: int) -> None:
    """A damaged KRK file is either sound or raises CorruptTableError (a ValueError naming
    the file), in the reader, the data check, the probe and the builder's reuse check."""
    from tablebases.build import table_problem
    from tablebases.format import CorruptTableError, TableFile
    from tablebases.probe import open_tablebase

    data = _krk_bytes()
    probe_board = Board("4k4/9/9/9/9/9/9/9/9/3K4R w")
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "KRK.xqtb"
        for _ in range(cases):
            mutated = _mutated_table(rng, data)
            path.write_bytes(mutated)
            try:
                table = TableFile(path)
                try:
                    table.check_data_checksum()
                    for side in (0, 1):
                        table.code("dtm", side, rng.randrange(table.header.size))
                finally:
                    table.close()
            except CorruptTableError as error:
                assert str(path) in str(error) and "offset" in str(error), error
            if mutated == data:
                assert table_problem(path) is None
            else:
                table_problem(path)                  # a reason or None, never an exception
            tablebase = open_tablebase(directory)
            try:
                tablebase.get_wdl(probe_board)
            except CorruptTableError:
                pass
            finally:
                tablebase.close()


HARNESSES = {"fen": fuzz_fen, "setters": fuzz_setters, "tables": fuzz_table_files}


def run(seed: int, cases: int, names=None) -> None:
    for name in names or HARNESSES:
        HARNESSES[name](random.Random(f"{name}:{seed}"), cases)


__all__ = ["HARNESSES", "run", "fuzz_fen", "fuzz_setters", "fuzz_table_files"]
