"""Problem and game files (puzzles.formats): FEN lists, PGN, DhtmlXQ and XQF.

Round trips over random legal playouts from the start position and from the 适情雅趣
positions (puzzles/data/shiqingyaqu551.fen), the known encodings of each format (the DhtmlXQ
start ``binit``, the XQF header bytes), hand-written files with comments, variations and
traditional characters, and every kind of bad input: each raises FormatError naming the file
and the line or byte offset.
"""
from __future__ import annotations

import os
import pickle
import random
from pathlib import Path

import pytest

from puzzles.formats import FORMATS, FormatError, Record, format_of, read, write
from puzzles.formats.dhtmlxq import binit_of, parse_dhtmlxq, write_dhtmlxq, write_dhtmlxq_list
from puzzles.formats.fenlist import parse_fen_list, write_fen_list
from puzzles.formats.pgn import parse_pgn, write_pgn
from puzzles.formats.xqf import HEADER_SIZE, parse_xqf, write_xqf
from xiangqi import STARTING_FEN, Board

DATA = Path(__file__).parent / "data"
# 《适情雅趣》, the copy the catalogue ships.
BOOK = Path(__file__).resolve().parent.parent / "puzzles" / "data" / "shiqingyaqu551.fen"
SHIQING = BOOK
START_BINIT = "8979695949392919097717866646260600102030405060708012720323436383"


# -- fixtures: random games ---------------------------------------------------------------------

def playout(fen: str, plies: int, rng: random.Random) -> list[str]:
    board, moves = Board(fen), []
    for _ in range(plies):
        legal = board.legal_moves
        if not legal:
            break
        move = rng.choice(legal)
        board.push(move)
        moves.append(move.iccs())
    return moves


def result_of(fen: str, moves: list[str]) -> str:
    board = Board(fen)
    for move in moves:
        board.push_iccs(move)
    outcome = board.outcome()
    return outcome.result() if outcome else "*"


@pytest.fixture(scope="module")
def shiqing() -> list[Record]:
    return read(SHIQING)


@pytest.fixture(scope="module")
def games(shiqing) -> list[Record]:
    """36 short games: 8 from the start, 4 from a Black-to-move position reached from the start
    (clocks not 0 1), 24 from 适情雅趣 positions; 0..16 plies each."""
    rng = random.Random(551)
    starts = [STARTING_FEN] * 8
    for _ in range(4):
        board = Board()
        for move in playout(STARTING_FEN, rng.randrange(1, 12) * 2 + 1, rng):
            board.push_iccs(move)
        starts.append(board.fen())
    starts += [record.fen for record in rng.sample(shiqing, 24)]
    records = []
    for number, fen in enumerate(starts, start=1):
        moves = playout(fen, rng.randrange(0, 17), rng)
        tags = {"event": f"测试 {number}", "red": "红方", "black": "Black player",
                "result": result_of(fen, moves)}
        if number % 3 == 0:
            tags["title"] = f"第{number}局"
        records.append(Record(fen, moves, tags))
    return records


# -- the package ----------------------------------------------------------------------------------

def test_format_error_message_and_attributes():
    error = FormatError("unknown move '马9进7'", "problems.pgn", line=12)
    assert str(error) == "problems.pgn, line 12: unknown move '马9进7'"
    assert (error.path, error.line, error.offset) == ("problems.pgn", 12, None)
    assert isinstance(error, ValueError)
    assert str(FormatError("bad", None, offset=7)) == "byte 7: bad"
    assert str(FormatError("bad")) == "bad"
    copy = pickle.loads(pickle.dumps(FormatError("x", Path("a.xqf"), offset=3)))
    assert (str(copy), copy.path, copy.offset) == ("a.xqf, byte 3: x", "a.xqf", 3)


def test_formats_and_dispatch():
    assert [f.name for f in FORMATS] == ["fen", "pgn", "dhtmlxq", "xqf"]
    assert format_of("a.PGN").name == "pgn"
    assert format_of("a.epd").name == "fen"
    assert format_of("a.txt", "[DhtmlXQ]...").name == "dhtmlxq"
    assert format_of("a.txt", "3k5/9/9/9/9/9/9/9/9/4K4 w").name == "fen"
    with pytest.raises(FormatError, match=r"x\.doc: unknown file type '\.doc'"):
        format_of("x.doc")


def test_record_equality_ignores_line():
    assert Record(STARTING_FEN, [], {}, 3) == Record(STARTING_FEN, [], {}, 9)
    assert Record(STARTING_FEN, ["h2e2"]).final_board().fen().split()[1] == "b"


# -- FEN lists ------------------------------------------------------------------------------------

def test_shiqing_collection_reads_551_records(shiqing):
    assert len(shiqing) == 551
    first, last = shiqing[0], shiqing[-1]
    assert first.fen == "2baka3/3P3N1/bN7/7nc/9/4C1P2/P5n1P/B3R3B/4Apr2/2RAK3c w - - 0 1"
    assert first.tags == {"index": "shiqingyaqu-551-001",
                          "event": "适情雅趣_李浭551局新版 第001局 气吞关右"}
    assert first.line == 1 and last.line == 2201
    assert last.tags["index"] == "shiqingyaqu-551-551"
    assert all(r.moves == [] for r in shiqing)
    assert len({r.tags["index"] for r in shiqing}) == 551


