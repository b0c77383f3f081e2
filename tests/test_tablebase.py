"""Tablebases: material names, index counts, builds that verify themselves, the probing API,
agreement with a plain exhaustive search, and rejection of damaged files."""
import array
import itertools
import os
import random
import shutil
import struct
import zlib

import pytest

from tablebases._builder import narrow_codes, outcome_bitmaps, retrograde
from tablebases.build import (
    METRICS,
    BuildError,
    _build_metric,
    _load_for_captures,
    _Loaded,
    _sub_specs,
    _zeroed_bitmaps,
    _zeroed_rules,
    build,
    indexer_for,
    verify_file,
)
from tablebases.format import CorruptTableError, TableFile, read_header, table_path
from tablebases.material import Material, MaterialError
from tablebases.probe import MissingTableError, describe, open_tablebase
from tablebases.values import ILLEGAL
from xiangqi import BLACK, RED, Board
from xiangqi.fen import placement_fen
from xiangqi.pieces import ADVISOR, ELEPHANT, KING, Piece, legal_points

SMALL = ["KRK", "KNK", "KCK", "KPK", "KRKA", "KNKA", "KRKAA", "KCKA", "KPKA", "KNKB", "KRKN"]


@pytest.fixture(scope="session")
def table_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tables")
    build(SMALL, directory, threads=2, log=lambda line: None)
    return directory


# -- material -------------------------------------------------------------------------------

def test_material_parsing_and_canonical_colours():
    assert str(Material.parse("KRKAABB")) == "KRKAABB"
    assert str(Material.parse("kbbaakr")) == "KAABBKR"       # letters sorted K R N C P A B
    assert str(Material.parse("KHKE")) == "KNKB"               # H and E read as N and B
    assert str(Material.parse("KAABBKR").canonical()) == "KRKAABB"
    assert Material.parse("KRKR").canonical() == Material.parse("KRKR")
    assert [str(m) for m in Material.parse("KRKAB").captures()] == ["KKAB", "KRKA", "KRKB"]


@pytest.mark.parametrize("text", ["", "RK", "KRR", "KXK", "KRRRK", "KAAAK", "KPPPPPPK"])
def test_material_errors(text):
    with pytest.raises(MaterialError):
        Material.parse(text)


def test_build_order_puts_sub_tables_first():
    order = [str(m) for m in Material.parse("KRKA").build_order()]
    assert order[-1] == "KRKA"
    assert set(order) == {"KK", "KAK", "KRK", "KRKA"}
    assert order.index("KK") < order.index("KRK") < order.index("KRKA")


# -- index counts ---------------------------------------------------------------------------

def _joint_placements(pieces):
    """Non-overlapping placements of pieces, identical ones counted once (plain enumeration)."""
    seen = set()
    for points in itertools.product(*(sorted(legal_points(p)) for p in pieces)):
        if len(set(points)) == len(points):
            seen.add(frozenset(zip(pieces, points)) if len(set(pieces)) == len(pieces)
                     else tuple(sorted((p.piece_type, s) for p, s in zip(pieces, points))))
    return len(seen)


def test_palace_and_elephant_state_counts():
    king, adv, ele = Piece(KING, BLACK), Piece(ADVISOR, BLACK), Piece(ELEPHANT, BLACK)
    assert _joint_placements([king, adv, adv]) == 70
    palace_states = sum(_joint_placements([king] + [adv] * n) for n in range(3))
    assert palace_states == 119
    elephant_states = sum(len(list(itertools.combinations(legal_points(ele), n))) for n in range(3))
    assert elephant_states == 29


def test_king_pairs():
    pairs = list(itertools.product(sorted(legal_points(Piece(KING, RED))),
                                   sorted(legal_points(Piece(KING, BLACK)))))
    assert len(pairs) == 81
    open_facing = [(r, b) for r, b in pairs if r % 9 == b % 9]  # nothing between on an empty board
    assert len(pairs) - len(open_facing) == 54


@pytest.mark.parametrize("black,count", [
    ("K", 9), ("KA", 40), ("KAA", 70), ("KB", 62), ("KBB", 183), ("KAB", 275),
    ("KAAB", 480), ("KABB", 810), ("KAABB", 1410)])
def test_defender_group_sizes(black, count):
    indexer = indexer_for(Material("K", black))
    assert indexer.group_counts[1] == count


