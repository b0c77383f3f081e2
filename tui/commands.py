"""The studio's commands in Textual's command palette (ctrl+p).

Each :class:`StudioCommand` names an action: ``app.<name>`` runs ``XQStudioApp.action_<name>``,
``screen.<name>`` runs ``action_<name>`` of the screen under the palette and is offered only
when that screen has it.  A new feature registers its commands by appending to
:data:`STUDIO_COMMANDS` when its module is imported, e.g.::

    STUDIO_COMMANDS.append(StudioCommand("Probe tablebase", "Rank every move", "screen.probe"))
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

from solver.search import DEFAULT_SEARCH_SECONDS


@dataclass(frozen=True)
class StudioCommand:
    title: str
    help: str
    action: str       # "app.<name>" or "screen.<name>"

    def target(self, provider: Provider) -> DOMNode | None:
        """The node that runs the action, or None when it is not available now."""
        namespace, _, name = self.action.partition(".")
        node = provider.app if namespace == "app" else provider.screen
        return node if callable(getattr(node, f"action_{name}", None)) else None


STUDIO_COMMANDS: list[StudioCommand] = [
    StudioCommand("Browse the catalogue", "Kill patterns and compositions (F2)",
                  "app.browse_catalogue"),
    StudioCommand("Practise this position",
                  "Play the attacker's forced mate against the best defence (F4)",
                  "app.practise_position"),
    StudioCommand("New game", "Analyse the start position", "app.new_game"),
    StudioCommand("Set up position", "Open the set-up editor on the position shown",
                  "app.set_up_position"),
    StudioCommand("Paste FEN", "Open a position from a FEN", "app.paste_fen"),
    StudioCommand("Flip board", "Put the other side at the bottom", "screen.flip_board"),
    StudioCommand("Switch notation", "Chinese, WXF, ICCS, 一字三码", "screen.cycle_notation"),
    StudioCommand("Export FEN", "Copy the position shown to the clipboard (c)",
                  "screen.copy_fen"),
    StudioCommand("Export moves", "Copy the move list to the clipboard (m)",
                  "screen.copy_moves"),
    StudioCommand("Export diagram", "Write the position shown as an SVG diagram and say where "
                  "(d)", "screen.export_diagram"),
    StudioCommand("Take back", "Take back the last move", "screen.take_back"),
    StudioCommand("Solve", "Prove the shortest mate for the side to move (Solver panel, s)",
                  "screen.solve"),
    StudioCommand("Verify", "Soundness of the problem: key, cooks, tries, duals (v)",
                  "screen.verify"),
    StudioCommand("Switch solver mode",
                  "Continuous check (连照), any moves or a draw study (和) (t)",
                  "screen.solver_mode"),
    StudioCommand("Solver bound", "Set the max moves of the next search (empty: the mode's "
                  "bound)", "screen.solver_bound"),
    StudioCommand("Solver budget", "Set the seconds of the next search (empty: "
                  f"{DEFAULT_SEARCH_SECONDS:g}; 0: no limit)", "screen.solver_budget"),
    StudioCommand("Build table", "Build the missing tablebase of this material (B)",
                  "screen.build_table"),
    StudioCommand("DTM histogram", "Show or hide the material's DTM histogram (h)",
                  "screen.toggle_histogram"),
    StudioCommand("Switch repetition rules", "Chinese or Asian rules (r)", "screen.cycle_rules"),
    StudioCommand("Zoom panel", "The side panel over the whole screen, or back (z)",
                  "screen.zoom_panel"),
    StudioCommand("Help", "Every key binding", "app.show_help"),
]


class StudioCommands(Provider):
    """Offers the :data:`STUDIO_COMMANDS` available on the current screen."""

    def _available(self) -> list[tuple[StudioCommand, DOMNode]]:
        pairs = [(command, command.target(self)) for command in STUDIO_COMMANDS]
        return [(command, node) for command, node in pairs if node is not None]

    def _runner(self, command: StudioCommand, node: DOMNode) -> Callable[[], Awaitable[object]]:
        return partial(self.app.run_action, command.action.partition(".")[2], node)

    async def discover(self) -> Hits:
        for command, node in self._available():
            yield DiscoveryHit(command.title, self._runner(command, node), help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command, node in self._available():
            score = matcher.match(command.title)
            if score > 0:
                yield Hit(score, matcher.highlight(command.title), self._runner(command, node),
                          text=command.title, help=command.help)