def test_fen_list_round_trips(shiqing):
    text = write_fen_list(shiqing)
    assert text.startswith('[FEN_INDEX "shiqingyaqu-551-001"]\n[EVENT "适情雅趣')
    assert parse_fen_list(text) == shiqing
    plain = [Record(r.fen) for r in shiqing[:40]]
    text = write_fen_list(plain)
    assert len(text.splitlines()) == 40 and "[" not in text
    assert parse_fen_list(text) == plain


def test_fen_list_layout_details():
    text = ("# c\n\n3k5/9/9/9/9/9/9/9/4R4/4K4 w\n"
            "4k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1 id \"epd 1\"; c0 \"mate; in 1\";\n"
            "[FEN_INDEX \"x-1\"] [EVENT \"tags \\\"quoted\\\"\"]\n"
            "[FEN \"4k4/9/9/9/9/9/9/9/9/3K5 b\"]\n"
            "[FEN \"3k5/9/9/9/9/9/9/9/9/4K4 w\"]\n")
    records = parse_fen_list(text)
    assert [(r.line, r.tags) for r in records] == [
        (3, {}), (4, {"id": "epd 1", "c0": "mate; in 1"}),
        (5, {"index": "x-1", "event": 'tags "quoted"'}), (7, {})]
    assert records[2].fen == "4k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1"
    assert parse_fen_list(write_fen_list(records)) == records


@pytest.mark.parametrize("text, line, message", [
    ("3k5/9/9/9/9/9/9/9/9/4K4 w\n\n3k5/9/9/9/9/9/9/9/9/3K5 w\n", 3, "face each other"),
    ("3k5/9/9/9/9/9/9/9/9/4K4 w\nnot a fen\n", 2, "bad FEN 'not a fen'"),
    ('[EVENT "x"]\n[FEN "3k5/9/9/9/9/9/9/9/9/4X4 w"]\n', 2, "unknown piece letter 'X'"),
    ('[EVENT "x"]\n[INDEX "1"]\n\n', 1, "tag block without a"),
    ('[FEN "3k5/9/9/9/9/9/9/9/9/4K4 w"\n', 1, "unknown tag syntax"),
    ('[FEN 3k5/9/9/9/9/9/9/9/9/4K4]\n', 1, "unknown tag syntax"),
    ("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1 id x; bad\n", 1, "bad EPD operation 'bad'"),
])
def test_fen_list_rejects(text, line, message):
    with pytest.raises(FormatError) as caught:
        parse_fen_list(text, "list.fen")
    error = caught.value
    assert (error.path, error.line) == ("list.fen", line)
    assert message in str(error) and str(error).startswith(f"list.fen, line {line}: ")


def test_fen_list_cannot_hold_moves():
    with pytest.raises(FormatError, match="record 2 has 1 moves"):
        write_fen_list([Record(), Record(STARTING_FEN, ["h2e2"])])


def test_fen_list_keeps_moves_as_comments_or_drops_them(tmp_path):
    records = [Record(STARTING_FEN, [], {"title": "开局"}),
               Record(STARTING_FEN, ["h2e2", "h9g7"], {"title": "中炮"})]
    text = write_fen_list(records, solutions="comment")
    assert f'# solution: h2e2 h9g7\n[TITLE "中炮"]\n[FEN "{STARTING_FEN}"]\n' in text
    assert text.count("#") == 1
    # The reader skips the comment: the positions and tags come back, the moves do not.
    assert parse_fen_list(text) == [Record(STARTING_FEN, [], r.tags) for r in records]
    assert "#" not in write_fen_list(records, solutions="drop")
    with pytest.raises(FormatError, match="record 1 move 1 'a0a5'"):
        write_fen_list([Record(STARTING_FEN, ["a0a5"])], solutions="comment")
    write(tmp_path / "list.fen", records, solutions="comment")
    assert read(tmp_path / "list.fen") == [Record(STARTING_FEN, [], r.tags) for r in records]


def test_write_into_a_missing_directory_names_it(tmp_path):
    target = tmp_path / "no" / "such" / "list.pgn"
    with pytest.raises(FormatError) as caught:
        write(target, [Record()])
    assert str(caught.value) == f"{target}: cannot write: there is no directory {target.parent}"
    assert caught.value.path == str(target) and not (tmp_path / "no").exists()


# -- PGN ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("notation", ["chinese", "wxf", "iccs"])
def test_pgn_round_trips(games, notation):
    text = write_pgn(games, notation)
    assert text.startswith('[Game "Chinese Chess"]\n')
    assert text.count('[Game "Chinese Chess"]') == len(games)
    assert ('[Format "WXF"]' in text) == (notation == "wxf")
    assert ('[Format "ICCS"]' in text) == (notation == "iccs")
    back = parse_pgn(text)
    assert back == games
    lines = text.splitlines()
    assert [lines[r.line - 1] for r in back] == ['[Game "Chinese Chess"]'] * len(games)