def test_attacker_groups_and_mirror_reduction():
    # Red's king group is reduced by the mirror: 6 of 9 king points (files d and e).
    assert indexer_for(Material("KR", "K")).group_counts == [6, 9, 90]
    assert indexer_for(Material("KPP", "K")).group_counts == [6, 9, 55 * 54 // 2]
    assert indexer_for(Material("KRR", "KAABB")).size == 6 * 1410 * (90 * 89 // 2)


def test_index_round_trip_and_mirror():
    indexer = indexer_for(Material("KR", "KA"))
    rng = random.Random(3)
    for _ in range(300):
        index = rng.randrange(indexer.size)
        codes = indexer.placement(index)
        if codes is None:
            continue
        board = Board(None)
        board._load(codes, RED, 0, 1)
        assert indexer.index_of(board) == index
        mirrored = board.mirror()
        twin = indexer.index_of(mirrored)
        assert indexer.placement(twin) in (codes, mirrored._codes() and list(mirrored._codes()))


def test_the_builders_move_tables_give_the_indexes_of_the_moved_boards():
    # Groups of several pieces (Black's KAABB, the two rooks) take a quiet move's new entry
    # from a table in the builder's passes; the re-check computes the keys.  Both must give
    # the index of the board with the piece moved, the mirror reduction of Red's group too.
    indexer = indexer_for(Material("KRR", "KAABB"))
    rng = random.Random(21)
    checked = 0
    while checked < 3000:
        index = rng.randrange(indexer.size)
        codes = indexer.placement(index)
        if codes is None:
            continue
        origin = rng.choice([point for point in range(90) if codes[point]])
        target = rng.choice([point for point in range(90) if not codes[point]])
        moved = list(codes)
        moved[target], moved[origin] = moved[origin], 0
        board = Board(None)
        board._load(moved, RED, 0, 1)
        expected = indexer.index_of(board)
        by_table = indexer.quiet_move_index(index, origin, target)
        by_key = indexer.quiet_move_index(index, origin, target, tables=False)
        assert by_table == expected, (index, origin, target)
        assert by_key in (expected, -2), (index, origin, target)
        checked += 1


def test_the_key_path_leaves_only_reflecting_moves_of_reds_defenders_to_the_full_encode():
    # The re-check's quiet indexes (no move tables): a move of Red's defender group whose new
    # placement is canonical is indexed there too; only one that reflects the position (its
    # index holds the mirror image) is left to the full encode (-2).
    indexer = indexer_for(Material("KAAR", "KAB"))
    rng = random.Random(24)
    direct = reflected = 0
    while direct < 300 or reflected < 30:
        index = rng.randrange(indexer.size)
        codes = indexer.placement(index)
        if codes is None:
            continue
        origin = rng.choice([point for point in range(90) if codes[point] in (KING, ADVISOR)])
        targets = [point for point in legal_points(Piece.from_code(codes[origin]))
                   if not codes[point]]
        if not targets:
            continue
        target = rng.choice(targets)
        moved = list(codes)
        moved[target], moved[origin] = moved[origin], 0
        board = Board(None)
        board._load(moved, RED, 0, 1)
        expected = indexer.index_of(board)
        by_key = indexer.quiet_move_index(index, origin, target, tables=False)
        if by_key == -2:
            reflected += 1
            assert indexer.placement(expected) == list(board.mirror()._codes())
        else:
            direct += 1
            assert by_key == expected, (index, origin, target)


def test_a_board_decoded_group_by_group_is_the_board_decoded_in_full():
    # The builder's loops move only the groups whose entry changed since the board's last
    # decode: the same pieces, in the same piece-list order (the move order), overlaps found
    # alike, over neighbouring indexes (one group changing) and jumps (several).
    indexer = indexer_for(Material("KRN", "KAABB"))
    rng = random.Random(2024)
    indexes = []
    while len(indexes) < 4000:
        start = rng.randrange(indexer.size)
        indexes.extend(range(start, min(indexer.size, start + rng.randrange(1, 40))))
    full = indexer.decoded_in_turn(indexes, incremental=False)
    assert indexer.decoded_in_turn(indexes) == full
    assert None in full and any(board is not None for board in full)


# -- builds ---------------------------------------------------------------------------------

@pytest.mark.parametrize("material", SMALL)
def test_every_built_table_verifies(table_dir, material):
    assert verify_file(material, table_dir, threads=2) == {"dtm": 0, "chase marks": 0, "dtc": 0,
                                                           "dtc60": 0, "rule rounds": 0}


def test_known_verdicts(table_dir):
    headers = {m: open_tablebase(table_dir).header(m) for m in ("KRKAA", "KNKA", "KRK", "KCK")}
    # 车对双士 and 马对单士 are sure wins: every Red-to-move position of K R vs K A A wins.
    assert headers["KRKAA"].counts["red"]["draws"] == 0
    assert headers["KRK"].counts["red"]["draws"] == 0
    # A lone cannon cannot mate.
    assert headers["KCK"].counts["red"]["wins"] == 0
    # K N vs K A: won except where the horse is pinned on the king's file and lost at once.
    knka = headers["KNKA"].counts["red"]
    assert knka["wins"] > 100 * knka["draws"] > 0


def test_results_do_not_depend_on_thread_count(table_dir):
    material = Material.parse("KNKA")
    loaded = {}
    for sub in material.build_order()[:-1]:
        table = TableFile(table_path(table_dir, str(sub)))
        loaded[str(sub)] = _Loaded(sub, indexer_for(sub), {
            f"{m}/{s}": table.load(m, i) for m in METRICS for i, s in enumerate(("red", "black"))})
        table.close()
    results = []
    for threads in (1, 2):
        indexer = indexer_for(material)
        red = array.array("H", bytes(2 * indexer.size))
        black = array.array("H", bytes(2 * indexer.size))
        retrograde(indexer, red, black, _sub_specs(material, loaded, "dtm"), threads=threads)
        results.append((red, black))
    assert results[0] == results[1]
    stored = TableFile(table_path(table_dir, "KNKA"))
    assert (stored.load("dtm", 0), stored.load("dtm", 1)) == results[0]


# -- agreement with a plain search ----------------------------------------------------------

def _search(board, depth):
    """Exact negamax: (wdl, plies) if decided within ``depth`` plies, else None.

    A capture reaching K vs K (or K + defenders) is a draw; captures of other pieces are
    not expected in the tables this is used on."""
    moves = board.legal_moves
    if not moves:
        return (-2, 0)
    if depth == 0:
        return None
    best_win = None
    all_lose, longest = True, 0
    for move in moves:
        if board.is_capture(move):
            board.push_unchecked(move)
            drawn = not any(p.piece_type in (4, 5, 6, 7) for p in board.piece_map().values())
            board.pop()
            if drawn:
                all_lose = False
                continue
        board.push_unchecked(move)
        result = _search(board, depth - 1)
        board.pop()
        if result is None:
            all_lose = False
            continue
        wdl, plies = result
        if wdl < 0:
            best_win = plies + 1 if best_win is None else min(best_win, plies + 1)
        else:
            longest = max(longest, plies + 1)
    if best_win is not None:
        return (2, best_win)
    if all_lose:
        return (-2, longest)
    return None


@pytest.mark.parametrize("material,max_plies", [("KRK", 5), ("KNK", 5), ("KPK", 5)])
def test_dtm_matches_exhaustive_search(table_dir, material, max_plies):
    tablebase = open_tablebase(table_dir)
    indexer = indexer_for(Material.parse(material))
    rng = random.Random(11)
    checked = 0
    while checked < 40:
        codes = indexer.placement(rng.randrange(indexer.size))
        if codes is None:
            continue
        fen = f"{placement_fen(codes)} {'w' if rng.random() < 0.5 else 'b'}"
        try:
            board = Board(fen)
        except ValueError:
            continue
        value = tablebase.probe(board)
        if value.wdl != 0 and value.dtm > max_plies:
            continue
        result = _search(board, max_plies)
        if value.wdl == 0:
            assert result is None, fen
        else:
            assert result == (value.wdl, value.dtm), fen
        checked += 1
    tablebase.close()


# -- probing --------------------------------------------------------------------------------

def test_probe_values_and_ranked_moves(table_dir):
    tablebase = open_tablebase(table_dir)
    board = Board("3k5/9/9/9/9/9/9/9/9/R3K4 w")      # Ra0-d0 mates, Ra0-a8 stalemates
    assert tablebase.probe_wdl(board) == 2
    assert tablebase.probe_dtm(board) == 1
    ranked = tablebase.ranked_moves(board)
    assert [r.move.iccs() for r in ranked[:2]] == ["a0a8", "a0d0"]
    assert ranked[0].value.dtm == ranked[1].value.dtm == 1 and ranked[2].value.dtm == 3
    dtms = [r.value.dtm for r in ranked if r.value.wdl > 0]
    assert dtms == sorted(dtms)
    board.push_iccs("a0d0")
    assert tablebase.probe_wdl(board) == -2 and tablebase.probe_dtm(board) == 0
    assert board.is_checkmate()
    tablebase.close()


def test_probe_colour_flipped_material(table_dir):
    tablebase = open_tablebase(table_dir)
    red_rook = Board("3k5/9/9/9/9/9/9/9/9/R3K4 w")
    black_rook = Board("r3k4/9/9/9/9/9/9/9/9/3K5 b")  # the same position with colours swapped
    assert tablebase.probe(black_rook) == tablebase.probe(red_rook)
    tablebase.close()


def test_best_line_ends_in_mate(table_dir):
    tablebase = open_tablebase(table_dir)
    board = Board("9/9/3ak4/9/9/9/9/9/9/N2K5 w")
    value = tablebase.probe(board)
    line = tablebase.best_line(board)
    assert len(line) == value.dtm
    for move in line:
        board.push(move)
    assert board.is_checkmate() or board.is_stalemate()
    tablebase.close()


def test_natural_limit_curses_slow_wins(table_dir):
    tablebase = open_tablebase(table_dir)
    fresh = Board("9/9/3ak4/9/9/9/9/9/9/N2K5 w - - 0 1")
    value = tablebase.probe(fresh)
    assert value.wdl == 2 and value.dtc60 == value.dtc and value.dtc > 20
    # With 100 plies already played without a capture, 20 remain: too few to convert.
    late = Board("9/9/3ak4/9/9/9/9/9/9/N2K5 w - - 100 60")
    cursed = tablebase.probe(late)
    assert cursed.wdl == 1 and cursed.theoretical_wdl == 2 and cursed.dtm == value.dtm
    assert "60-move rule" in describe(cursed, late.turn)
    late.push_iccs("a0b2")
    assert tablebase.probe_wdl(late) == -1          # Black's loss is blessed
    tablebase.close()


def test_missing_table(table_dir):
    tablebase = open_tablebase(table_dir)
    board = Board("3k5/9/9/9/9/9/9/9/9/RR2K4 w")
    with pytest.raises(MissingTableError, match="KRRK"):
        tablebase.probe_wdl(board)
    assert tablebase.get_wdl(board, default="n/a") == "n/a"
    assert tablebase.get_dtm(board) is None
    tablebase.close()


# -- damaged files --------------------------------------------------------------------------

def _copy_table(table_dir, tmp_path, material="KRKA"):
    for sub in Material.parse(material).build_order():
        shutil.copy(table_path(table_dir, str(sub)), tmp_path)
    return table_path(tmp_path, material)


def test_flipped_byte_in_a_block_is_detected(table_dir, tmp_path):
    path = _copy_table(table_dir, tmp_path)
    header = TableFile(path).header
    offset = header.blocks["dtm/black"][0][0] + 5
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptTableError) as info:
        TableFile(path).load("dtm", 1)
    assert str(path) in str(info.value) and f"offset {offset - 5}" in str(info.value)
    with pytest.raises(CorruptTableError):
        verify_file("KRKA", tmp_path)


def test_truncated_file_is_detected(table_dir, tmp_path):
    path = _copy_table(table_dir, tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:-10])
    with pytest.raises(CorruptTableError, match="truncated"):
        table = TableFile(path)
        last = max(table.header.blocks, key=lambda name: table.header.blocks[name][-1][0])
        table.load_array(last)
    path.write_bytes(data[:30])
    with pytest.raises(CorruptTableError, match="offset"):
        TableFile(path)


