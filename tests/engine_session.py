"""``xqstudio engine`` over pipes, as a GUI drives it (this tree's code): the session that
``test_engine.py`` and ``test_engine_commands.py`` share."""
from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class EngineSession:
    """An engine subprocess: :meth:`send` commands, :meth:`until` a reply line."""

    reply_seconds = 30.0

    def __init__(self, *arguments: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get(
            "PYTHONPATH", ""))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tui.cli", "engine", *arguments], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
            bufsize=1, cwd=ROOT, env=env)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.transcript: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        try:
            for line in self.process.stdout:
                self.lines.put(line.rstrip("\n"))
        except ValueError:          # the test closed the pipe (a GUI that went away)
            pass
        self.lines.put(None)

    def send(self, *commands: str) -> None:
        assert self.process.stdin is not None
        for command in commands:
            self.transcript.append(f"> {command}")
            self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def matches(self, line: str, wanted: str) -> bool:
        """Whether ``line`` is the reply :meth:`until` waits for (here: it starts with
        ``wanted``)."""
        return line.startswith(wanted)

    def until(self, wanted: str, timeout: float | None = None) -> list[str]:
        """The lines up to and including the first that :meth:`matches` ``wanted``."""
        timeout = self.reply_seconds if timeout is None else timeout
        got: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {wanted!r} within {timeout} s; transcript:\n"
                                     + "\n".join(self.transcript + got)) from None
            if line is None:
                assert self.process.stderr is not None
                raise AssertionError(f"the engine exited before {wanted!r}:\n"
                                     + "\n".join(self.transcript + got)
                                     + self.process.stderr.read())
            self.transcript.append(f"< {line}")
            got.append(line)
            if self.matches(line, wanted):
                return got
