"""Tablebase leaf probes at C level, for the mate solver.

:class:`tablebases.probe.Tablebase` answers one position with a dozen Python calls (a
``Board``, the material as a string, a dict lookup, a zlib block); at solver node rates that
costs more than the search itself.  :class:`LeafProber` answers ``dtm_code(&state)`` from a
``BoardState`` with no Python or file system call once the position's material has been met:

* The material is a 64-bit key counted straight from the piece lists (a nibble per colour and
  piece type, see :func:`material_key`), looked up in a small open-addressing hash table of
  :c:type:`MaterialSlot` (a few dozen materials in a search, so it stays in cache).
* The first meeting of a material is the only Python path: it finds the canonical table file,
  checks it, loads both sides' DTM arrays whole into memory the prober owns (the builder's
  :meth:`TableFile.load_codes` arrays, kept alive here) and fills the slot with the index
  and the two arrays, already swapped for a colour-flipped material.  A material without a
  table, or whose arrays would pass the memory cap, gets a slot with no table: later probes
  of it cost the hash lookup and nothing else.
* A probe is then ``ix_encode`` plus one array read.

The directory is read when the prober is made (``max_pieces``) and as materials are first
met; a table built later in the directory is seen only by a new prober.  Not thread-safe: one
prober per searching thread (the first meeting of a material changes the hash table).
"""
from libc.stdint cimport int64_t, uint16_t, uint64_t
from libc.stdlib cimport calloc, free

from xiangqi._core cimport ADVISOR, CANNON, ELEPHANT, HORSE, KING, PAWN, ROOK, BaseBoard, \
    BoardState
from tablebases._index cimport Indexer, IndexData, ix_encode

from pathlib import Path

from .format import SIDES, SUFFIX, CorruptTableError, TableFile, table_path
from .material import Material, MaterialError, indexer_for

DEFAULT_MEMORY_CAP = 4 << 30          # bytes of DTM arrays: 4 GiB

cdef enum:
    KIND_BITS = 4                     # a nibble per piece type: up to 15 of a kind per side
    SIDE_SHIFT = 28                   # Black's seven nibbles start here
    MAX_SIDE_PIECES = 15              # more of one kind would carry into the next nibble
    FIRST_CAPACITY = 64               # slots; grown by doubling at half load

# Set in every real key, so that 0 can mark an empty slot (a board without pieces counts 0).
cdef uint64_t OCCUPIED = (<uint64_t> 1) << 63
# Fibonacci hashing: the key's nibbles differ in few bits; the multiply spreads them.
cdef uint64_t HASH_MULTIPLIER = 0x9E3779B97F4A7C15ULL

# Letters in the order Material writes a side (K R N C P A B) with their piece types.
_LETTERS = (("K", KING), ("R", ROOK), ("N", HORSE), ("C", CANNON), ("P", PAWN),
            ("A", ADVISOR), ("B", ELEPHANT))


cdef uint64_t material_key(BoardState* s) noexcept nogil:
    """The material on ``s`` as one integer: for each colour and piece type the count of such
    pieces, in nibble ``SIDE_SHIFT * colour + KIND_BITS * (type - 1)``, with ``OCCUPIED`` set.
    The caller keeps each side at most ``MAX_SIDE_PIECES`` pieces, so no nibble overflows."""
    cdef uint64_t key = OCCUPIED
    cdef int side, i
    for side in range(2):
        for i in range(s.piece_count[side]):
            key += (<uint64_t> 1) << (SIDE_SHIFT * side
                                      + KIND_BITS * ((s.squares[s.piece_squares[side][i]] & 7) - 1))
    return key


cdef MaterialSlot* find_slot(MaterialSlot* slots, uint64_t mask, uint64_t key) noexcept nogil:
    """The slot holding ``key``, or the empty slot where it would go (linear probing; the
    table is never more than half full, so an empty slot is always reached)."""
    cdef uint64_t i = ((key * HASH_MULTIPLIER) >> 32) & mask
    while slots[i].key != 0 and slots[i].key != key:
        i = (i + 1) & mask
    return &slots[i]