def test_bad_magic_and_header(table_dir, tmp_path):
    path = _copy_table(table_dir, tmp_path)
    data = bytearray(path.read_bytes())
    path.write_bytes(b"XXXX" + bytes(data[4:]))
    with pytest.raises(CorruptTableError, match="magic"):
        TableFile(path)
    data[20] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptTableError, match="header checksum"):
        TableFile(path)


def test_no_illegal_code_for_legal_positions(table_dir):
    table = TableFile(table_path(table_dir, "KRKA"))
    indexer = indexer_for(Material.parse("KRKA"))
    red = table.load("dtm", 0)
    for index in range(0, indexer.size, 97):
        codes = indexer.placement(index)
        if codes is None:
            assert red[index] == ILLEGAL
            continue
        try:
            Board(placement_fen(codes) + " w")
        except ValueError:
            assert red[index] == ILLEGAL
        else:
            assert red[index] != ILLEGAL
    table.close()


# -- perpetual check (长将) ------------------------------------------------------------------

def test_perpetual_check_rule_in_rook_against_horse(table_dir):
    """In K R vs K N the horse can often hold by checking forever; the rule makes that a loss.

    Compare with a plain build that ignores the rule: only its draws may change, every
    changed position is a Black-to-move loss or follows from one, and at a position marked
    'must stop checking' every Black move that kept the plain draw was a check."""
    material = Material.parse("KRKN")
    table = TableFile(table_path(table_dir, "KRKN"))
    assert table.header.extra["perpetual_check_positions"] > 0
    assert "长将" in table.header.rules["perpetual_check"]
    ruled = [table.load("dtm", 0), table.load("dtm", 1)]
    checker_black = table.load_array("rules/checker_black")
    table.close()
    loaded = {}
    for sub in material.build_order()[:-1]:
        sub_table = TableFile(table_path(table_dir, str(sub)))
        loaded[str(sub)] = _Loaded(sub, indexer_for(sub), {
            f"{m}/{s}": sub_table.load(m, i)
            for m in METRICS for i, s in enumerate(("red", "black"))})
        sub_table.close()
    indexer = indexer_for(material)
    plain = [array.array("H", bytes(2 * indexer.size)) for _ in range(2)]
    retrograde(indexer, plain[0], plain[1], _sub_specs(material, loaded, "dtm"))
    changed = 0
    for side in (0, 1):
        for index in range(indexer.size):
            before, after = plain[side][index], ruled[side][index]
            if before != 0:
                # decided before: the winner stays the winner
                assert after != 0 and (before - 1) % 2 == (after - 1) % 2
            elif after != 0:
                changed += 1
    assert changed > 0
    tablebase = open_tablebase(table_dir)
    checked = 0
    for index in range(indexer.size):
        if not (checker_black[index >> 4] >> (index & 15)) & 1:
            continue
        board = Board(None)
        board._load(indexer.placement(index), BLACK, 0, 1)
        value = tablebase.probe(board)
        assert value.wdl == -2 and value.must_stop_checking
        assert "长将" in describe(value, BLACK)
        for move in board.legal_moves:
            if board.is_capture(move):
                continue
            gives_check = board.gives_check(move)
            board.push_unchecked(move)
            plain_code = plain[RED][indexer.index_of(board)]
            board.pop()
            assert gives_check or plain_code != 0, (board.fen(), move)
        checked += 1
        if checked >= 25:
            break
    assert checked == 25
    tablebase.close()


