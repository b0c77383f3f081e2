"""Table files: a checked header, then each (metric, side to move) array of uint16 codes split
into independently decodable zlib blocks, each with its CRC-32.

Layout::

    magic "XQTB" | u32 header length | header (JSON, UTF-8) | u32 CRC-32 of the header
    blocks ...   (offsets in the header are from the start of the file)

Files are written to a temporary name in the same directory and renamed when complete.
Everything read is checked: a bad magic, header, length or block checksum raises
:class:`CorruptTableError` naming the file and the offset, and so does a header whose fields
cannot describe the file (a material that does not parse, ``block_entries`` or ``size`` not
positive, a block outside the file or before its header's end, a block count that does not
match the array's length).  :meth:`TableFile.check_data_checksum` reads every block and
compares the CRC-32 of the uncompressed arrays with the header's ``data_checksum``.

A table's bytes depend only on its material and the rules: two builds of the same table are
byte-identical, so tables can be compared by checksum.  How a build went (wall and CPU
seconds per metric, threads) is kept beside the table in ``NAME.xqtb.build.json``
(:func:`build_info_path`), which nothing needs to read a table.  Files written before this
held those timings in the header's ``extra``; they are read as before.
"""
from __future__ import annotations

import array
import json
import mmap
import os
import re
import socket
import struct
import sys
import tempfile
import zlib
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from xiangqi.output import JsonObject

MAGIC = b"XQTB"
FORMAT_VERSION = 4   # 2: DTC60 and rule bitmaps; 3: DTC keeps the winner of a capture;
                     # 4: chase-rule marks (rules/chase_red, rules/chase_black)
INDEX_LAYOUT_VERSION = 1
BLOCK_ENTRIES = 1 << 15
SUFFIX = ".xqtb"
SIDES = ("red", "black")


class TablebaseError(ValueError):
    """A table that cannot answer: missing, damaged, or beyond what can be built.

    Every front end (the command line and its ``--json``, the studio's panels, the engine's
    ``info string``, the web API) shows :meth:`user_text`: what is wrong, which file, and
    what to do about it."""

    def user_text(self) -> str:
        return str(self)


class CorruptTableError(TablebaseError):
    """A table file whose bytes are not what was written."""

    def __init__(self, path: Path | str, offset: int, problem: str) -> None:
        super().__init__(f"{path}: {problem} at offset {offset}")
        self.path = Path(path)
        self.offset = offset
        self.problem = problem

    def user_text(self) -> str:
        """``damaged table DIR/KRKAA.xqtb: ... at offset N; rebuild it with: xqstudio tb
        build KRKAA --tables DIR`` (``--rules chinese`` for a table of that rule set)."""
        return f"damaged table {self}; rebuild it with: {rebuild_command(self.path)}"


def rebuild_command(path: Path) -> str:
    """The command that builds the table at ``path`` again (a Chinese-rules table lives in
    the ``chinese`` folder of the table directory)."""
    material = path.name[:-len(SUFFIX)] if path.name.endswith(SUFFIX) else path.stem
    directory, rules = path.parent, ""
    if directory.name == "chinese":
        directory, rules = directory.parent, " --rules chinese"
    return f"xqstudio tb build {material} --tables {directory}{rules}"


@dataclass
class TableHeader:
    material: str
    size: int                         # positions per side to move (index entries)
    metrics: list[str]
    rules: dict[str, str]
    counts: dict[str, JsonObject] = field(default_factory=dict)   # by side to move
    blocks: dict[str, list[list[int]]] = field(default_factory=dict)  # "dtm/red" -> [[offset,
    #                                                                   length, crc], ...]
    lengths: dict[str, int] = field(default_factory=dict)  # array name -> entries (uint16)
    data_checksum: int = 0           # CRC-32 over all uncompressed arrays, in order
    format_version: int = FORMAT_VERSION
    index_layout_version: int = INDEX_LAYOUT_VERSION
    block_entries: int = BLOCK_ENTRIES
    extra: JsonObject = field(default_factory=dict)

    def to_json(self) -> bytes:
        return json.dumps(self.__dict__, sort_keys=True, ensure_ascii=False).encode("utf-8")


