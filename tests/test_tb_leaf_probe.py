"""The C-level leaf prober (tablebases._probe.LeafProber) against the Python prober: the same
DTM code for every position of small tables, both sides to move, both colourings and the
mirror image; materials without a table remembered; the memory cap; corrupt tables."""
import random
import shutil

import pytest

from tablebases._probe import LeafProber, material_text
from tablebases.build import build, indexer_for
from tablebases.format import CorruptTableError, TableFile, table_path
from tablebases.material import Material
from tablebases.probe import Tablebase
from tablebases.values import ILLEGAL
from xiangqi import BLACK, RED, Board

# Every position of these is compared (a few thousand to 22 thousand per side to move)...
EXHAUSTIVE = ["KRK", "KCK", "KPK", "KNKA", "KRKA", "KPKA"]
# ... and a sample of this one (437,400 per side to move).
SAMPLED = ["KRKN"]


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("leaf_tables")
    build(EXHAUSTIVE + SAMPLED, directory, threads=2, log=lambda line: None)
    return directory


def colour_swapped(codes):
    """The placement seen from the other side: every piece changes colour and its rank
    (rank r -> 9 - r, same file), so that Black holds what Red held."""
    swapped = [0] * 90
    for sq, code in enumerate(codes):
        if code:
            swapped[(9 - sq // 9) * 9 + sq % 9] = code ^ 8
    return swapped


def load(board, codes, turn):
    board._load(codes, turn, 0, 1)
    return board


def compare_positions(prober, tablebase, material, indices):
    """Compare both probers on each index's position, its colour swap and its mirror image,
    each with both sides to move.  Returns how often each code was seen (to show that the
    values are not trivial) and the number of probes made."""
    indexer = indexer_for(Material.parse(material))
    board = Board(None)
    seen = {}
    probed = 0
    for index in indices:
        codes = indexer.placement(index)
        if codes is None:
            continue                    # two pieces on one point: no position
        for placement in (codes, colour_swapped(codes)):
            for turn in (RED, BLACK):
                load(board, placement, turn)
                expected = tablebase.dtm_code(board)
                assert prober.code(board) == expected, (material, index, board.fen())
                probed += 1
                if index % 5 == 0:      # the mirror path (Tablebase's cost) on a fifth
                    mirrored = board.mirror()
                    assert prober.code(mirrored) == tablebase.dtm_code(mirrored), \
                        (material, index, mirrored.fen())
                    probed += 1
                seen[expected] = seen.get(expected, 0) + 1
    return seen, probed


@pytest.mark.parametrize("material", EXHAUSTIVE)
def test_every_position_agrees_with_the_python_prober(table_dir, material):
    size = indexer_for(Material.parse(material)).size
    with LeafProber(table_dir) as prober:
        seen, probed = compare_positions(prober, Tablebase(table_dir), material, range(size))
        # Both colourings of the material met, one table loaded, answered for every
        # position that fits (every placement here fits, in both colourings).
        assert prober.materials_met == 2
        assert prober.tables_loaded == 1 and prober.loaded_materials == [material]
        assert prober.bytes_loaded == 2 * 2 * size
        assert prober.absent_materials == 0
        assert prober.hits == prober.probes == probed > 4 * size // 2
    # Real values: illegal entries, draws, and (but for KCK) wins and losses appear.
    assert ILLEGAL in seen and 0 in seen
    if material == "KCK":               # a lone cannon cannot mate: draws only
        assert set(seen) == {0, ILLEGAL}
    else:                               # wins (odd plies, even codes) and losses
        assert any(code != ILLEGAL and code % 2 == 0 for code in seen)
        assert any(code != ILLEGAL and code % 2 == 1 for code in seen)
        assert len(seen) > 5


def test_a_sample_of_a_larger_table_agrees(table_dir):
    size = indexer_for(Material.parse("KRKN")).size
    indices = random.Random(13).sample(range(size), 4000)
    with LeafProber(table_dir) as prober:
        seen, probed = compare_positions(prober, Tablebase(table_dir), "KRKN", indices)
        assert prober.probes == prober.hits == probed
        assert prober.tables_loaded == 1 and prober.bytes_loaded == 4 * size
    assert len(seen) > 10


def test_known_positions(table_dir):
    with LeafProber(table_dir) as prober:
        # Rook mates at once: the win in 1 ply is stored as 2.
        assert prober.code(Board("3k5/9/9/9/9/9/9/9/9/R3K4 w")) == 2
        # The same with colours swapped: Black's rook mates at once (the flip path).
        assert prober.code(Board("r3k4/9/9/9/9/9/9/9/9/3K5 b")) == 2
        # Red to move is mated by Black's rook: 0 plies, stored as 1.
        board = Board("r3k4/9/9/9/9/9/9/9/9/3K5 b")
        board.push_iccs("a9d9")
        assert board.is_checkmate() and prober.code(board) == 1
        assert (prober.probes, prober.hits, prober.materials_met) == (3, 3, 2)   # KRK, KKR


def test_absent_material_is_remembered_and_counted_once(table_dir):
    tablebase = Tablebase(table_dir)
    with LeafProber(table_dir) as prober:
        krkb = Board("2bk5/9/9/9/9/9/9/9/9/R3K4 w")           # no KRKB table was built
        kbkr = Board("r3k4/9/9/9/9/9/9/9/9/2BK5 b")           # the same material, flipped
        assert tablebase.dtm_code(krkb) == -1
        for _ in range(5):
            assert prober.code(krkb) == -1
            assert prober.code(kbkr) == -1
        # One canonical material absent, met in two colourings; nothing loaded.
        assert prober.absent_materials == 1
        assert prober.materials_met == 2
        assert (prober.probes, prober.hits, prober.tables_loaded, prober.bytes_loaded) == \
            (10, 0, 0, 0)
        # A material with a table still answers.
        assert prober.code(Board("3k5/9/9/9/9/9/9/9/9/R3K4 w")) == 2
        assert (prober.probes, prober.hits, prober.tables_loaded, prober.absent_materials) == \
            (11, 1, 1, 1)


def test_counters_over_a_mixed_run(table_dir):
    krk_size = indexer_for(Material.parse("KRK")).size
    krka_size = indexer_for(Material.parse("KRKA")).size
    with LeafProber(table_dir) as prober:
        boards = [Board("3k5/9/9/9/9/9/9/9/9/R3K4 w"),              # KRK
                  Board("3k5/9/9/9/9/9/9/9/9/R3K4 b"),              # KRK, Black to move
                  Board("r3k4/9/9/9/9/9/9/9/9/3K5 w"),              # KKR
                  Board("3k1a3/9/9/9/9/9/9/9/9/R3K4 w"),             # KRKA
                  Board("2bk5/9/9/9/9/9/9/9/9/R3K4 w")]             # KRKB: no table
        codes = prober.codes(boards)
        assert codes == [Tablebase(table_dir).dtm_code(board) for board in boards]
        assert codes[-1] == -1 and min(codes[:-1]) >= 0
        assert prober.probes == 5 and prober.hits == 4
        assert prober.tables_loaded == 2 and prober.loaded_materials == ["KRK", "KRKA"]
        assert prober.bytes_loaded == 4 * (krk_size + krka_size)
        assert prober.absent_materials == 1 and prober.tables_over_cap == 0
        assert prober.materials_met == 4


def test_max_pieces_and_larger_positions(table_dir):
    with LeafProber(table_dir) as prober:
        assert prober.max_pieces == Tablebase(table_dir).max_pieces() == 4
        five = Board("2bk1a3/9/9/9/9/9/9/9/9/R3K4 w")                 # KRKAB: 5 pieces
        assert prober.code(five) == -1
        # Skipped before the material is even computed: nothing met, nothing absent.
        assert (prober.probes, prober.materials_met, prober.absent_materials) == (1, 0, 0)


def test_memory_cap_refuses_a_table_and_remembers_it(table_dir):
    krk_size = indexer_for(Material.parse("KRK")).size
    krka = Board("3k1a3/9/9/9/9/9/9/9/9/R3K4 w")
    assert Tablebase(table_dir).dtm_code(krka) > 0
    with LeafProber(table_dir, memory_cap=4 * krk_size) as prober:
        assert prober.code(Board("3k5/9/9/9/9/9/9/9/9/R3K4 w")) == 2     # fits exactly
        for _ in range(3):
            assert prober.code(krka) == -1                             # would pass the cap
        assert prober.tables_loaded == 1 and prober.bytes_loaded == 4 * krk_size
        assert prober.tables_over_cap == 1 and prober.absent_materials == 1
    with pytest.raises(ValueError):
        LeafProber(table_dir, memory_cap=-1)


def test_many_materials_grow_the_hash_table(table_dir):
    """More than 32 materials (the first table's half load) are met; every earlier material
    keeps its answer after the table grows."""
    rook_mate = Board("3k5/9/9/9/9/9/9/9/9/R3K4 w")
    free_points = [sq for sq in range(27, 63)]          # ranks 3-6: no king or palace there
    board = Board(None)
    with LeafProber(table_dir) as prober:
        prober.max_pieces = 16                        # probe the big materials too
        assert prober.code(rook_mate) == 2
        met = 1
        for rooks in range(3):
            for horses in range(3):
                for cannons in range(3):
                    for pawns in range(3):
                        pieces = [5] * rooks + [4] * horses + [6] * cannons + [7] * pawns
                        if len(pieces) < 2:
                            continue          # KRK-like materials may have tables
                        codes = [0] * 90
                        codes[4], codes[85] = 1, 9                    # kings e0 and e9
                        for sq, kind in zip(free_points, pieces):
                            codes[sq] = kind
                        assert prober.code(load(board, codes, RED)) == -1
                        met += 1
        assert met > 64 and prober.materials_met == met
        assert prober.absent_materials == met - 1
        assert prober.code(rook_mate) == 2 and prober.tables_loaded == 1


def test_material_text_and_board_type():
    # A nibble per colour and piece type (type - 1), Black's from bit 28, bit 63 set:
    # K (type 1) and R (type 5) for Red, K and A (type 2) for Black.
    key = 1 << 63 | 1 << 0 | 1 << 16 | 1 << 28 | 1 << 32
    assert material_text(key) == "KRKA"
    pawns = 1 << 63 | 1 << 0 | 3 << 24 | 1 << 28 | 2 << 40 | 2 << 48
    assert material_text(pawns) == "KPPPKNNCC"
    with pytest.raises(TypeError):
        LeafProber(".").code("not a board")


def test_corrupt_table_raises_naming_the_file(table_dir, tmp_path):
    path = table_path(tmp_path, "KRKA")
    shutil.copy(table_path(table_dir, "KRKA"), path)
    header = TableFile(path).header
    offset = header.blocks["dtm/black"][0][0] + 5
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x40
    path.write_bytes(bytes(data))
    board = Board("3k1a3/9/9/9/9/9/9/9/9/R3K4 w")
    with LeafProber(tmp_path) as prober:
        with pytest.raises(CorruptTableError) as info:
            prober.code(board)
        assert str(path) in str(info.value) and "checksum mismatch in block dtm/black#0" \
            in str(info.value)
        # Not remembered as absent: the next probe meets the damage again.
        with pytest.raises(CorruptTableError):
            prober.code(board)
        assert prober.tables_loaded == 0 and prober.absent_materials == 0


def test_a_file_holding_another_material_is_corrupt(table_dir, tmp_path):
    path = table_path(tmp_path, "KCK")
    shutil.copy(table_path(table_dir, "KRK"), path)           # KRK's table named KCK
    with LeafProber(tmp_path) as prober:
        with pytest.raises(CorruptTableError, match="header names material 'KRK'") as info:
            prober.code(Board("3k5/9/9/9/9/9/9/9/9/C3K4 w"))
        assert str(path) in str(info.value)


def test_closed_prober_refuses_probes(table_dir):
    prober = LeafProber(table_dir)
    board = Board("3k5/9/9/9/9/9/9/9/9/R3K4 w")
    assert prober.code(board) == 2
    prober.close()
    assert prober.loaded_materials == [] and prober.tables_loaded == 1
    with pytest.raises(ValueError, match="closed"):
        prober.code(board)
    prober.close()                                            # closing twice is harmless