def test_dtms_first_sweep_zeros_spare_the_later_metrics_sweeps(table_dir):
    """Where DTM's first sweep left code 0, DTC's first sweep is skipped (its hints): K R vs
    K N, with its perpetual-check sets, gives every DTC code the build without that hint
    gives, and the hint covers entries that are no DTM draws."""
    material = Material.parse("KRKN")
    indexer = indexer_for(material)
    rules = _zeroed_rules(indexer.size)
    zeros = _zeroed_bitmaps(indexer.size, 2)
    red, black, _, _ = _build_metric(material, indexer, table_dir, "dtm", 1, rules, None,
                                     lambda line: None, None, sweep_zeros=zeros)
    assert sum(bin(word).count("1") for word in rules.checker_black) > 0
    draws_only = _zeroed_bitmaps(indexer.size)
    hinted = [*zeros, *_zeroed_bitmaps(indexer.size, 2)]
    for hints in (draws_only, hinted):
        outcome_bitmaps(red, hints[0], hints[2])
        outcome_bitmaps(black, hints[1], hints[3])
    swept = [sum(bin(word).count("1") for word in bits) for bits in zeros]
    draws = [sum(bin(word).count("1") for word in bits) for bits in draws_only[:2]]
    assert all(zero > draw for zero, draw in zip(swept, draws))
    dtc = [_build_metric(material, indexer, table_dir, "dtc", 1, rules, hints,
                         lambda line: None, None)[:2] for hints in (draws_only, hinted)]
    assert dtc[0] == dtc[1]
    table = TableFile(table_path(table_dir, "KRKN"))
    assert list(dtc[1]) == [table.load("dtc", 0), table.load("dtc", 1)]
    table.close()


def test_dtm_sub_tables_are_read_a_byte_an_entry(table_dir):
    """DTM's codes of a sub-table, as the builder reads them after a capture, take a byte an
    entry: the same codes, ILLEGAL as 255; a code beyond a byte's range is refused, so such a
    table is read in full."""
    table = TableFile(table_path(table_dir, "KRKA"))
    for side in (0, 1):
        narrow = _load_for_captures(table, "dtm", side, table.header.size)
        assert memoryview(narrow).format == "B"
        codes = table.load("dtm", side)
        assert ILLEGAL in codes and max(code for code in codes if code != ILLEGAL) > 1
        assert list(narrow) == [255 if code == ILLEGAL else code for code in codes]
    table.close()
    assert not narrow_codes(array.array("H", [0, 255]), bytearray(2))