def test_pgn_writes_set_up_positions_and_black_first():
    record = Record("4k4/9/9/9/9/9/9/9/4R4/5K3 b - - 4 12", ["e9d9", "e1d1"],
                    {"result": "*"})
    text = write_pgn([record], "chinese")
    assert '[FEN "4k4/9/9/9/9/9/9/9/4R4/5K3 b - - 4 12"]' in text
    assert "12... 将5平4\n13. 车五平六 *" in text
    assert parse_pgn(text) == [record]


def test_pgn_traditional_characters_and_full_width_digits():
    text = """[Game "Chinese Chess"]
[Red "許銀川"]
[Black "呂欽"]
[Result "1/2-1/2"]
1. 炮二平五 馬８進７ 2. 傌二進三 車９平８ 3. 俥一平二 砲８進４
4. 兵七進一 卒７進１ 5. 俥二上一 1/2-1/2
"""
    [record] = parse_pgn(text)
    assert record.moves == ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "h7h3",
                            "c3c4", "g6g5", "h0h1"]
    assert record.tags == {"red": "許銀川", "black": "呂欽", "result": "1/2-1/2"}


def test_pgn_comments_variations_and_annotations():
    text = """% an escape line, skipped
[Game "Chinese Chess"]
[Event "comments"]

{开局：中炮对屏风马} 1. 炮二平五 {红方当头炮} 马8进7!
; a line comment
2. 马二进三 $1 (2. 兵七进一 (2. 马八进七 车9平8) 卒7进1 {变着}) 2... 车9平8?!
3.车一平二 (3. 车一进一) 马2进3 1-0

1. h2e2 h9g7 *
[Game "Chinese Chess"]
[Format "ICCS"]
1. H2-E2 H9-G7 2. h0g2 *
"""
    records = parse_pgn(text, "c.pgn")
    assert [r.moves for r in records] == [
        ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"],
        ["h2e2", "h9g7"],
        ["h2e2", "h9g7", "h0g2"]]
    assert records[0].tags == {"event": "comments", "result": "1-0",
                               "comment": "开局：中炮对屏风马"}
    assert records[1].tags == {"result": "*"}
    assert [r.line for r in records] == [2, 10, 11]
    again = parse_pgn(write_pgn(records[:1]))
    assert again == records[:1]
    assert "{开局：中炮对屏风马}" in write_pgn(records[:1])


def test_pgn_detects_the_notation_without_a_format_tag():
    text = "1. C2.5 H8+7 2. H2+3 R9.8 *"
    assert parse_pgn(text)[0].moves == ["h2e2", "h9g7", "h0g2", "i9h9"]
    assert parse_pgn("1. 炮253 马873 *")[0].moves == ["h2e2", "h9g7"]


@pytest.mark.parametrize("text, line, message", [
    ('[Game "Chinese Chess"]\n\n1. 炮二平五 马8进7\n2. 马二进三 马9进7\n', 4,
     "unknown move '马9进7' at 2...: no Black horse stands on file 9"),
    ('[Game "Chinese Chess"]\n1. 炮二平五 马8进7\n2. 马二进四 *\n', 3,
     "illegal move '马二进四' at 2.: the horse's leg"),
    ('[Game "Chinese Chess"]\n[Format "WXF"]\n1. C2.5 H8+7\n2. R1.2 *\n', 4,
     "illegal move 'R1.2' at 2."),
    ('[Game "Chinese Chess"]\n[Format "ICCS"]\n1. H2-E2 H9-G7 2. E2-E9 *\n', 3,
     "illegal move 'E2-E9' at 2."),
    ('[Game "Chinese Chess"]\n1. 炮二平五 hello *\n', 2, "unknown move 'hello' at 1..."),
    ('[Game "Chinese Chess"]\n[Event "no closing quote]\n1. h2e2 *\n', 2, "unknown tag syntax"),
    ('[Game "Chinese Chess"]\n[Event]\n', 2, "unknown tag syntax"),
    ('[Game "Chess"]\n1. e4 *\n', 1, "not a Chinese chess game"),
    ('[Format "UCI"]\n1. h2e2 *\n', 1, "unknown move format 'UCI'"),
    ('[Result "1-0"]\n1. h2e2 0-1\n', 2, "the game ends 0-1 but its Result tag"),
    ('[FEN "3k5/9/9/9/9/9/9/9/9/3K5 w"]\n*\n', 1, "face each other"),
    ('1. h2e2 {never closed\n h9g7 *\n', 1, "comment '{' is never closed"),
    ('1. h2e2 (1. b2e2 h9g7\n*\n', 1, "variation '(' is never closed"),
    ('1. h2e2 h9g7 ) *\n', 1, "')' without a matching '('"),
])
def test_pgn_rejects(text, line, message):
    with pytest.raises(FormatError) as caught:
        parse_pgn(text, "problems.pgn")
    error = caught.value
    assert (error.path, error.line) == ("problems.pgn", line), str(error)
    assert message in str(error), str(error)
    assert str(error).startswith(f"problems.pgn, line {line}: ")


