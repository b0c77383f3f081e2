"""Where the catalogue lives: ``$XQSTUDIO_CATALOGUE``, else
``~/.local/share/xqstudio/catalogue.sqlite``; its source text files are in ``puzzles/data``."""
import os
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"


def default_database() -> Path:
    configured = os.environ.get("XQSTUDIO_CATALOGUE")
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".local" / "share" / "xqstudio" / "catalogue.sqlite"
