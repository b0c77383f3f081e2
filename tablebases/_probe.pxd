# C-level tablebase leaf prober: the solver asks for a position's DTM code without a Python
# call per node.  See _probe.pyx for how the cache works.
from libc.stdint cimport int64_t, uint16_t, uint64_t
from xiangqi._core cimport BoardState
from tablebases._index cimport IndexData

cdef struct MaterialSlot:
    uint64_t key              # material_key() of the material; 0 marks an empty slot
    IndexData* ix             # the canonical table's index; NULL: no table (remembered absent)
    const uint16_t* codes[2]  # DTM codes by the side to move on the probed board (flip applied)
    int flip                  # the table is stored for the colour-swapped material

cdef uint64_t material_key(BoardState* s) noexcept nogil
cdef MaterialSlot* find_slot(MaterialSlot* slots, uint64_t mask, uint64_t key) noexcept nogil

cdef class LeafProber:
    cdef MaterialSlot* slots          # open-addressing hash table, capacity a power of two
    cdef uint64_t slot_mask
    cdef int64_t slots_used
    cdef public int max_pieces        # most pieces (kings included) of any table in the directory
    cdef readonly int64_t memory_cap  # bytes of DTM arrays this prober may load
    cdef readonly unsigned long long probes   # dtm_code calls
    cdef readonly unsigned long long hits     # ... that a table answered (a code >= 0)
    cdef readonly int64_t absent_materials    # canonical materials found without a usable table
    cdef readonly int64_t tables_over_cap     # ... of them because of the memory cap
    cdef readonly int64_t tables_loaded
    cdef readonly int64_t bytes_loaded
    cdef readonly object directory
    cdef object _tables               # canonical name -> (Indexer, red codes, black codes) or None

    cdef int dtm_code(self, BoardState* s) except -2
    cdef MaterialSlot* _meet(self, uint64_t key) except NULL
    cdef object _table_for(self, object canonical)
    cdef int _grow(self) except -1