def test_pgn_writer_checks_records():
    with pytest.raises(FormatError, match="record 1 move 2 'h2e2'"):
        write_pgn([Record(STARTING_FEN, ["h2e2", "h2e2"])])
    with pytest.raises(FormatError, match="result '红胜'"):
        write_pgn([Record(STARTING_FEN, [], {"result": "红胜"})])
    with pytest.raises(ValueError, match="unknown notation"):
        write_pgn([Record()], "code4")


# -- DhtmlXQ --------------------------------------------------------------------------------------

def test_dhtmlxq_start_position_binit():
    # Red 车马相仕帅仕相马车炮炮兵兵兵兵兵 then Black: Red's rook on i0 is "89" (column 8 from
    # the left, row 9 from the top), its king on e0 "49", Black's rook on a9 "00".
    assert binit_of(STARTING_FEN) == START_BINIT
    [record] = parse_dhtmlxq(f"[DhtmlXQ_binit]{START_BINIT}[/DhtmlXQ_binit]")
    assert record.fen == STARTING_FEN and record.moves == []
    # vschess lists each side's pieces from the left; the same position.
    vschess = "0919293949596979891777062646668600102030405060708012720323436383"
    assert parse_dhtmlxq(f"[DhtmlXQ_binit]{vschess}[/DhtmlXQ_binit]")[0].fen == STARTING_FEN
    # No binit: the start position; 7747 is 炮二平五, 7062 马8进7.
    assert parse_dhtmlxq("[DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist]")[0].moves == \
        ["h2e2", "h9g7"]


def test_dhtmlxq_round_trips(games):
    for record in games:
        assert parse_dhtmlxq(write_dhtmlxq(record)) == [record]
    text = write_dhtmlxq_list(games)
    back = parse_dhtmlxq(text)
    assert back == games
    lines = text.splitlines()
    assert all(lines[r.line - 1] == "[DhtmlXQ]" for r in back)


def test_dhtmlxq_fields_tags_and_side_to_move():
    text = """<html><body>
[DhtmlXQ]
[DhtmlXQ_ver]www_dpxq_com[/DhtmlXQ_ver]
[DhtmlXQ_title]黑先[/DhtmlXQ_title]
[DhtmlXQ_place]北京[/DhtmlXQ_place]
[DhtmlXQ_blacktime][/DhtmlXQ_time]
[DhtmlXQ_result]黑胜[/DhtmlXQ_result]
[DhtmlXQ_binit]{KINGS}[/DhtmlXQ_binit]
[DhtmlXQ_movelist]30314948[/DhtmlXQ_movelist]
[DhtmlXQ_move_0_2_1]4959[/DhtmlXQ_move_0_2_1]
[DhtmlXQ_comment0]第一行||第二行[/DhtmlXQ_comment0]
[DhtmlXQ_comment1]一步注释[/DhtmlXQ_comment1]
[/DhtmlXQ]
</body></html>""".replace("{KINGS}", "99" * 4 + "49" + "99" * 15 + "30" + "99" * 11)
    [record] = parse_dhtmlxq(text, "b.dhtml")
    # Kings on e0 (49) and d9 (30); the first move is Black's, so Black moves first.
    assert record.fen == "3k5/9/9/9/9/9/9/9/9/4K4 b - - 0 1"
    assert record.moves == ["d9d8", "e0e1"]
    assert record.tags == {"ver": "www_dpxq_com", "title": "黑先", "site": "北京",
                           "result": "0-1", "comment": "第一行\n第二行"}
    assert record.line == 2
    written = write_dhtmlxq(record)
    assert "[DhtmlXQ_result]黑胜[/DhtmlXQ_result]" in written
    assert "[DhtmlXQ_place]北京[/DhtmlXQ_place]" in written
    assert "[DhtmlXQ_comment0]第一行||第二行[/DhtmlXQ_comment0]" in written
    assert parse_dhtmlxq(written) == [record]
    # Without moves: Red to move unless Black is in check, then Black.
    check = binit_of("3k5/9/9/9/9/9/9/9/3R5/4K4 b")
    assert parse_dhtmlxq(f"[DhtmlXQ_binit]{check}[/DhtmlXQ_binit]")[0].fen.split()[1] == "b"
    quiet = binit_of("3k5/9/9/9/9/9/9/9/4R4/4K4 b")
    assert parse_dhtmlxq(f"[DhtmlXQ_binit]{quiet}[/DhtmlXQ_binit]")[0].fen.split()[1] == "w"
    fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 b - - 0 1"
    assert parse_dhtmlxq(f"[DhtmlXQ_binit]{quiet}[/DhtmlXQ_binit]"
                         f"[DhtmlXQ_fen]{fen}[/DhtmlXQ_fen]")[0].fen == fen


BAD_BINIT_TAIL = START_BINIT[2:]