def material_text(uint64_t key):
    """The signature (Red's letters then Black's, e.g. ``KRKA``) of a :func:`material_key`."""
    sides = []
    for side in range(2):
        sides.append("".join(letter * ((key >> (SIDE_SHIFT * side + KIND_BITS * (kind - 1))) & 15)
                             for letter, kind in _LETTERS))
    return "".join(sides)


cdef class LeafProber:
    """DTM codes of positions from the tables in ``directory``, each material's table loaded
    whole on its first meeting (at most ``memory_cap`` bytes of arrays in all).

    From C: ``prober.dtm_code(&state)``; from Python: :meth:`code`.  The counters
    (``probes``, ``hits``, ``absent_materials``, ``tables_over_cap``, ``tables_loaded``,
    ``bytes_loaded``) say what a search asked and what it cost.
    """

    def __init__(self, directory, memory_cap=DEFAULT_MEMORY_CAP):
        if memory_cap < 0:
            raise ValueError(f"memory cap must be at least 0 bytes, not {memory_cap}")
        self.directory = Path(directory)
        self.memory_cap = memory_cap
        self._tables = {}
        self.slots = <MaterialSlot*> calloc(FIRST_CAPACITY, sizeof(MaterialSlot))
        if self.slots == NULL:
            raise MemoryError()
        self.slot_mask = FIRST_CAPACITY - 1
        self.slots_used = 0
        # Like Tablebase.max_pieces: a name's letters are its pieces.
        names = [p.name[:-len(SUFFIX)] for p in self.directory.glob(f"*{SUFFIX}")]
        self.max_pieces = max((len(name) for name in names), default=0)

    def __dealloc__(self):
        free(self.slots)

    def close(self):
        """Free the hash table and every loaded array (the counters keep their values).
        Probing a closed prober raises ValueError."""
        free(self.slots)
        self.slots = NULL
        self.slot_mask = 0
        self.slots_used = 0
        self._tables.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- the hot path ---------------------------------------------------------------------------

    cdef int dtm_code(self, BoardState* s) except -2:
        """The stored DTM code (see :mod:`tablebases.values`) of the position on ``s`` for its
        side to move, or -1 if no table covers its material or the position does not fit the
        table's index.  Raises only on a material's first meeting (a corrupt table)."""
        cdef MaterialSlot* slot
        cdef uint64_t key
        cdef int64_t index
        self.probes += 1
        if s.piece_count[0] + s.piece_count[1] > self.max_pieces \
                or s.piece_count[0] > MAX_SIDE_PIECES or s.piece_count[1] > MAX_SIDE_PIECES:
            return -1
        if self.slots == NULL:
            raise ValueError("the leaf prober is closed")
        key = material_key(s)
        slot = find_slot(self.slots, self.slot_mask, key)
        if slot.key != key:
            slot = self._meet(key)
        if slot.ix == NULL:
            return -1
        index = ix_encode(slot.ix, s, slot.flip)
        if index < 0:
            return -1
        self.hits += 1
        return slot.codes[s.turn][index]

    # -- first meetings (Python allowed) ----------------------------------------------------------

    cdef MaterialSlot* _meet(self, uint64_t key) except NULL:
        """Fill the slot of a material met for the first time: its table's index and arrays,
        or nothing if it has no usable table."""
        cdef MaterialSlot* slot
        cdef Indexer indexer
        cdef const uint16_t[::1] red_codes
        cdef const uint16_t[::1] black_codes
        cdef const uint16_t* by_table_side[2]
        cdef int flip = 0
        text = material_text(key)
        try:
            material = Material.parse(text)
        except MaterialError:
            material = None             # no legal position has it (e.g. a side without king)
        if material is None:
            entry = None
            if text not in self._tables:
                self._tables[text] = None
                self.absent_materials += 1
        else:
            canonical = material.canonical()
            flip = 0 if canonical == material else 1
            entry = self._table_for(canonical)
        if (self.slots_used + 1) * 2 > <int64_t> (self.slot_mask + 1):
            self._grow()
        slot = find_slot(self.slots, self.slot_mask, key)
        slot.key = key
        slot.flip = flip
        slot.ix = NULL
        slot.codes[0] = slot.codes[1] = NULL
        if entry is not None:
            indexer, red_codes, black_codes = entry
            by_table_side[0] = &red_codes[0]
            by_table_side[1] = &black_codes[0]
            slot.ix = &indexer.data
            # The table stores the canonical colouring: the board's side to move is the
            # table's side ``turn ^ flip`` (as in Tablebase.dtm_code).
            slot.codes[0] = by_table_side[flip]
            slot.codes[1] = by_table_side[1 ^ flip]
        self.slots_used += 1
        return slot

    cdef object _table_for(self, object canonical):
        """(Indexer, red codes, black codes) of the canonical material's table, loaded on the
        first call; None (remembered) if there is no file or the arrays would pass the cap."""
        name = str(canonical)
        if name in self._tables:
            return self._tables[name]
        path = table_path(self.directory, name)
        if not path.is_file():
            self._tables[name] = None
            self.absent_materials += 1
            return None
        table = TableFile(path)         # checks the magic, the header and its checksum
        try:
            header = table.header
            try:
                stored = Material.parse(header.material)
            except MaterialError:
                stored = None
            if stored != canonical:
                raise CorruptTableError(path, 8, f"the header names material "
                                        f"{header.material!r}, the file name {name}")
            indexer = indexer_for(canonical)
            if indexer.size != header.size:
                raise CorruptTableError(path, 8, f"header size {header.size} does not match "
                                        f"the index of {name} ({indexer.size})")
            for side_name in SIDES:
                if not table.has_array(f"dtm/{side_name}"):
                    raise CorruptTableError(path, 8, f"no dtm/{side_name} array")
            needed = 2 * 2 * header.size          # uint16 codes, both sides to move
            if self.bytes_loaded + needed > self.memory_cap:
                self._tables[name] = None
                self.absent_materials += 1
                self.tables_over_cap += 1
                return None
            red_codes = table.load_codes("dtm", 0)      # every block's checksum checked
            black_codes = table.load_codes("dtm", 1)
        finally:
            table.close()
        # The index must not read past an array: a short one is a damaged file.
        for side_name, values in zip(SIDES, (red_codes, black_codes)):
            if len(values) != header.size:
                raise CorruptTableError(path, 8, f"dtm/{side_name} holds {len(values)} codes, "
                                        f"the index {header.size}")
        entry = (indexer, red_codes, black_codes)
        self._tables[name] = entry
        self.tables_loaded += 1
        self.bytes_loaded += needed
        return entry

    cdef int _grow(self) except -1:
        """Double the hash table and re-insert every material."""
        cdef uint64_t old_capacity = self.slot_mask + 1
        cdef uint64_t new_mask = 2 * old_capacity - 1
        cdef MaterialSlot* old_slots = self.slots
        cdef MaterialSlot* new_slots = <MaterialSlot*> calloc(2 * old_capacity, sizeof(MaterialSlot))
        cdef uint64_t i
        if new_slots == NULL:
            raise MemoryError()
        for i in range(old_capacity):
            if old_slots[i].key != 0:
                find_slot(new_slots, new_mask, old_slots[i].key)[0] = old_slots[i]
        self.slots = new_slots
        self.slot_mask = new_mask
        free(old_slots)
        return 0

    # -- Python access (tests, benchmarks) --------------------------------------------------------

    def code(self, board):
        """:meth:`dtm_code` of a :class:`xiangqi.Board` (the same value as
        :meth:`Tablebase.dtm_code <tablebases.probe.Tablebase.dtm_code>`)."""
        if not isinstance(board, BaseBoard):
            raise TypeError(f"expected a Board, not {type(board).__name__}")
        return self.dtm_code(&(<BaseBoard> board).state)

    def codes(self, boards):
        """:meth:`code` of each board, the loop in C (what the benchmark times)."""
        cdef BaseBoard board
        result = []
        for board in boards:
            result.append(self.dtm_code(&board.state))
        return result

    @property
    def materials_met(self):
        """How many materials (each colouring apart) have a slot."""
        return self.slots_used

    @property
    def loaded_materials(self):
        """The canonical materials whose tables are in memory, sorted."""
        return sorted(name for name, entry in self._tables.items() if entry is not None)
