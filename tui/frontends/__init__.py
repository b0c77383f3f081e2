"""The front ends for other programs: ``engine`` (``xqstudio engine``, UCI/UCCI for GUIs) and
``web`` (``xqstudio tb serve``, the tables over HTTP).  They take a :class:`tui.settings.Settings`
like the studio does, and import no Textual: a GUI's engine process or a server starts
without loading the app."""