def table_path(directory: Path | str, material: str) -> Path:
    return Path(directory) / f"{material}{SUFFIX}"


def build_info_path(path: Path | str) -> Path:
    """The side file with a table's build timings (not part of the table's bytes)."""
    path = Path(path)
    return path.with_name(f"{path.name}.build.json")


def zeroed_codes(entries: int) -> memoryview:
    """A zeroed array of ``entries`` uint16 codes in fresh anonymous memory that the kernel
    may back with huge pages (the builder reads and writes its codes at random; huge pages
    spare most TLB misses: random access 22% faster on the benchmark machine)."""
    mapping = mmap.mmap(-1, max(2 * entries, 2), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mapping, "madvise") and hasattr(mmap, "MADV_HUGEPAGE"):
        try:
            mapping.madvise(mmap.MADV_HUGEPAGE)
        except OSError:
            pass                      # no transparent huge pages here: ordinary pages
    return memoryview(mapping).cast("H")[:entries]


def zeroed_words(count: int) -> memoryview:
    """``count`` zeroed uint64 words (a bitmap) in a mapping of their own, as
    :func:`zeroed_codes`: unmapped when the last view goes, never left in the heap."""
    mapping = mmap.mmap(-1, max(8 * count, 8), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return memoryview(mapping).cast("Q")[:count]


def _little_endian_view(values: array.array[int] | memoryview) -> memoryview:
    """The bytes of uint16 ``values`` in little-endian order, without a copy where possible."""
    if sys.byteorder == "little":
        return memoryview(values).cast("B")
    return memoryview(_to_le_bytes(values))


def _to_le_bytes(values: array.array[int] | memoryview) -> bytes:
    if sys.byteorder == "little":
        return values.tobytes()
    swapped = array.array("H", values)
    swapped.byteswap()
    return swapped.tobytes()


def _default_mode() -> int:
    """0o666 less the umask: what a plainly created file gets (mkstemp makes 0o600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


# This machine, as scratch names carry it: a table directory on a shared filesystem holds the
# scratch files of writers on other machines (cluster builds), whose processes this one
# cannot see.
_HOST = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname()) or "host"


def _scratch_prefix(path: Path) -> str:
    """Temporary files are named after the table, the writing process and its machine."""
    return f"{path.name}.{os.getpid()}@{_HOST}."


def remove_stale_scratch(directory: Path) -> list[Path]:
    """Delete the temporary files of writers of this machine whose process is gone (a build
    killed before it could clean up); those of running builds and of other machines stay.
    Returns what was removed."""
    removed = []
    for scratch in list(directory.glob(f"*{SUFFIX}*.blocks")) + \
            list(directory.glob(f"*{SUFFIX}*.tmp")):
        parts = scratch.name.rsplit(".", 3)      # target . pid@host . random . blocks|tmp
        if len(parts) < 4:
            continue
        pid, _, host = parts[1].partition("@")
        if not pid.isdigit() or (host and host != _HOST) or _process_alive(int(pid)):
            continue
        try:
            scratch.unlink()
            removed.append(scratch)
        except FileNotFoundError:
            pass
    return removed


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class TableWriter:
    """Writes a table file array by array, so a build can free each metric once it is stored.

    Compressed blocks go to a scratch file beside the target; :meth:`finish` writes the header
    and the blocks to a temporary name and renames it over the target.  Nothing is left
    behind if the writer is closed without finishing.  With ``threads`` > 1 the blocks are
    compressed that many at a time (zlib lets go of the GIL while it compresses; the blocks
    are written in order, so the file is the same).
    """

    def __init__(self, path: Path | str, threads: int = 1) -> None:
        self.path = Path(path)
        self._pool = ThreadPoolExecutor(threads) if threads > 1 else None
        self._depth = 2 * threads       # blocks in flight on the pool
        self.path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_scratch(self.path.parent)
        fd, self._scratch_name = tempfile.mkstemp(prefix=_scratch_prefix(self.path),
                                                  suffix=".blocks", dir=self.path.parent)
        self._scratch = os.fdopen(fd, "w+b")
        self._blocks: dict[str, list[list[int]]] = {}
        self._lengths: dict[str, int] = {}
        self._checksum = 0

    def add(self, name: str, values: array.array[int] | memoryview,
            copy_to: TableWriter | None = None) -> None:
        """Compress and store uint16 ``values`` (an array or a memoryview) as ``name``; with
        ``copy_to``, store the same compressed blocks in that writer too (a build's checkpoint
        file: the array is compressed once)."""
        raw = _little_endian_view(values)
        writers = [self] if copy_to is None else [self, copy_to]
        for writer in writers:
            writer._checksum = zlib.crc32(raw, writer._checksum)
            writer._blocks[name] = []
            writer._lengths[name] = len(values)
        for packed in self._packed_blocks(raw):
            row = [len(packed), zlib.crc32(packed)]
            for writer in writers:
                writer._blocks[name].append(row)
                writer._scratch.write(packed)

    def _packed_blocks(self, raw: memoryview) -> Iterator[bytes]:
        """The compressed blocks of ``raw`` in order.  With a pool, only a few blocks are in
        flight at a time (Executor.map would hold every compressed block of the array)."""
        step = BLOCK_ENTRIES * 2
        blocks = (raw[start:start + step] for start in range(0, len(raw), step))
        if self._pool is None:
            yield from map(_compress, blocks)
            return
        window: deque[Future[bytes]] = deque()
        for block in blocks:
            window.append(self._pool.submit(_compress, block))
            if len(window) >= self._depth:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()

    def finish(self, header: TableHeader) -> None:
        header.lengths = dict(self._lengths)
        header.data_checksum = self._checksum
        order = list(self._blocks)

        # Offsets depend on the header's length, which depends on the offsets: reserve the
        # width of 12-digit offsets, then pad the real header to that size.
        def header_bytes(base: int) -> bytes:
            offset = base
            placed = {}
            for name in order:
                rows = []
                for length, crc in self._blocks[name]:
                    rows.append([offset, length, crc])
                    offset += length
                placed[name] = rows
            header.blocks = placed
            return header.to_json()

        probe = header_bytes(10 ** 11)
        encoded = header_bytes(len(MAGIC) + 4 + len(probe) + 4).ljust(len(probe), b" ")
        if len(encoded) != len(probe):
            raise AssertionError("header size changed while placing blocks")
        fd, temp_name = tempfile.mkstemp(prefix=_scratch_prefix(self.path), suffix=".tmp",
                                         dir=self.path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(MAGIC)
                handle.write(struct.pack("<I", len(encoded)))
                handle.write(encoded)
                handle.write(struct.pack("<I", zlib.crc32(encoded)))
                self._scratch.seek(0)
                while True:
                    chunk = self._scratch.read(1 << 20)
                    if not chunk:
                        break
                    handle.write(chunk)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temp_name, _default_mode())
            os.replace(temp_name, self.path)
        except BaseException:
            try:
                os.unlink(temp_name)
            except FileNotFoundError:
                pass
            raise
        finally:
            self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        if not self._scratch.closed:
            self._scratch.close()
        try:
            os.unlink(self._scratch_name)
        except FileNotFoundError:
            pass


def _compress(block: memoryview) -> bytes:
    return zlib.compress(block, 6)


def write_table(path: Path | str, header: TableHeader,
                arrays: dict[str, array.array[int]]) -> None:
    """Write ``arrays`` ("dtm/red" -> uint16 array, in the order given) with ``header``,
    atomically."""
    writer = TableWriter(path)
    try:
        for name, values in arrays.items():
            writer.add(name, values)
        writer.finish(header)
    finally:
        writer.close()


def read_header(path: Path | str) -> TableHeader:
    path = Path(path)
    with path.open("rb") as handle:
        file_size = os.fstat(handle.fileno()).st_size
        head = handle.read(8)
        if len(head) < 8 or head[:4] != MAGIC:
            raise CorruptTableError(path, 0, "not a table file (bad magic)")
        (length,) = struct.unpack("<I", head[4:8])
        encoded = handle.read(length)
        if len(encoded) != length:
            raise CorruptTableError(path, 8 + len(encoded), "truncated header")
        crc_bytes = handle.read(4)
        if len(crc_bytes) != 4 or struct.unpack("<I", crc_bytes)[0] != zlib.crc32(encoded):
            raise CorruptTableError(path, 8 + length, "header checksum mismatch")
    try:
        fields = json.loads(encoded.decode("utf-8"))
        if not isinstance(fields, dict):
            raise TypeError(f"a JSON {type(fields).__name__}, not an object")
        header = TableHeader(**fields)
    except (ValueError, TypeError) as error:
        raise CorruptTableError(path, 8, f"unreadable header ({error})") from None
    if header.format_version != FORMAT_VERSION:
        raise CorruptTableError(path, 8, f"format version {header.format_version}, "
                                f"this program reads {FORMAT_VERSION}")
    if header.index_layout_version != INDEX_LAYOUT_VERSION:
        raise CorruptTableError(path, 8, f"index layout {header.index_layout_version}, "
                                f"this program uses {INDEX_LAYOUT_VERSION}")
    _validate_header(path, header, 8 + length + 4, file_size)
    return header


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _validate_header(path: Path, header: TableHeader, data_start: int, file_size: int) -> None:
    """Raise :class:`CorruptTableError` unless the header's fields can describe this file."""
    from .material import Material, MaterialError

    def bad(problem: str, offset: int = 8) -> CorruptTableError:
        return CorruptTableError(path, offset, f"bad header: {problem}")

    if not isinstance(header.material, str):
        raise bad(f"material is {header.material!r}, not a name")
    try:
        Material.parse(header.material)
    except MaterialError as error:
        raise bad(f"material {header.material!r} does not parse ({error})") from None
    for name in ("size", "block_entries"):
        value = getattr(header, name)
        if not _is_count(value) or value <= 0:
            raise bad(f"{name} is {value!r}, not a positive whole number")
    if not _is_count(header.data_checksum) or not 0 <= header.data_checksum < 1 << 32:
        raise bad(f"data_checksum is {header.data_checksum!r}, not a CRC-32")
    if not isinstance(header.metrics, list) or \
            not all(isinstance(m, str) for m in header.metrics):
        raise bad(f"metrics is {header.metrics!r}, not a list of names")
    for name in ("rules", "counts", "blocks", "lengths", "extra"):
        if not isinstance(getattr(header, name), dict):
            raise bad(f"{name} is not an object")
    for name, rows in header.blocks.items():
        entries = header.lengths.get(name, header.size)
        if not _is_count(entries) or entries < 0:
            raise bad(f"length of {name} is {entries!r}, not a whole number")
        if not isinstance(rows, list) or len(rows) != -(-entries // header.block_entries):
            count = len(rows) if isinstance(rows, list) else rows
            raise bad(f"{name} has {count!r} blocks, its {entries} entries need "
                      f"{-(-entries // header.block_entries)}")
        for number, row in enumerate(rows):
            if not (isinstance(row, list) and len(row) == 3 and all(map(_is_count, row))):
                raise bad(f"block {name}#{number} is {row!r}, not [offset, length, crc]")
            offset, size, crc = row
            if offset < data_start or size <= 0 or not 0 <= crc < 1 << 32:
                raise bad(f"block {name}#{number} at offset {offset} with length {size} "
                          f"(blocks start at {data_start})", max(offset, 0))
            if offset + size > file_size:
                raise CorruptTableError(path, file_size, f"file truncated: block {name}#{number} "
                                        f"needs {offset + size} bytes, the file has {file_size}")


class TableFile:
    """Random access to the codes of one table file, one block decoded at a time."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.header = read_header(self.path)
        self._handle = self.path.open("rb")
        self._file_size = os.fstat(self._handle.fileno()).st_size
        self._cache: dict[tuple[str, int], array.array[int]] = {}

    def close(self) -> None:
        self._handle.close()

    def _block(self, name: str, number: int, cache: bool = True) -> array.array[int]:
        """Block ``number`` of array ``name``, checked and decoded; kept for the next probe
        unless not ``cache`` (a whole array read in turn: the blocks read once would only
        fragment the heap)."""
        key = (name, number)
        block = self._cache.get(key)
        if block is not None:
            return block
        try:
            offset, length, crc = self.header.blocks[name][number]
        except (KeyError, IndexError):
            raise CorruptTableError(self.path, 8, f"no block {number} of {name} in the header") \
                from None
        if offset + length > self._file_size:
            raise CorruptTableError(
                self.path, self._file_size,
                f"file truncated: block {name}#{number} needs {offset + length} bytes")
        self._handle.seek(offset)
        packed = self._handle.read(length)
        if zlib.crc32(packed) != crc:
            raise CorruptTableError(self.path, offset,
                                    f"checksum mismatch in block {name}#{number}")
        try:
            raw = zlib.decompress(packed)
        except zlib.error:
            raise CorruptTableError(self.path, offset,
                                    f"undecodable block {name}#{number}") from None
        length = self.header.lengths.get(name, self.header.size)
        expected = min(self.header.block_entries, length - number * self.header.block_entries)
        if len(raw) != expected * 2:
            raise CorruptTableError(self.path, offset,
                                    f"block {name}#{number} has the wrong length")
        block = array.array("H")
        block.frombytes(raw)
        if sys.byteorder != "little":
            block.byteswap()
        if not cache:
            return block
        if len(self._cache) > 256:
            self._cache.clear()
        self._cache[key] = block
        return block

    def code(self, metric: str, side: int, index: int) -> int:
        if not 0 <= index < self.header.size:
            raise IndexError(f"index {index} outside the table ({self.header.size} entries)")
        block = self._block(f"{metric}/{SIDES[side]}", index // self.header.block_entries)
        return block[index % self.header.block_entries]

    def has_array(self, name: str) -> bool:
        return name in self.header.blocks

    def bit(self, name: str, index: int) -> bool:
        """Bit ``index`` of a bitmap array (stored as little-endian uint16 words)."""
        word = self._block(name, (index >> 4) // self.header.block_entries)
        return bool((word[(index >> 4) % self.header.block_entries] >> (index & 15)) & 1)

    def load(self, metric: str, side: int) -> array.array[int]:
        """A metric's whole array for one side to move, every block checked."""
        return self.load_array(f"{metric}/{SIDES[side]}")

    def blocks(self, name: str) -> Iterator[tuple[int, array.array[int]]]:
        """(first entry, codes) of each block of array ``name`` in turn, every block
        checked."""
        for number in range(len(self.header.blocks[name])):
            yield number * self.header.block_entries, self._block(name, number, cache=False)

    def load_array(self, name: str) -> array.array[int]:
        values = array.array("H")
        for _, block in self.blocks(name):
            values.extend(block)
        return values

    def load_codes(self, metric: str, side: int) -> memoryview:
        """:meth:`load` into :func:`zeroed_codes` memory (for the builder, which reads the
        sub-tables' codes at random)."""
        name = f"{metric}/{SIDES[side]}"
        values = zeroed_codes(self.header.lengths.get(name, self.header.size))
        for start, block in self.blocks(name):
            values[start:start + len(block)] = block
        return values

    def check_data_checksum(self) -> None:
        checksum = 0
        in_file_order = sorted(self.header.blocks, key=lambda n: self.header.blocks[n][0][0])
        for name in in_file_order:      # block by block: no array of the table in memory
            for _, block in self.blocks(name):
                checksum = zlib.crc32(_little_endian_view(block), checksum)
        if checksum != self.header.data_checksum:
            raise CorruptTableError(self.path, 8, "data checksum mismatch")