def test_the_line_of_a_perpetual_checker_obeys_the_rule(table_dir):
    """Black holds K R vs K N only by checking for ever, so the rule makes him stop: the
    value (mate in 12 plies) follows from his moves without those checks.  The check 马8进7
    leads to a position the table values at 13 plies from mate (14 counted from here), but
    it is not his to play; a line that played it went round the perpetual check for ever
    (1,000 plies before this was fixed)."""
    tablebase = open_tablebase(table_dir)
    board = Board("4k4/9/9/9/9/9/9/1n1K5/9/3R5 b")
    value = tablebase.probe(board)
    assert value.must_stop_checking and value.dtm == 12
    forbidden = tablebase.forbidden_moves(board)
    check = board.parse_iccs("b2c4")
    assert check in forbidden
    assert all(board.gives_check(move) and not board.is_capture(move) for move in forbidden)
    board.push(check)
    assert tablebase.probe(board).dtm == 13
    board.pop()
    ranked = tablebase.ranked_moves(board)
    flags = [item.forbidden for item in ranked]
    assert flags == sorted(flags) and sum(flags) == len(forbidden)    # forbidden ones last
    assert ranked[0].value.dtm == value.dtm
    line = tablebase.best_line(board)
    assert len(line) == value.dtm
    for move in line:
        board.push(move)
    assert board.is_stalemate()             # 困毙: no move, and a loss in Xiangqi
    assert tablebase.forbidden_moves(Board("9/9/3ak4/9/9/9/9/9/9/N2K5 w")) == []
    tablebase.close()


def test_table_files_get_ordinary_permissions(table_dir):
    import os
    umask = os.umask(0)
    os.umask(umask)
    mode = table_path(table_dir, "KRK").stat().st_mode & 0o777
    assert mode == 0o666 & ~umask


@pytest.mark.parametrize("material", SMALL + ["KRNK"])
def test_metrics_agree_on_who_wins(table_dir, tmp_path, material):
    """DTM and DTC give every position the same winner; DTC60 the same or a draw (cursed)."""
    if material == "KRNK":          # two attackers against a bare king: captures both ways
        build(["KRNK"], table_dir, log=lambda line: None)
    table = TableFile(table_path(table_dir, material))

    def winner(code):
        return None if code in (0, ILLEGAL) else (code - 1) % 2

    for side in (0, 1):
        dtm, dtc, dtc60 = (table.load(m, side) for m in ("dtm", "dtc", "dtc60"))
        for a, b, c in zip(dtm, dtc, dtc60):
            assert (a == ILLEGAL) == (b == ILLEGAL) == (c == ILLEGAL)
            assert winner(a) == winner(b)
            assert winner(c) in (winner(a), None)
    table.close()


def test_a_material_too_large_to_index_is_refused_at_once(tmp_path):
    # The full start position: the index would pass 2^62 positions; refuse before listing
    # its thousands of sub-materials.
    import time
    start = time.perf_counter()
    with pytest.raises(BuildError,
                       match="too many placements|more positions than a table can index|GiB"):
        build("KAABBNNRRCCPPPPPKAABBNNRRCCPPPPP", tmp_path, log=lambda line: None)
    assert time.perf_counter() - start < 30
    assert list(tmp_path.iterdir()) == []


def test_chase_rule_marks(table_dir):
    """Draws the chase rule could change are marked where both sides have attacking pieces
    (K R against K N); they are draws, the re-check re-derives them, and the probe says so."""
    from tablebases.build import _load_sub_tables, chase_marks
    from tablebases.stats import table_stats

    stats = table_stats("KRKN", table_dir)
    assert (stats[0].chase_marked, stats[1].chase_marked) == (18, 183)
    assert stats[0].chase_marked <= stats[0].draws and stats[1].chase_marked <= stats[1].draws
    assert table_stats("KRKA", table_dir)[0].chase_marked == 0     # Black cannot chase
    assert verify_file("KRKN", table_dir)["chase marks"] == 0

    material = Material.parse("KRKN")
    table = TableFile(table_path(table_dir, "KRKN"))
    dtm = [table.load("dtm", side) for side in (0, 1)]
    stored = [table.load_array(f"rules/chase_{side}") for side in ("red", "black")]
    table.close()
    indexer = indexer_for(material)
    marks, count = chase_marks(material, indexer, dtm[0], dtm[1],
                               _sub_specs(material, _load_sub_tables(material, table_dir, ("dtm",)),
                                          "dtm"), threads=2)
    assert count == 201
    marked = [i for i in range(indexer.size) if (marks[0][i >> 6] >> (i & 63)) & 1]
    assert all(dtm[0][i] == 0 for i in marked)
    assert all((stored[0][i >> 4] >> (i & 15)) & 1 for i in marked)
    # The probe reports a marked draw as such.
    tablebase = open_tablebase(table_dir)
    fen = f"{placement_fen(indexer.placement(marked[0]))} w - - 0 1"
    value = tablebase.probe(Board(fen))
    assert value.wdl == 0 and value.chase_sensitive
    assert "长捉" in describe(value, 0)
    tablebase.close()


def test_a_table_of_an_older_format_is_rebuilt(tmp_path):
    build("KRK", tmp_path, log=lambda line: None)
    path = table_path(tmp_path, "KRK")
    data = path.read_bytes()
    # Rewrite the header as an older program wrote it (same length, valid checksum).
    (length,) = struct.unpack("<I", data[4:8])
    header = data[8:8 + length].replace(b'"format_version": 4', b'"format_version": 3')
    path.write_bytes(data[:8] + header + struct.pack("<I", zlib.crc32(header))
                     + data[12 + length:])
    with pytest.raises(CorruptTableError, match="format version 3"):
        TableFile(path)
    lines = []
    build("KRK", tmp_path, log=lines.append)
    assert any("older format" in line for line in lines)
    assert TableFile(path).header.format_version == 4


