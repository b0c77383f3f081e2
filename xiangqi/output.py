"""Writing output files: atomically, and through the optional extras (``.[diagrams]``,
``.[pdf]``, ...) that the core install leaves out.

>>> require("json", "diagrams").__name__
'json'
>>> require("no_such_module_xq", "diagrams")
Traceback (most recent call last):
...
xiangqi.output.MissingExtraError: no_such_module_xq is not installed: it comes with the \
'diagrams' extra (pip install -e '.[diagrams]', or make install)
"""
from __future__ import annotations

import importlib
import os
import secrets
import stat
from types import ModuleType
from typing import Any

JsonObject = dict[str, Any]
"""A JSON object as :func:`json.loads` reads it back or :func:`json.dumps` writes it: the
standard library types its values as Any, and ours hold numbers, strings, flags, lists and
objects by key (a table header's figures, a build's timings, a command's JSON report)."""


class MissingExtraError(ImportError):
    """An optional dependency is missing; the message names the extra that brings it."""


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` of the optional ``extra``, or raise :class:`MissingExtraError`
    saying how to install it (imported only when used, so the core install stays small)."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        if error.name is not None and error.name != module.split(".")[0] \
                and not module.startswith(error.name):
            raise               # the module is there but something it needs is broken
        raise MissingExtraError(
            f"{module} is not installed: it comes with the {extra!r} extra "
            f"(pip install -e '.[{extra}]', or make install)") from None


class UnwritableError(OSError):
    """A file that cannot be created where the user asked: ``reason`` says why in words
    (``there is no directory D``, ``permission denied``)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"cannot write {path}: {reason}")
        self.path, self.reason = path, reason

    def __str__(self) -> str:
        return f"cannot write {self.path}: {self.reason}"


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a new file beside ``path`` (mode as ``path`` has, or as the umask
    gives), then rename it over ``path``: a reader never sees a half-written file."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        temporary = os.path.join(folder, f".{os.path.basename(path)}."
                                         f"{secrets.token_hex(4)}.tmp")
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
        except OSError as error:
            # The user named ``path``, not the temporary file: say what is wrong with it.
            reason = f"there is no directory {os.path.dirname(path) or '.'}" \
                if not os.path.isdir(folder) else (error.strerror or str(error)).lower()
            raise UnwritableError(path, reason) from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.chmod(temporary, stat.S_IMODE(os.stat(path).st_mode))
        except FileNotFoundError:
            pass
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
