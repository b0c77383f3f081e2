"""``xqstudio tb serve``: the tables over HTTP, in the JSON shape of the lichess tablebase API.

``GET /xiangqi?fen=FEN`` (underscores may stand for the FEN's spaces, as lichess allows)
answers for the side to move::

    {"fen": "...", "category": "win", "dtm": 5, "dtc": 5, "dtc60": 5,
     "sixty_move_draw": false, "checkmate": false, "stalemate": false, ...,
     "moves": [{"uci": "i1f1", "iccs": "i0f0", "chinese": "车一平四", "wxf": "R1.4",
                "category": "loss", "dtm": -4, ...}, ...]}

* ``category``: ``win``, ``cursed-win`` (a win the 60-move natural limit turns into a draw),
  ``draw``, ``blessed-loss`` (a loss the limit saves) or ``loss``, as lichess defines them
  for the side to move; the halfmove clock of the FEN counts towards the limit.
* ``dtm`` / ``dtc`` / ``dtc60``: plies to mate, to the first capture or mate, and to a
  conversion that keeps the win within the limit; positive when the side to move wins,
  negative when it loses, 0 for a draw (``dtc60`` is null where no conversion keeps the
  win within the limit).  ``sixty_move_draw`` is the 60-move flag: the limit draws this
  result.  ``must_stop_checking``: lost because the only drawing moves are perpetual checks
  (长将); ``chase_sensitive``: a draw the chase rule (长捉) could change.
* ``moves``: every legal move, best first (as ``Tablebase.ranked_moves`` orders them: the
  perpetual checks the rule forbids last, with ``forbidden`` true), each with ``uci``
  (Fairy-Stockfish's squares, ranks 1..10 from Red's side), ``iccs`` (ranks 0..9),
  ``chinese`` and ``wxf``, ``zeroing`` (a capture: the limit's count starts again) and the
  fields above for the position after it, for the side to move there (so a winning move
  shows ``loss``, as on lichess).

Errors are JSON too: 400 ``{"error": ...}`` naming what is wrong with the FEN (rank, file),
404 naming the table that is missing, 503 for a damaged table.  Answers are cached (an LRU
of ``--cache`` documents); the tables are opened once per process and read under one lock,
so concurrent requests share the open files and their decoded blocks.

Starlette and uvicorn come with the ``web`` extra (``pip install 'xqstudio[web]'``; ``make
install`` installs it); they are imported only when the server starts.
"""
from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablebases import MissingTableError, open_tablebase
from tablebases.format import CorruptTableError
from tablebases.probe import Tablebase, TableValue
from xiangqi import Board, FenError, Move
from xiangqi.notation import write_move

from ..settings import Settings, SettingsError

if TYPE_CHECKING:
    import uvicorn
    from starlette.applications import Starlette

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 9000
DEFAULT_CACHE = 10_000
CATEGORIES = {2: "win", 1: "cursed-win", 0: "draw", -1: "blessed-loss", -2: "loss"}
EXTRA_HINT = "pip install 'xqstudio[web]' (make install does it)"