@pytest.mark.parametrize("binit, offset, message", [
    (START_BINIT[:62], 62, "62 digits, expected 64"),
    (START_BINIT + "99", 64, "66 digits, expected 64"),
    ("8x" + BAD_BINIT_TAIL, 1, "'x' is not a digit"),
    ("79" + BAD_BINIT_TAIL, 2, "the Red horse is put on h0, where the Red rook (slot 0) "
                               "already stands"),
    ("95" + BAD_BINIT_TAIL, 0, "column 9 is off the board"),
    (START_BINIT[:4] + "45" + START_BINIT[6:], 4, "the Red elephant cannot stand on e4"),
    (START_BINIT[:8] + "99" + START_BINIT[10:], 8, "the Red king is not on the board"),
    (START_BINIT[:22] + "75" + START_BINIT[24:], 22, "the Red pawn cannot stand on h4"),
])
def test_dhtmlxq_rejects_bad_binit(binit, offset, message):
    text = (f"[DhtmlXQ]\n[DhtmlXQ_title]t[/DhtmlXQ_title]\n"
            f"[DhtmlXQ_binit]{binit}[/DhtmlXQ_binit]\n[/DhtmlXQ]\n")
    with pytest.raises(FormatError) as caught:
        parse_dhtmlxq(text, "bad.dhtml")
    error = caught.value
    assert (error.path, error.line, error.offset) == ("bad.dhtml", 3, offset)
    assert f"[DhtmlXQ_binit] offset {offset}: " in str(error) and message in str(error), \
        str(error)


@pytest.mark.parametrize("text, line, message", [
    ("[DhtmlXQ_movelist]774770621[/DhtmlXQ_movelist]", 1, "offset 8: 9 digits"),
    ("[DhtmlXQ_movelist]77477062\n7779[/DhtmlXQ_movelist]", 1, "offset 8: '\\n' is not"),
    ("[DhtmlXQ_movelist]77477047[/DhtmlXQ_movelist]", 1, "offset 4: illegal move '7047'"),
    ("\n[DhtmlXQ_movelist]4445[/DhtmlXQ_movelist]", 2, "offset 0: no piece on e5"),
    ("[DhtmlXQ]\n[DhtmlXQ_title]x\n", 1, "[DhtmlXQ] is never closed"),
    ("[DhtmlXQ]\n[DhtmlXQ_title]x\n[/DhtmlXQ]", 2, "[DhtmlXQ_title] is never closed"),
    ("[DhtmlXQ]\nstray text\n[/DhtmlXQ]", 2, "unexpected text 'stray text'"),
    ("[DhtmlXQ]\n[DhtmlXQ_fen]4k4/9/9/9/9/9/9/9/9/3K5 w[/DhtmlXQ_fen]\n"
     f"[DhtmlXQ_binit]{START_BINIT}[/DhtmlXQ_binit]\n[/DhtmlXQ]", 2, "is not the position"),
    ("[DhtmlXQ_binit]1[/DhtmlXQ_binit]\n[DhtmlXQ_binit]2[/DhtmlXQ_binit]", 2, "a second"),
    ("no data", None, "no DhtmlXQ data"),
])
def test_dhtmlxq_rejects(text, line, message):
    with pytest.raises(FormatError) as caught:
        parse_dhtmlxq(text, "bad.dhtml")
    assert caught.value.line == line and message in str(caught.value), str(caught.value)


# -- XQF ------------------------------------------------------------------------------------------

XQF_TAGS = ("title", "event", "date", "site", "red", "black", "result", "comment", "type")


def xqf_subset(record: Record) -> Record:
    """What XQF keeps of a record: no clocks, some tags."""
    fen = " ".join(Board(record.fen).fen().split()[:2]) + " - - 0 1"
    return Record(fen, record.moves, {k: v for k, v in record.tags.items() if k in XQF_TAGS})


def test_xqf_round_trips(games):
    for record in games:
        data = write_xqf(record)
        assert data[:3] == b"XQ\x0a" and len(data) == HEADER_SIZE + 8 * (len(record.moves) + 1)
        assert parse_xqf(data) == xqf_subset(record)


def test_xqf_header_layout():
    record = Record(STARTING_FEN, ["h2e2"], {"title": "中炮局", "event": "全国赛", "red": "胡荣华",
                                            "black": "杨官璘", "result": "0-1", "type": "开局",
                                            "comment": "第一行\n第二行"})
    data = write_xqf(record)
    assert data[16:48] == bytes([0, 10, 20, 30, 40, 50, 60, 70, 80, 12, 72, 3, 23, 43, 63, 83,
                                 9, 19, 29, 39, 49, 59, 69, 79, 89, 17, 77, 6, 26, 46, 66, 86])
    assert data[50:52] == b"\x00\x02" and data[64] == 1
    assert data[80] == 6 and data[81:87] == "中炮局".encode("gb18030")
    assert data[304] == 6 and data[320] == 6
    comment = "第一行\r\n第二行".encode("gb18030")
    root = bytes([0x18, 0x20, 0x80, 0]) + len(comment).to_bytes(4, "little") + comment
    assert data[HEADER_SIZE:HEADER_SIZE + len(root)] == root
    # h2e2: from h2 = x 7, y 2 -> 72 + 0x18; to e2 = 42 + 0x20; no following move.
    assert data[HEADER_SIZE + len(root):] == bytes([72 + 0x18, 42 + 0x20, 0, 0, 0, 0, 0, 0])
    assert parse_xqf(data) == record


def node(source: str, target: str, flags: int, comment: bytes = b"") -> bytes:
    def code(name: str) -> int:
        return (ord(name[0]) - 97) * 10 + int(name[1])
    return bytes([code(source) + 0x18, code(target) + 0x20, flags, 0]) + \
        len(comment).to_bytes(4, "little") + comment