@pytest.mark.slow
def test_dtc60_is_copied_from_dtc_only_where_the_limit_cannot_matter(tmp_path, monkeypatch):
    """A build copies DTC into DTC60 when no sub-table's conversion reaches the natural limit.
    With the limit lowered to 10 plies, KRKAA (DTC up to 15 plies) makes KRKAAB's DTC60 its
    own; every array must match a build that computes DTC60 everywhere."""
    import tablebases.build as build_module

    monkeypatch.setattr(build_module, "NATURAL_LIMIT_PLIES", 10)
    monkeypatch.setitem(build_module.METRIC_RULES, "dtc60", (True, 10))
    build(["KRKAAB"], tmp_path / "copied", log=lambda line: None)
    monkeypatch.setattr(build_module, "_dtc60_is_dtc", lambda material, directory: False)
    build(["KRKAAB"], tmp_path / "computed", log=lambda line: None)
    copied = {}
    for path in sorted((tmp_path / "copied").glob("*.xqtb")):
        ours, full = TableFile(path), TableFile(tmp_path / "computed" / path.name)
        for name in full.header.blocks:
            assert ours.load_array(name) == full.load_array(name), (path.name, name)
        copied[path.stem] = ours.header.extra["dtc60_is_dtc"]
        ours.close(), full.close()
    assert copied["KRK"] and copied["KRKA"] and copied["KRKAA"]
    assert not copied["KRKAAB"]
    table = TableFile(table_path(tmp_path / "copied", "KRKAAB"))
    assert table.load("dtc60", 0) != table.load("dtc", 0)     # the limit changed values here
    table.close()


def test_longest_conversion_and_its_line(table_dir):
    from tablebases.stats import table_stats

    red = table_stats("KRKAA", table_dir)[0]
    assert red.longest_conversion_plies == 15 and red.longest_win_plies == 19
    board = Board(red.longest_conversion_fen)
    tablebase = open_tablebase(table_dir)
    assert tablebase.probe_dtc(board) == 15
    line = tablebase.conversion_line(board)
    assert len(line) == 15
    for move in line[:-1]:
        assert not board.is_capture(move)
        board.push(move)
    last = line[-1]
    assert board.is_capture(last) or (board.push(last) or board.is_checkmate())
    tablebase.close()


def test_scratch_files_of_dead_builds_are_removed(tmp_path):
    import subprocess
    import sys

    from tablebases.format import remove_stale_scratch

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    from tablebases.format import _HOST

    pid = dead.stdout.strip()
    gone = tmp_path / f"KRKA.xqtb.{pid}@{_HOST}.abc123.blocks"
    gone_unnamed = tmp_path / f"KRKA.xqtb.{pid}.abc124.tmp"       # before hosts were named
    alive = tmp_path / f"KRKA.xqtb.{os.getpid()}@{_HOST}.def456.blocks"
    elsewhere = tmp_path / f"KRKA.xqtb.{pid}@another-machine.abc125.blocks"   # shared disk
    other = tmp_path / "notes.txt.123.tmp"
    for path in (gone, gone_unnamed, alive, elsewhere, other):
        path.write_bytes(b"partial")
    build(["KRK"], tmp_path, log=lambda line: None)
    assert not gone.exists() and not gone_unnamed.exists()
    assert alive.exists() and elsewhere.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["KK.xqtb", "KK.xqtb.build.json", "KRK.xqtb", "KRK.xqtb.build.json", alive.name,
         elsewhere.name, other.name])
    assert remove_stale_scratch(tmp_path) == []


@pytest.mark.slow
def test_dtm_outcome_hints_do_not_change_any_value(tmp_path, monkeypatch):
    """DTC and DTC60 skip DTM's draws and verify only DTM's losses as candidates; the
    arrays must equal a build without those hints (KRKN: wins, draws, losses and the
    perpetual-check rule; KCPKA: many draws)."""
    import tablebases.build as build_module

    build(["KRKN", "KCPKA"], tmp_path / "hinted", log=lambda line: None)
    plain = build_module.retrograde
    monkeypatch.setattr(build_module, "retrograde",
                        lambda *args, **kwargs: plain(*args, **{**kwargs, "hints": None}))
    build(["KRKN", "KCPKA"], tmp_path / "plain", log=lambda line: None)
    for name in ("KRKN", "KCPKA", "KNK", "KCPK"):
        hinted = TableFile(table_path(tmp_path / "hinted", name))
        unhinted = TableFile(table_path(tmp_path / "plain", name))
        for array_name in unhinted.header.blocks:
            assert hinted.load_array(array_name) == unhinted.load_array(array_name), array_name
        hinted.close(), unhinted.close()


def test_stats_stored_in_the_header_match_the_arrays(table_dir):
    """`tb stats` reads histograms, counts and the longest wins from the header; they must be
    what the arrays say (KRKN: wins, draws, losses and chase marks on both sides)."""
    from tablebases.stats import _summary_from_arrays, table_stats

    table = TableFile(table_path(table_dir, "KRKN"))
    for side, name in enumerate(("red", "black")):
        fresh = _summary_from_arrays(table, side)
        assert fresh["chase_marked"] > 0 and fresh["dtm_histogram"]
        for key, value in fresh.items():
            assert table.header.counts[name][key] == value, key
    table.close()
    red = table_stats("KRKN", table_dir)[0]
    board = Board(red.longest_win_fen)
    tablebase = open_tablebase(table_dir)
    assert tablebase.probe_dtm(board) == red.longest_win_plies == max(red.dtm_histogram)
    assert tablebase.probe_dtc(Board(red.longest_conversion_fen)) == red.longest_conversion_plies
    tablebase.close()


