"""Pilot helpers for the studio's tests: Textual apps run inside ``asyncio.run`` so the tests
need no asyncio plugin."""
from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

from puzzles.catalogue import open_catalogue
from tui.app import XQStudioApp

SIZE = (100, 32)


def run_headless(app: App, scenario: Callable[[Pilot], Awaitable[Any]], size=SIZE) -> Any:
    """Run ``app`` headless, play ``scenario`` with its pilot and return what it returns."""
    async def run() -> Any:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            return await scenario(pilot)
    return asyncio.run(run())


@pytest.fixture
def drive() -> Callable[..., Any]:
    """``drive(app, scenario, size=SIZE)``: see :func:`run_headless`."""
    return run_headless


def record_notifications(app: App) -> list[str]:
    """Keep the message of every notification ``app`` shows in the list returned."""
    messages: list[str] = []
    notify = app.notify

    def recording_notify(message: str, **options: Any) -> None:
        messages.append(message)
        notify(message, **options)

    app.notify = recording_notify
    return messages


@pytest.fixture
def studio() -> Callable[..., Any]:
    """``studio(scenario, fen=None, size=SIZE)``: run the studio in analyse mode on ``fen``
    through ``scenario``; the app's notifications are listed in ``app.notified``."""
    def run_studio(scenario, fen: str | None = None, size=SIZE) -> Any:
        app = XQStudioApp(fen, start_mode="analyse")
        app.notified = record_notifications(app)
        return run_headless(app, scenario, size)
    return run_studio


@pytest.fixture(scope="session")
def catalogue_path(shipped_catalogue):
    """The shipped catalogue, built once for the session's tests."""
    return shipped_catalogue


@pytest.fixture
def catalogue(catalogue_path, tmp_path, monkeypatch):
    """A fresh copy of the shipped catalogue (no progress recorded), which the studio opens
    too."""
    path = tmp_path / "catalogue.sqlite"
    shutil.copyfile(catalogue_path, path)
    monkeypatch.setenv("XQSTUDIO_CATALOGUE", str(path))
    db = open_catalogue(path)
    yield db
    db.close()