def header(fen: str = STARTING_FEN, version: int = 10) -> bytearray:
    data = bytearray(write_xqf(Record(fen))[:HEADER_SIZE])
    data[2] = version
    return data


def test_xqf_variations_are_skipped():
    # 1. 炮二平五 (1. 兵七进一 卒7进1 2. 马八进七) 马8进7 (1... 炮8平5) 2. 马二进三 (2. 车一平二?)
    tree = (node("a0", "a0", 0xF0, "开局".encode("gb18030"))
            + node("h2", "e2", 0xFF)            # next: h9g7; a variation: c3c4
            + node("h9", "g7", 0xFF, b"x")      # next: h0g2; a variation: h7e7
            + node("h0", "g2", 0x0F)            # no next; a variation: i0h0
            + node("i0", "h0", 0x00)
            + node("h7", "e7", 0x00)
            + node("c3", "c4", 0xF0)
            + node("c6", "c5", 0xF0)
            + node("b0", "c2", 0x00))
    record = parse_xqf(bytes(header()) + tree)
    assert record.moves == ["h2e2", "h9g7", "h0g2"]
    assert record.tags["comment"] == "开局"
    # Without the last record, the variation's second move is missing: truncated.
    with pytest.raises(FormatError, match=r"byte 1093: truncated move record: 0 of its 8"):
        parse_xqf(bytes(header()) + tree[:-8])


def test_xqf_header_only_and_side_byte():
    data = header("3k5/9/9/9/9/9/9/9/4R4/4K4 b")
    assert data[50] == 1
    assert parse_xqf(bytes(data)).fen == "3k5/9/9/9/9/9/9/9/4R4/4K4 b - - 0 1"
    data[50] = 7
    with pytest.raises(FormatError, match=r"byte 50: side to move byte is 7"):
        parse_xqf(bytes(data))


def test_xqf_side_to_move_follows_the_first_move():
    # Byte 50 says Red, but the first move is Black's: the move wins.
    data = bytes(header("3k5/9/9/9/9/9/9/9/4R4/4K4 w")) + node("a0", "a0", 0x80) + \
        node("d9", "d8", 0)
    assert parse_xqf(data).fen.split()[1] == "b"


@pytest.mark.parametrize("make, offset, message", [
    (lambda d: d[:500], 500, "truncated header: 500 of its 1024 bytes"),
    (lambda d: d[:1], 0, "not an XQF file"),
    (lambda d: b"PK" + d[2:], 0, "not an XQF file: it starts b'PK'"),
    (lambda d: d[:1024 + 5], 1024, "truncated move record: 5 of its 8 bytes"),
    (lambda d: d[:1024 + 8 + 8 + 3], 1040, "truncated move record: 3 of its 8 bytes"),
    (lambda d: d[:1028] + (1000).to_bytes(4, "little") + d[1032:], 1028,
     "comment length 1000 runs past the end"),
    (lambda d: d + b"\x01\x02", 1048, "2 bytes after the last move record"),
    (lambda d: d[:1040] + bytes([0x18 + 99]) + d[1041:], 1040, "not points of the board"),
    (lambda d: d[:1040] + bytes([0x18 + 22]) + d[1041:], 1040, "illegal move c2g7 (ply 2)"),
    (lambda d: d[:17] + bytes([0]) + d[18:], 17, "piece 1 (byte 0x00): the Red horse is put "
                                                 "on a0, where the Red rook (slot 0)"),
    (lambda d: d[:20] + bytes([0xFF]) + d[21:], 20, "the Red king is not on the board"),
    (lambda d: d[:18] + bytes([44]) + d[19:], 18, "the Red elephant cannot stand on e4"),
    (lambda d: d[:80] + bytes([64]) + d[81:], 80, "claims 64 bytes; its field holds 63"),
    (lambda d: d[:80] + bytes([2, 0x81, 0x20]) + d[83:], 81, "the title is not GB18030"),
])
def test_xqf_rejects(make, offset, message):
    data = write_xqf(Record(STARTING_FEN, ["h2e2", "h9g7"], {"title": "t"}))
    with pytest.raises(FormatError) as caught:
        parse_xqf(make(data), "bad.xqf")
    error = caught.value
    assert (error.path, error.offset, error.line) == ("bad.xqf", offset, None), str(error)
    assert message in str(error) and str(error).startswith(f"bad.xqf, byte {offset}: "), \
        str(error)


@pytest.mark.parametrize("version", [11, 12, 16, 18])
def test_xqf_rejects_encrypted_versions(version):
    data = header(version=version)
    data[3:16] = bytes(range(1, 14))            # key fields, as an encrypted file has them
    with pytest.raises(FormatError) as caught:
        parse_xqf(bytes(data) + bytes(8), "new.xqf")
    assert str(caught.value) == (f"new.xqf, byte 2: encrypted XQF (version {version}) is not "
                                 "supported; only versions 10 and lower (unencrypted) are read")