@pytest.mark.slow
def test_an_interrupted_build_resumes_from_its_finished_metrics(tmp_path, monkeypatch):
    """A large build keeps each re-checked metric; killed during DTC, the next run takes DTM
    from the checkpoint and the table equals an uninterrupted build (KRKN: the DTM phase
    also settles the perpetual-check sets and chase marks, which must come back too)."""
    import tablebases.build as build_module

    monkeypatch.setattr(build_module, "CHECKPOINT_SIZE", 1)
    build(["KRKN"], tmp_path / "plain", log=lambda line: None)
    real = build_module._build_metric
    calls = []
    interrupt = [True]

    def interrupted(material, indexer, directory, metric, *args):
        calls.append((str(material), metric))
        if (str(material), metric) == ("KRKN", "dtc") and interrupt:
            interrupt.clear()               # the first time only: a build killed in DTC
            raise KeyboardInterrupt
        return real(material, indexer, directory, metric, *args)

    monkeypatch.setattr(build_module, "_build_metric", interrupted)
    resumed = tmp_path / "resumed"
    with pytest.raises(KeyboardInterrupt):
        build(["KRKN"], resumed, log=lambda line: None)
    assert not table_path(resumed, "KRKN").exists()
    assert build_module.checkpoint_path(resumed, "KRKN", "dtm").exists()
    assert not list(resumed.glob("*.blocks")) and not list(resumed.glob("*.tmp"))
    lines = []
    calls.clear()
    build(["KRKN"], resumed, log=lines.append)
    assert ("KRKN", "dtm") not in calls and ("KRKN", "dtc") in calls
    assert any("KRKN dtm: resumed from" in line for line in lines)
    assert not list(resumed.glob("*-partial"))
    ours = TableFile(table_path(resumed, "KRKN"))
    theirs = TableFile(table_path(tmp_path / "plain", "KRKN"))
    for name in theirs.header.blocks:
        assert ours.load_array(name) == theirs.load_array(name), name
    assert ours.header.counts == theirs.header.counts
    ours.close(), theirs.close()
    assert verify_file("KRKN", resumed) == {"dtm": 0, "chase marks": 0, "dtc": 0, "dtc60": 0,
                                           "rule rounds": 0}


@pytest.mark.slow
def test_a_verified_build_re_checks_a_checkpoint_of_an_unverified_build(tmp_path, monkeypatch):
    """A ``verify=False`` build stopped in DTC leaves DTM's checkpoint (and its sub-tables
    marked unverified); the verified build that follows rebuilds the sub-tables, takes DTM
    from the checkpoint (checkpoints are kept before the re-check, which comes at the end
    for every metric at once), re-checks it with DTC and DTC60, and no table is marked
    unverified."""
    import tablebases.build as build_module

    monkeypatch.setattr(build_module, "CHECKPOINT_SIZE", 1)
    real = build_module._build_metric
    calls = []
    unverified = [True]

    def stop_in_dtc(material, indexer, directory, metric, *args):
        calls.append((str(material), metric))
        if (str(material), metric) == ("KRKN", "dtc") and unverified:
            raise KeyboardInterrupt         # the unverified build, killed in DTC
        return real(material, indexer, directory, metric, *args)

    monkeypatch.setattr(build_module, "_build_metric", stop_in_dtc)
    with pytest.raises(KeyboardInterrupt):
        build(["KRKN"], tmp_path, log=lambda line: None, verify=False)
    assert build_module.checkpoint_path(tmp_path, "KRKN", "dtm").exists()
    assert read_header(table_path(tmp_path, "KRK")).extra["unverified"] is True
    unverified.clear()
    rechecked = []
    real_recheck = build_module.recheck_all

    def counting_recheck(indexer, metrics, *args, **kwargs):
        rechecked.append(len(metrics))
        return real_recheck(indexer, metrics, *args, **kwargs)

    monkeypatch.setattr(build_module, "recheck_all", counting_recheck)
    lines = []
    calls.clear()
    summary = build(["KRKN"], tmp_path, log=lines.append)
    assert ("KRKN", "dtm") not in calls and ("KRKN", "dtc") in calls
    assert any("KRKN dtm: resumed from" in line for line in lines)
    assert any(line.startswith("KRKN: re-check of dtm, dtc") for line in lines)
    assert rechecked[-1] == (2 if summary["KRKN"]["dtc60_is_dtc"] else 3)
    assert summary["KRKN"]["verified"] and "unverified" not in summary["KRKN"]
    for name in ("KRKN", "KRK", "KNK", "KK"):
        assert "unverified" not in read_header(table_path(tmp_path, name)).extra, name
    assert any(line.startswith("KRK: ") and "built without the re-check" in line
               for line in lines)
    assert verify_file("KRKN", tmp_path) == {"dtm": 0, "chase marks": 0, "dtc": 0, "dtc60": 0,
                                           "rule rounds": 0}


