"""Practice positions (puzzles.generate, issue 42): seeded candidates, the soundness and
pattern checks that keep one, the practice file, the catalogue's practice table and the
``catalogue generate`` command."""
from __future__ import annotations

import json
import random
import shutil

import pytest

from puzzles.catalogue import CatalogueError, build, open_catalogue, practice_counts
from puzzles.generate import (
    MINED_PREFIX,
    PRACTICE_COLUMNS,
    PRACTICE_FILE,
    append_practice,
    built_candidate,
    built_candidates,
    check_candidate,
    generate,
    mined_candidates,
    next_candidate,
    read_practice,
    seed_prefix,
    varied_candidate,
)
from puzzles.paths import DATA_DIR
from tui.cli import main
from xiangqi import Board


def is_mate_after(board: Board, move) -> bool:
    after = board.copy()
    after.push(move)
    return not after.has_legal_move()


def test_a_seed_always_builds_the_same_candidates() -> None:
    first = [(i, b.fen() if b else None) for i, b in zip(range(20), built_candidates(
        ["N", "C"], seed=7)) for i, b in [b]]
    again = [(i, b.fen() if b else None) for i, b in zip(range(20), built_candidates(
        ["N", "C"], seed=7)) for i, b in [b]]
    assert first == again
    resumed = next(built_candidates(["N", "C"], seed=7, start=5))
    assert (resumed[0], resumed[1].fen() if resumed[1] else None) == first[5]


def test_a_built_candidate_is_a_legal_position_with_the_pieces_asked() -> None:
    boards = [built_candidate(random.Random(i), ["R", "N", "C"]) for i in range(40)]
    legal = [b for b in boards if b is not None]
    assert legal
    for board in legal:
        placement = board.board_fen()
        assert sum(placement.count(c) for c in "RNC") == 3 and "K" in placement
        assert board.turn == 0 and not board.kings_facing()


def test_a_candidate_built_from_a_picture_keeps_its_attack_and_redraws_the_defence() -> None:
    picture = Board("3aka3/9/9/5N2C/9/9/4c2n1/4B4/4A4/3AK4 w - - 0 1")      # 马后炮 例1
    attack = {sq: p for sq, p in picture.piece_map().items() if p.symbol() in "NCAB"}
    boards = [varied_candidate(random.Random(i), picture) for i in range(30)]
    legal = [b for b in boards if b is not None]
    assert len(legal) > 15 and len({b.fen() for b in legal}) > 15
    for board in legal:
        pieces = board.piece_map()
        assert {sq: p for sq, p in pieces.items() if p.color == 0 and p.symbol() != "K"} == \
            attack                                          # the attack as it stands
        assert pieces[picture.king(1)].symbol() == "k"      # the king it is made around
        assert board.turn == 0 and not board.kings_facing()
    assert {b.board_fen() for b in legal} != {picture.board_fen()}
    again = varied_candidate(random.Random(3), picture)
    assert (again.fen() if again else None) == (boards[3].fen() if boards[3] else None)


def test_built_positions_are_new_problems_not_a_known_line_again(monkeypatch) -> None:
    """A candidate whose main line is a known one (the picture's own, or one kept before) is
    the same problem with a bystander changed: not kept."""
    import puzzles.generate as generate_module
    lines = iter(["f6g8 e9e8 i6i8", "f6g8 e9e8 i6i8", "f6e8 d9d8 i6i8", "f6e8 d9d8 i6i8",
                  "f6g8 e9d9 i6d6"] * 10)

    def solved(board, wanted=None, source=""):
        return generate_module.PracticePosition(board.fen(), "checks", 2, next(lines),
                                                ("cannon-behind-horse",), source)
    monkeypatch.setattr(generate_module, "check_candidate", solved)
    picture = Board("3aka3/9/9/5N2C/9/9/4c2n1/4B4/4A4/3AK4 w - - 0 1")
    kept = list(generate("cannon-behind-horse", ["N", "C"], count=5, seed=1, attempts=40,
                         pictures=[picture], known_lines=["f6g8 e9e8 i6i8"]))
    assert [position.solution_iccs for _, position in kept] == ["f6e8 d9d8 i6i8",
                                                                "f6g8 e9d9 i6d6"]


def test_a_sound_mate_showing_the_pattern_is_kept() -> None:
    # 马后炮 from the catalogue's first example: mate in 2 by checks, one key.
    board = Board("3aka3/9/9/5N2C/9/9/4c2n1/4B4/4A4/3AK4 w - - 0 1")
    position = check_candidate(board, "cannon-behind-horse")
    assert position is not None
    assert (position.stipulation, position.moves) == ("checks", 2)
    assert position.solution_iccs.split()[0] == "f6g8"
    assert "cannon-behind-horse" in position.shows
    assert check_candidate(board, "double-cannon") is None      # not what it shows


def test_a_mate_with_two_keys_is_not_kept() -> None:
    # Rook b8 holds the 8th rank, the king e0 the e-file: Ra9 and Rd0 both mate (a cook).
    board = Board("3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1")
    assert {m.iccs() for m in board.legal_moves if is_mate_after(board, m)} >= {"a0a9", "a0d0"}
    assert check_candidate(board) is None


def test_mined_candidates_are_the_attacker_positions_near_the_end() -> None:
    line = "f6g8 e9e8 i6i8"
    found = list(mined_candidates([("马后炮:1", "3aka3/9/9/5N2C/9/9/4c2n1/4B4/4A4/3AK4 w - - 0 1",
                                    line)], max_moves=1))
    assert [source for _, source in found] == ["马后炮:1 ply 2"]
    assert found[0][0].fen().startswith("3a1a3/4k1N2/9/8C/9/9/4c2n1/4B4/4A4/3AK4 w")


