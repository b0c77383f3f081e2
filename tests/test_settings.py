"""``tui.settings.Settings``: the directories the studio and the front ends use, resolved once
from the command line, else the environment, else the defaults."""
from __future__ import annotations

from pathlib import Path

import pytest

from tui.cli import build_parser
from tui.settings import Settings, SettingsError


def test_the_environment_wins_over_the_home_defaults(tmp_path, monkeypatch):
    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path / "tables"))
    monkeypatch.setenv("XQSTUDIO_CATALOGUE", str(tmp_path / "catalogue.sqlite"))
    monkeypatch.setenv("XQSTUDIO_DIAGRAMS", str(tmp_path / "diagrams"))
    assert Settings.resolve() == Settings(tables=tmp_path / "tables",
                                          catalogue=tmp_path / "catalogue.sqlite",
                                          diagrams=tmp_path / "diagrams")


def test_without_the_environment_the_home_directory_and_the_current_one(tmp_path, monkeypatch):
    for name in ("XQSTUDIO_TABLES", "XQSTUDIO_CATALOGUE", "XQSTUDIO_DIAGRAMS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    settings = Settings.resolve()
    share = tmp_path / ".local" / "share" / "xqstudio"
    assert settings.tables == share / "tablebases"
    assert settings.catalogue == share / "catalogue.sqlite"
    assert settings.diagrams == tmp_path


@pytest.mark.parametrize("command", [["studio"], ["engine"], ["tb", "serve"]])
def test_the_tables_flag_wins_over_the_environment(command, tmp_path, monkeypatch):
    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path / "from-the-environment"))
    flagged = tmp_path / "from-the-flag"
    given = build_parser().parse_args([*command, "--tables", str(flagged)])
    assert Settings.from_arguments(given).tables == flagged
    # Without the flag, every front end gets the same directory: the environment's.
    default = build_parser().parse_args(command)
    assert Settings.from_arguments(default).tables == tmp_path / "from-the-environment"


def test_a_missing_table_directory_is_named_with_the_command_that_fills_it(tmp_path):
    settings = Settings.resolve(tables=tmp_path / "nowhere")
    with pytest.raises(SettingsError, match=r"no table directory .*nowhere \(build tables "
                                            r"with: xqstudio tb build MATERIAL\)"):
        settings.existing_tables()
    (tmp_path / "nowhere").mkdir()
    assert settings.existing_tables() == tmp_path / "nowhere"


def test_settings_cannot_be_changed_once_resolved(tmp_path):
    settings = Settings.resolve(tables=tmp_path)
    with pytest.raises(AttributeError):
        settings.tables = Path("elsewhere")          # type: ignore[misc]


def test_the_studio_and_the_engine_are_handed_the_settings(tmp_path, monkeypatch):
    """No front end looks at the environment once it has its settings: changing it after
    they are made changes nothing."""
    import io

    from tui.app import XQStudioApp
    from tui.frontends.engine import Engine

    settings = Settings.resolve(tables=tmp_path / "tables", catalogue=tmp_path / "c.sqlite",
                                diagrams=tmp_path)
    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path / "other"))
    assert XQStudioApp(settings=settings).settings is settings
    assert Engine(io.StringIO(), "uci", settings).tables == tmp_path / "tables"


def test_tb_serve_refuses_a_missing_table_directory_before_listening(tmp_path, capsys):
    pytest.importorskip("starlette", reason="the web extra is not installed")
    pytest.importorskip("uvicorn", reason="the web extra is not installed")
    from tui.cli import main

    missing = tmp_path / "nowhere"
    assert main(["tb", "serve", "--tables", str(missing), "--port", "0"]) == 1
    assert capsys.readouterr().err == (f"error: no table directory {missing} (build tables "
                                       "with: xqstudio tb build MATERIAL)\n")


def test_the_front_ends_and_the_settings_load_no_textual():
    """A GUI's engine process and the HTTP server start without the studio's app: neither
    they nor the settings they are handed import Textual."""
    import subprocess
    import sys

    code = ("import sys, tui.cli, tui.frontends.engine, tui.frontends.web, tui.settings; "
            "print(sorted(name for name in sys.modules if name.split('.')[0] == 'textual'))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout
    assert loaded.strip() == "[]"