def uci_square(point: int) -> str:
    return "abcdefghi"[point % 9] + str(point // 9 + 1)


def uci_move(move: Move) -> str:
    """Fairy-Stockfish's spelling for xiangqi: ranks 1..10 (``h3e3`` is ICCS ``h2e2``)."""
    return uci_square(move.from_square) + uci_square(move.to_square)


def _signed(plies: int | None, wdl: int) -> int | None:
    if wdl == 0:
        return 0
    if plies is None:
        return None
    return plies if wdl > 0 else -plies


def value_fields(value: TableValue) -> dict[str, Any]:
    """The lichess-style fields of a value for its side to move."""
    return {"category": CATEGORIES[value.wdl],
            "dtm": _signed(value.dtm, value.wdl),
            "dtc": _signed(value.dtc, value.wdl),
            "dtc60": _signed(value.dtc60, value.wdl),
            "sixty_move_draw": abs(value.wdl) == 1,
            "must_stop_checking": value.must_stop_checking,
            "chase_sensitive": value.chase_sensitive}


def _over(board: Board) -> dict[str, Any]:
    """The fields of a position without a legal move: lost for the side to move (a
    stalemate, 困毙, loses too)."""
    check = board.is_check()
    return {"category": "loss", "dtm": 0, "dtc": 0, "dtc60": 0, "sixty_move_draw": False,
            "must_stop_checking": False, "chase_sensitive": False,
            "checkmate": check, "stalemate": not check}


def position_document(tablebase: Tablebase, board: Board) -> dict[str, Any]:
    """The answer for ``board`` (raises MissingTableError, CorruptTableError)."""
    document: dict[str, Any] = {"fen": board.fen()}
    if not board.has_legal_move():
        return {**document, **_over(board), "moves": []}
    value = tablebase.probe(board)
    document.update(value_fields(value), checkmate=False, stalemate=False)
    moves = []
    for item in tablebase.ranked_moves(board):
        move = item.move
        entry: dict[str, Any] = {"uci": uci_move(move), "iccs": move.iccs(),
                                 "chinese": write_move(board, move, "chinese"),
                                 "wxf": write_move(board, move, "wxf"),
                                 "zeroing": board.is_capture(move),
                                 "forbidden": item.forbidden}
        after = item.after
        assert after is not None                  # ranked_moves probed it
        if after.wdl < 0 and after.dtm == 0:      # no move left there: mate or 困毙
            board.push_unchecked(move)
            try:
                entry.update(_over(board))
            finally:
                board.pop()
        else:
            entry.update(value_fields(after), checkmate=False, stalemate=False)
        moves.append(entry)
    document["moves"] = moves
    return document


class TablebaseService:
    """The answers of one table directory, safe to call from many threads at once.

    The tables are opened once (``Tablebase`` keeps each file open with its decoded blocks)
    and read under one lock: a table file is read with seek and read, which two threads
    must not interleave, and the work is Python holding the GIL anyway.  Finished answers
    are kept in an LRU of ``cache_size`` documents (0: none)."""

    def __init__(self, directory: Path | str, cache_size: int = DEFAULT_CACHE) -> None:
        self.directory = Path(directory)
        self.tablebase = open_tablebase(self.directory)
        self.cache_size = cache_size
        self._cache: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self.tablebase.close()

    def query(self, fen: str | None) -> tuple[int, bytes]:
        """(HTTP status, JSON body) for the ``fen`` query parameter."""
        if fen is None or not fen.strip():
            return 400, _json({"error": "missing query parameter 'fen' (e.g. /xiangqi?fen="
                                        "3k5/9/9/9/9/9/9/9/9/R3K4_w)"})
        text = " ".join(fen.replace("_", " ").split())
        try:
            board = Board(text)
        except FenError as error:
            return 400, _json({"error": f"invalid FEN: {error}", "fen": text})
        key = board.fen()
        with self._lock:
            body = self._cache.get(key)
            if body is not None:
                self._cache.move_to_end(key)
                return 200, body
            try:
                body = _json(position_document(self.tablebase, board))
            except MissingTableError as error:
                # The server's own paths are not the client's business.
                message = error.user_text().replace(f" in {self.directory}", "").replace(
                    f" --tables {self.directory}", "")
                return 404, _json({"error": message, "fen": key})
            except CorruptTableError as error:
                # The server's fault, not the query's; it may be rebuilt: 503, not 500.
                return 503, _json({"error": f"damaged table {error.path.name} on the server "
                                            f"({error.problem} at offset {error.offset})",
                                   "fen": key})
            if self.cache_size:
                self._cache[key] = body
                if len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return 200, body

    def index(self) -> bytes:
        with self._lock:
            tables = self.tablebase.materials()
        return _json({"endpoints": {"/xiangqi?fen=FEN": "the value of a position and of every "
                                                        "move (lichess tablebase style)"},
                      "tables": tables})


def _json(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode("utf-8")


def missing_extra() -> str | None:
    """None if Starlette and uvicorn can be imported, else the message naming the extra."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as error:
        return f"tb serve needs the 'web' extra ({error.name} is not installed): {EXTRA_HINT}"
    return None


def create_app(service: TablebaseService) -> Starlette:
    """The Starlette application of ``service`` (imports Starlette)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    headers = {"Access-Control-Allow-Origin": "*"}

    async def xiangqi(request: Request) -> Response:
        status, body = await run_in_threadpool(service.query, request.query_params.get("fen"))
        return Response(body, status, headers, media_type="application/json")

    async def index(request: Request) -> Response:
        return Response(service.index(), 200, headers, media_type="application/json")

    async def not_served(request: Request, error: Exception) -> Response:
        # Starlette answers an unknown path or method in plain text: a client of a JSON API
        # gets JSON whatever it asked.
        status = getattr(error, "status_code", 500)
        what = {404: f"no such endpoint {request.url.path!r}: use /xiangqi?fen=FEN or /",
                405: f"method {request.method} not allowed: use GET"}.get(status,
                                                                       "internal error")
        return Response(_json({"error": what}), status, headers, media_type="application/json")

    return Starlette(routes=[Route("/xiangqi", xiangqi), Route("/", index)],
                     exception_handlers={404: not_served, 405: not_served})


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (0: a free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named: asyncio sets TCP_NODELAY on the connections only then, and without
    # it a keep-alive client waits 40 ms a response (Nagle against delayed ACKs).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def make_server(service: TablebaseService, sock: socket.socket,
                access_log: bool = False) -> uvicorn.Server:
    """A uvicorn server for ``service`` on ``sock``: ``server.run(sockets=[sock])`` serves
    until ``server.should_exit`` is set (or SIGINT/SIGTERM in the main thread)."""
    import uvicorn

    config = uvicorn.Config(create_app(service), log_level="info" if access_log else "warning",
                            access_log=access_log, lifespan="off")
    return uvicorn.Server(config)


def cmd_serve(args: argparse.Namespace) -> int:
    problem = missing_extra()
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    try:
        tables = Settings.from_arguments(args).existing_tables()
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    try:
        sock = bind(args.host, args.port)
    except OSError as error:
        print(f"error: cannot listen on {args.host}:{args.port}: {error.strerror or error}",
              file=sys.stderr)
        return 1
    service = TablebaseService(tables, args.cache)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"serving the tables of {tables} ({len(service.tablebase.materials())} tables) "
          f"on http://{shown}:{port}/xiangqi?fen=FEN (Ctrl-C stops)", file=sys.stderr,
          flush=True)
    server = make_server(service, sock, args.access_log)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        service.close()
    return 0


def register_serve(actions: argparse._SubParsersAction[Any]) -> None:
    """Add ``serve`` to the ``tb`` group (``actions``: its ACTION subparsers)."""
    from tablebases.cli import add_tables_option
    from xiangqi.cli import whole_number

    serve = actions.add_parser(
        "serve", help="answer GET /xiangqi?fen=FEN over HTTP in the lichess tablebase JSON "
                      "shape (needs the web extra)")
    add_tables_option(serve)
    serve.add_argument("--host", default=DEFAULT_HOST,
                       help=f"address to listen on (default {DEFAULT_HOST})")
    serve.add_argument("--port", type=whole_number(0, 65535), default=DEFAULT_PORT,
                       help=f"port (default {DEFAULT_PORT}; 0: a free one, printed at start)")
    serve.add_argument("--cache", type=whole_number(0), default=DEFAULT_CACHE, metavar="N",
                       help=f"answers kept in memory (default {DEFAULT_CACHE:,}; 0: none)")
    serve.add_argument("--access-log", action="store_true", help="log every request")
    serve.set_defaults(handler=cmd_serve)