def test_recheck_reports_each_altered_code(table_dir):
    """The re-check decodes each board once for both sides; every altered code must still be
    reported with its side, index, stored code and the code its successors give: a Red win
    made a draw, a Black draw made a loss, an illegal entry made a draw."""
    from tablebases._builder import recheck
    from tablebases.build import METRIC_RULES, RULE_ARRAYS, _load_sub_tables, _u16_to_bitmap

    material = Material.parse("KRKN")
    indexer = indexer_for(material)
    table = TableFile(table_path(table_dir, "KRKN"))
    rules = [_u16_to_bitmap(table.load_array(n), indexer.size) for n in RULE_ARRAYS]
    codes = [table.load_codes("dtm", 0), table.load_codes("dtm", 1)]
    table.close()
    subs = _sub_specs(material, _load_sub_tables(material, table_dir), "dtm")
    resets, limit = METRIC_RULES["dtm"]

    def run():
        return recheck(indexer, codes[0], codes[1], subs, capture_resets=resets,
                       capture_limit=limit, rules=rules, max_report=10**6)

    assert run() == (0, [])
    win = next(i for i in range(indexer.size) if codes[0][i] not in (0, ILLEGAL)
               and codes[0][i] % 2 == 0)
    draw = next(i for i in range(indexer.size // 2, indexer.size) if codes[1][i] == 0)
    illegal = next(i for i in range(indexer.size) if codes[1][i] == ILLEGAL)
    altered = [(0, win, 0), (1, draw, 3), (1, illegal, 0)]
    originals = [codes[side][index] for side, index, _ in altered]
    for side, index, code in altered:
        codes[side][index] = code
    bad, mismatches = run()
    for (side, index, code), original in zip(altered, originals):
        assert (side, index, code, original) in mismatches
    assert bad == len(mismatches) >= 3


def test_the_joint_recheck_names_the_metric_of_an_altered_code(table_dir):
    """All metrics re-checked at once: one altered DTC code is reported for DTC alone (side,
    index, stored, expected), DTM and DTC60 stay clean; the same code altered in DTM too is
    reported for both."""
    from tablebases._builder import recheck_all
    from tablebases.build import (
        METRIC_RULES,
        METRICS,
        RULE_ARRAYS,
        _load_sub_tables,
        _u16_to_bitmap,
    )

    material = Material.parse("KRKN")
    indexer = indexer_for(material)
    table = TableFile(table_path(table_dir, "KRKN"))
    rules = [_u16_to_bitmap(table.load_array(n), indexer.size) for n in RULE_ARRAYS]
    codes = {m: [table.load_codes(m, 0), table.load_codes(m, 1)] for m in METRICS}
    table.close()
    loaded = _load_sub_tables(material, table_dir)
    metrics = [(*codes[m], _sub_specs(material, loaded, m), *METRIC_RULES[m]) for m in METRICS]
    assert recheck_all(indexer, metrics, threads=2, rules=rules) == ([0, 0, 0], [])
    win = next(i for i in range(indexer.size) if codes["dtc"][0][i] not in (0, ILLEGAL)
               and codes["dtc"][0][i] % 2 == 0)
    original = codes["dtc"][0][win]
    codes["dtc"][0][win] = original + 2
    bad, mismatches = recheck_all(indexer, metrics, threads=2, rules=rules)
    assert bad[0] == bad[2] == 0 and bad[1] >= 1
    assert (1, 0, win, original + 2, original) in mismatches
    assert all(metric == 1 for metric, *_ in mismatches)
    dtm_original = codes["dtm"][0][win]
    codes["dtm"][0][win] = 0
    bad, mismatches = recheck_all(indexer, metrics, threads=1, rules=rules, max_report=10**6)
    assert bad[0] >= 1 and bad[1] >= 1 and bad[2] == 0
    assert (0, 0, win, 0, dtm_original) in mismatches
    codes["dtc"][0][win], codes["dtm"][0][win] = original, dtm_original
    assert recheck_all(indexer, metrics, rules=rules)[0] == [0, 0, 0]


@pytest.mark.slow
def test_a_build_whose_value_is_wrong_fails_its_recheck(tmp_path, monkeypatch):
    """The build's own re-check (every metric at once, at the end) sees one DTC value made
    wrong after its retrograde passes: BuildError naming DTC, and no table written."""
    import tablebases.build as build_module

    real = build_module.retrograde

    def spoiled(indexer, red, black, subs, **kwargs):
        passes = real(indexer, red, black, subs, **kwargs)
        if kwargs.get("capture_resets") and indexer.size == indexer_for(
                Material.parse("KRKN")).size:
            index = next(i for i in range(indexer.size) if red[i] not in (0, ILLEGAL))
            red[index] += 2             # a longer distance than its successors give
        return passes

    build("KRKN", tmp_path, log=lambda line: None)     # the sub-tables, sound
    monkeypatch.setattr(build_module, "retrograde", spoiled)
    with pytest.raises(build_module.BuildError, match=r"values fail the re-check \(dtc [0-9]"):
        build("KRKN", tmp_path, rebuild=True, log=lambda line: None)
    assert table_path(tmp_path, "KRKN").exists()       # the earlier, sound table stays
    assert verify_file("KRKN", tmp_path)["dtc"] == 0


def test_a_clock_over_16_bits_keeps_its_cursed_win(table_dir, capsys):
    # Issue 16: move generation used to wrap a 40,000 clock in the undo record.
    tablebase = open_tablebase(table_dir)
    fen = "3ak4/9/9/9/9/9/9/9/9/3K4R w - - 40000 1"
    board = Board(fen)
    _ = board.legal_moves
    assert board.halfmove_clock == 40000
    assert tablebase.probe_wdl(board) == 1
    ranked = tablebase.ranked_moves(board)
    assert ranked and all(item.value.wdl in (1, 0, -1, -2) and item.value.wdl != 2
                          for item in ranked)
    tablebase.close()
    from tui.cli import main
    assert main(["tb", "probe", fen, "--dir", str(table_dir)]) == 0
    out = capsys.readouterr().out
    assert "60-move rule" in out.splitlines()[0]