def test_the_practice_file_round_trips_and_resumes(tmp_path) -> None:
    path = tmp_path / "p.tsv"
    row = dict(zip(PRACTICE_COLUMNS, ["double-cannon", "9/9/9/9/9/9/9/9/9/4K4 w - - 0 1",
                                      "checks", "1", "a0a1", "double-cannon",
                                      "generated double-cannon seed 3 #41"]))
    append_practice(path, [row])
    append_practice(path, [{**row, "source": "generated double-cannon seed 3 #7"}])
    rows = read_practice(path)
    assert [r["source"] for r in rows] == ["generated double-cannon seed 3 #41",
                                           "generated double-cannon seed 3 #7"]
    assert next_candidate([r["source"] for r in rows], seed_prefix("double-cannon", 3)) == 42
    assert next_candidate([r["source"] for r in rows], seed_prefix("double-cannon", 4)) == 0
    assert next_candidate([r["source"] for r in rows], seed_prefix("half-moon", 3)) == 0
    assert next_candidate(["mined #12 适情雅趣:7 ply 4"], MINED_PREFIX) == 13
    with path.open("a", encoding="utf-8") as handle:
        handle.write("double-cannon\t9/9")                       # a row cut short
    assert len(read_practice(path)) == 2


def test_generate_end_to_end_and_the_build_loads_the_file(tmp_path, capsys) -> None:
    catalogue = tmp_path / "c.sqlite"
    output = tmp_path / "practice.tsv"
    assert main(["catalogue", "generate", "--pattern", "重炮", "--count", "1", "--seed", "1",
                 "--db", str(catalogue), "--output", str(output), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["kept"] == 1 and first["first_candidate"] == 0
    rows = read_practice(output)
    assert len(rows) == 1 and all("double-cannon" in r["shows"].split() for r in rows)
    # Taken up again: after the last kept candidate, nothing kept twice.
    assert main(["catalogue", "generate", "--pattern", "重炮", "--count", "1", "--seed", "1",
                 "--db", str(catalogue), "--output", str(output), "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["first_candidate"] > int(rows[-1]["source"].rsplit("#", 1)[1]) - 1
    assert len({r["fen"] for r in read_practice(output)}) == 2
    # Into the catalogue itself (one transaction a batch), beside the shipped positions.
    before = practice_counts(open_catalogue(catalogue)).get("double-cannon", 0)
    assert main(["catalogue", "generate", "--pattern", "重炮", "--count", "1", "--seed", "1",
                 "--db", str(catalogue), "--json"]) == 0
    capsys.readouterr()
    assert practice_counts(open_catalogue(catalogue)).get("double-cannon") == before + 1
    # A data directory with the file: the build loads it, checked by replay.
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    shutil.copy(output, data / PRACTICE_FILE)
    report = build(tmp_path / "built.sqlite", data_dir=data)
    assert report.practice == 2
    lines = (data / PRACTICE_FILE).read_text(encoding="utf-8").splitlines()
    cells = lines[1].split("\t")
    cells[4] = cells[4].split()[0]                              # the line cut to one move
    (data / PRACTICE_FILE).write_text("\n".join([lines[0], "\t".join(cells)]) + "\n",
                                      encoding="utf-8")
    with pytest.raises(CatalogueError, match="practice_positions.tsv: .* does not mate"):
        build(tmp_path / "bad.sqlite", data_dir=data)
    # An output file holding a position the rules forbid (three advisors): a clear error
    # naming the file and the position, nothing generated.
    bad = tmp_path / "bad.tsv"
    append_practice(bad, [dict(zip(PRACTICE_COLUMNS, [
        "double-cannon", "3aka3/9/3a5/9/9/9/9/9/9/C3K3C w - - 0 1", "checks", "1", "a0a9",
        "double-cannon", "generated double-cannon seed 9 #1"]))])
    assert main(["catalogue", "generate", "--pattern", "重炮", "--count", "1", "--db",
                 str(catalogue), "--output", str(bad)]) == 1
    error = capsys.readouterr().err
    assert str(bad) in error and "3aka3/9/3a5" in error and "advisors" in error
    assert len(read_practice(bad)) == 1


def test_mining_the_compositions_lines(tmp_path, capsys) -> None:
    catalogue = tmp_path / "c.sqlite"
    output = tmp_path / "mined.tsv"
    assert main(["catalogue", "generate", "--mine", "--count", "1", "--db", str(catalogue),
                 "--output", str(output), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kept"] == 1
    row = read_practice(output)[0]
    assert row["source"].startswith(MINED_PREFIX) and " ply " in row["source"]
    assert row["pattern_id"] == row["shows"].split()[0]
    assert 1 <= int(row["moves"]) <= 7
    # Taken up after it; a pattern asked for keeps only positions that show it.
    assert main(["catalogue", "generate", "--mine", "--pattern", "卧槽马", "--count", "1",
                 "--db", str(catalogue), "--output", str(output), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["first_candidate"] > int(row["source"][len(MINED_PREFIX):].split()[0])
    assert "trough-horse" in read_practice(output)[-1]["shows"].split()
    assert main(["catalogue", "generate", "--db", str(catalogue)]) == 1
    assert "--pattern is needed" in capsys.readouterr().err