def test_xqf_writer_checks_fields():
    with pytest.raises(FormatError, match="takes 20 bytes in GB18030; XQF holds 15"):
        write_xqf(Record(STARTING_FEN, [], {"red": "一二三四五六七八九十"}))
    with pytest.raises(FormatError, match="game type '排局'"):
        write_xqf(Record(STARTING_FEN, [], {"type": "排局"}))


# -- files ----------------------------------------------------------------------------------------

def test_read_and_write_files(tmp_path, games, shiqing):
    positions = [Record(r.fen, [], r.tags) for r in games]
    cases = [("games.pgn", games), ("games.dhtml", games), ("games.dhtmlxq", games),
             ("positions.fen", positions), ("positions.epd", positions[:3]),
             ("positions.txt", shiqing[:5])]
    for name, records in cases:
        write(tmp_path / name, records)
        assert read(tmp_path / name) == records, name
    write(tmp_path / "wxf.pgn", games[:3], notation="wxf")
    assert read(tmp_path / "wxf.pgn") == games[:3]
    write(tmp_path / "one.xqf", games[5:6])
    assert read(tmp_path / "one.xqf") == [xqf_subset(games[5])]
    # A .txt file holding DhtmlXQ is read as DhtmlXQ.
    (tmp_path / "dpxq.txt").write_text(write_dhtmlxq(games[1]), encoding="utf-8")
    assert read(tmp_path / "dpxq.txt") == [games[1]]
    assert sorted(os.listdir(tmp_path)) == sorted(
        [name for name, _ in cases] + ["wxf.pgn", "one.xqf", "dpxq.txt"])   # no temp files


def test_read_gb18030_text_and_errors_name_the_file(tmp_path):
    path = tmp_path / "gb.pgn"
    path.write_bytes('[Event "象棋"]\n1. 炮二平五 馬８進７ *\n'.encode("gb18030"))
    assert read(path) == [Record(STARTING_FEN, ["h2e2", "h9g7"], {"event": "象棋", "result": "*"})]
    path.write_bytes("1. 炮二平五 马2进4\n".encode())
    with pytest.raises(FormatError) as caught:
        read(path)
    assert caught.value.path == str(path) and caught.value.line == 1
    assert str(caught.value).startswith(f"{path}, line 1: illegal move '马2进4' at 1...")
    with pytest.raises(FormatError, match="cannot read"):
        read(tmp_path / "missing.pgn")


def test_write_failures_leave_nothing_behind(tmp_path):
    target = tmp_path / "keep.xqf"
    write(target, [Record()])
    before = target.read_bytes()
    with pytest.raises(FormatError) as caught:
        write(target, [Record(), Record()])
    assert caught.value.path == str(target) and "one record, not 2" in str(caught.value)
    with pytest.raises(FormatError, match=r"keep\.xqf: record move 1 'a0a5'"):
        write(target, [Record(STARTING_FEN, ["a0a5"])])
    with pytest.raises(FormatError, match="unknown file type"):
        write(tmp_path / "x.doc", [Record()])
    assert target.read_bytes() == before
    assert os.listdir(tmp_path) == ["keep.xqf"]


def test_write_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    target = tmp_path / "list.fen"
    write(target, [Record()])
    os.chmod(target, 0o640)
    write(target, [Record(), Record()])
    assert (target.stat().st_mode & 0o777) == 0o640
    assert len(read(target)) == 2


# -- real files from other projects (tests/data/external, see SOURCES.md there) -------------------

EXTERNAL = DATA / "external"


def test_real_pgn_with_handicap_setup_and_comments():
    # 许银川 gives 聂卫平 nine pieces (1999): XQF tools' PGN, CRLF, comments between moves.
    [game] = read(EXTERNAL / "eleeye_sample.pgn")
    assert game.fen == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/9/1C5C1/9/RN2K2NR w - - 0 1"
    assert len(game.moves) == 75
    assert game.moves[:4] == ["b2e2", "h7e7", "e2e7", "g9e7"]      # 炮八平五 炮８平５ ...
    assert (game.moves[44], game.moves[52]) == ("g8h6", "g2h4")    # 前马退二, 后马进二
    assert game.final_board().fen() == "2R6/5k2C/n8/p1p5p/6b2/6p2/9/9/9/4K4 b - - 0 38"
    assert (game.tags["event"], game.tags["red"], game.tags["black"], game.tags["result"]) == \
        ("许银川让九子对聂棋圣", "许银川", "聂卫平", "1-0")
    assert game.tags["comment"].startswith("象棋让九子原属茶余饭后的娱乐")
    assert "\r" not in game.tags["comment"]
    assert game.tags["comment"].endswith(
        "掉以轻心。 \n\u3000\u3000许银川让去５只兵和双士双相，执红先行。")


def test_real_pgn_with_the_xqbase_footer():
    # Computer championship 2006, round 1: "0-1" then "====", advertising and a URL.
    [game] = read(EXTERNAL / "eleeye_ccgc_01.pgn")
    assert game.fen == STARTING_FEN and len(game.moves) == 26
    assert (game.moves[0], game.moves[-1]) == ("b2e2", "g5g4")
    assert game.final_board().fen() == \
        "2bak1br1/2c1a4/2n3nc1/p2Rp1p1p/2p6/4PNr2/P1P4RP/2N1CC3/9/2BAKAB2 w - - 10 14"
    assert (game.tags["red"], game.tags["black"], game.tags["result"], game.tags["ecco"]) == \
        ("宝岛一号", "相眼竞技", "0-1", "C48")
    assert game.tags["opening"] == "中炮过河车互进七兵对屏风马平炮兑车"
    assert game.tags["redteam"] == ""                                # empty tags are kept


