"""Where tables live by default: ``$XQSTUDIO_TABLES``, else
``~/.local/share/xqstudio/tablebases``."""
import os
from pathlib import Path


def default_directory() -> Path:
    configured = os.environ.get("XQSTUDIO_TABLES")
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".local" / "share" / "xqstudio" / "tablebases"