def test_real_pgn_endgame_ends_in_mate():
    [game] = read(EXTERNAL / "cchess_endgame_test.pgn")
    assert game.fen == "3aka3/2c1n4/4bP3/9/4N4/9/9/9/9/4K4 w - - 0 1"
    assert len(game.moves) == 25 and game.moves[-1] == "d6f7"        # 13. 马六进四
    final = game.final_board()
    assert final.fen() == "3akaP2/4n4/b2c1N3/9/9/9/9/9/4K4/9 b - - 25 13"
    assert final.is_checkmate()
    assert game.tags == {"date": "2024-08-26", "red": "RRR", "black": "BBB", "result": "*"}


def test_real_dhtmlxq_record():
    # A 东萍 record from 南山象棋谱, wrapped in [DhtmlXQHTML] and indented.
    [game] = read(EXTERNAL / "cchess_test_ubb.txt")
    assert game.fen == STARTING_FEN and game.line == 2
    assert len(game.moves) == 77 == int(game.tags["length"])
    assert (game.moves[0], game.moves[-1]) == ("h2e2", "e5e4")
    assert game.final_board().fen() == \
        "3nka3/1c3P3/4Ca2b/p7p/6r2/4R4/PCP5P/9/9/2BAKA3 b - - 2 39"
    assert (game.tags["title"], game.tags["event"], game.tags["result"], game.tags["site"]) == \
        ("中炮对左三步虎", "2025年第五届上海杯象棋大师公开赛", "1-0", "上海")
    assert (game.tags["red"], game.tags["black"], game.tags["opening"]) == \
        ("成都 孟辰", "江苏 刘柏宏", "中炮对左三步虎")


def test_real_games_round_trip_through_every_writer(tmp_path):
    games = [read(EXTERNAL / name)[0] for name in
             ("eleeye_sample.pgn", "eleeye_ccgc_01.pgn", "cchess_endgame_test.pgn",
              "cchess_test_ubb.txt")]
    write(tmp_path / "all.pgn", games)
    assert read(tmp_path / "all.pgn") == games
    write(tmp_path / "all.dhtml", games)                 # DhtmlXQ drops empty fields
    assert read(tmp_path / "all.dhtml") == [
        Record(g.fen, g.moves, {k: v for k, v in g.tags.items() if v}) for g in games]
    for number, game in enumerate(games):
        path = tmp_path / f"game{number}.xqf"
        write(path, [Record(game.fen, game.moves, {})])
        assert read(path)[0].final_board().fen().split()[:2] == \
            game.final_board().fen().split()[:2]


def test_errors_in_real_files_are_located(tmp_path):
    text = (EXTERNAL / "eleeye_ccgc_01.pgn").read_text(encoding="utf-8")
    path = tmp_path / "broken.pgn"
    path.write_text(text.replace("3. 车九平八", "3. 帅五进二"), encoding="utf-8", newline="")
    with pytest.raises(FormatError) as caught:
        read(path)
    assert (caught.value.path, caught.value.line) == (str(path), 16)
    assert "'帅五进二' at 3." in str(caught.value)
    text = (EXTERNAL / "cchess_test_ubb.txt").read_text(encoding="utf-8")
    path = tmp_path / "broken.txt"
    path.write_text(text.replace("[DhtmlXQ_movelist]77477062", "[DhtmlXQ_movelist]77477069"),
                    encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read(path)
    assert (caught.value.line, caught.value.offset) == (6, 4)
    assert "illegal move '7069'" in str(caught.value)


def test_dhtmlxq_wrappers_of_the_viewers():
    frame = (f"<iframe name='NoFile_[DhtmlXQiFrame][DhtmlXQ_binit]{START_BINIT}[/DhtmlXQ_binit]"
             "[DhtmlXQ_movelist]7747[/DhtmlXQ_movelist][/DhtmlXQiFrame]'></iframe>")
    [record] = parse_dhtmlxq(frame)
    assert record.moves == ["h2e2"]
    with pytest.raises(FormatError, match=r"line 2: \[DhtmlXQHTML\] is never closed by "
                                          r"\[/DhtmlXQHTML\]"):
        parse_dhtmlxq("\n[DhtmlXQHTML]\n[DhtmlXQ_title]x[/DhtmlXQ_title]\n[/DhtmlXQ]", "x.txt")


def test_pgn_trailer_after_a_result():
    text = ('[Game "Chinese Chess"]\n1. h2e2 h9g7 1-0\n=====\n欢迎访问 (广告) 1-0\n'
            '[Game "Chinese Chess"]\n1. b2e2 *\n\n1. h2e2 *\n')
    games = parse_pgn(text)
    assert [g.moves for g in games] == [["h2e2", "h9g7"], ["b2e2"], ["h2e2"]]
    assert [g.line for g in games] == [1, 5, 8]
