"""Printable diagrams (``xiangqi.svg``, ``xqstudio position diagram``): the SVG parsed and
checked piece by piece, the PNG checked by its pixels at the points the board geometry gives."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from tui.cli import main
from xiangqi import Board, svg
from xiangqi.output import MissingExtraError
from xiangqi.pieces import parse_square

NS = {"svg": "http://www.w3.org/2000/svg"}
# Red: 帅 e0, 车 a0; Black: 将 d9, 卒 c5 — a position with few pieces, all distinct.
FEN = "3k5/9/9/9/2p6/9/9/9/9/R3K4 w - - 0 1"


def parse(document: str) -> ET.Element:
    return ET.fromstring(document.encode("utf-8"))


def pieces(root: ET.Element) -> dict[str, tuple[str, str, float, float, str]]:
    """square -> (FEN letter, character, disc centre x, y, the disc's rim colour)."""
    found = {}
    for group in root.iterfind(".//svg:g", NS):
        if "piece" not in group.get("class", "").split():
            continue
        circles = group.findall("svg:circle", NS)
        disc = next(c for c in circles if c.get("fill") == svg.PIECE_FACE)
        text = group.find("svg:text", NS)
        assert text is not None
        found[group.get("data-square")] = (group.get("data-piece"), text.text,
                                           float(disc.get("cx")), float(disc.get("cy")),
                                           disc.get("stroke"))
    return found


def texts(root: ET.Element, css_class: str) -> list[ET.Element]:
    return [t for group in root.iterfind(".//svg:g", NS)
            if css_class in group.get("class", "").split()
            for t in group.iterfind(".//svg:text", NS)]


def left_to_right(items: list[ET.Element]) -> str:
    return "".join(t.text or "" for t in sorted(items, key=lambda t: float(t.get("x", 0))))


def test_every_piece_of_the_start_position_with_its_character_colour_and_point():
    root = parse(svg.board(Board()))
    found = pieces(root)
    assert len(found) == 32
    assert found["e0"][:2] == ("K", "帅") and found["e9"][:2] == ("k", "将")
    red = "".join(sorted(ch for letter, ch, *_ in found.values() if letter.isupper()))
    black = "".join(sorted(ch for letter, ch, *_ in found.values() if letter.islower()))
    assert set(red) == set("帅仕相马车炮兵") and set(black) == set("将士象马车炮卒")
    for name, (letter, _, x, y, rim) in found.items():
        assert (x, y) == svg.point_xy(parse_square(name))
        assert rim == svg.COLORS[0 if letter.isupper() else 1]
    # Red at the bottom: e0 below e9, a0 left of i0.
    assert found["e0"][3] > found["e9"][3] and found["a0"][2] < found["i0"][2]


def test_river_file_numbers_title_and_fonts():
    root = parse(svg.board(Board(FEN), title="第1局 七星聚会"))
    assert [t.text for t in texts(root, "river")] == ["楚", "河", "汉", "界"]
    numbers = texts(root, "file-numbers")
    red = [t for t in numbers if "red" in t.get("class", "")]
    black = [t for t in numbers if "black" in t.get("class", "")]
    assert left_to_right(red) == "九八七六五四三二一" and left_to_right(black) == "123456789"
    assert min(float(t.get("y")) for t in red) > max(float(t.get("y")) for t in black)
    assert [t.text for t in root.iterfind(".//svg:text", NS)
            if t.get("class") == "title"] == ["第1局 七星聚会"]
    families = root.get("font-family", "")
    assert "KaiTi" in families and "Noto Serif CJK SC" in families and families.endswith("serif")
    width, height = svg.size("第1局 七星聚会")
    assert (float(root.get("width")), float(root.get("height"))) == (width, height)


def test_flipped_board_puts_black_at_the_bottom_with_its_numbers():
    root = parse(svg.board(Board(FEN), flipped=True))
    found = pieces(root)
    assert found["d9"][3] > found["e0"][3]                  # 将 below 帅
    assert found["a0"][2] > found["e0"][2]                  # the a-file on the right
    assert (found["d9"][2], found["d9"][3]) == svg.point_xy(parse_square("d9"), flipped=True)
    numbers = texts(root, "file-numbers")
    black = [t for t in numbers if "black" in t.get("class", "")]
    red = [t for t in numbers if "red" in t.get("class", "")]
    assert left_to_right(black) == "987654321" and left_to_right(red) == "一二三四五六七八九"
    assert min(float(t.get("y")) for t in black) > max(float(t.get("y")) for t in red)


def test_marks_and_arrows_where_asked():
    arrows = svg.parse_arrows("a0a8, e0e1")
    root = parse(svg.board(Board(FEN), marks=svg.parse_marks("e4,d9"), arrows=arrows))
    marks = {g.get("data-square") for g in root.iterfind(".//svg:g", NS)
             if g.get("class") == "mark"}
    assert marks == {"e4", "d9"}
    drawn = [(g.get("data-from"), g.get("data-to")) for g in root.iterfind(".//svg:g", NS)
             if g.get("class") == "arrow"]
    assert drawn == [("a0", "a8"), ("e0", "e1")]
    # The arrow of a0a8 ends at a8's point (empty) and starts outside 车's disc on a0.
    group = next(g for g in root.iterfind(".//svg:g", NS) if g.get("data-from") == "a0")
    shaft, head = (path_points(p.get("d")) for p in group.findall("svg:path", NS))
    assert head[0] == pytest.approx(svg.point_xy(parse_square("a8")))
    a0_x, a0_y = svg.point_xy(parse_square("a0"))
    assert shaft[0] == pytest.approx((a0_x, a0_y - 0.47 * svg.UNIT))


def path_points(d: str) -> list[tuple[float, float]]:
    """The points of a path of M/L commands (``M45.0,580.8 L45.0,150.6``)."""
    return [tuple(map(float, pair.split(","))) for pair in re.findall(r"[\d.\-]+,[\d.\-]+", d)]


@pytest.mark.parametrize("bad", ["e4e4", "j0a1", "a0", "a0a1a2"])
def test_bad_arrows_are_refused(bad):
    with pytest.raises(svg.DiagramError, match="not an arrow"):
        svg.parse_arrows(bad)


def test_bad_marks_are_refused():
    with pytest.raises(svg.DiagramError, match="bad mark in 'e4,k1'"):
        svg.parse_marks("e4,k1")


# -- PNG -------------------------------------------------------------------------------------

def png_pixels(path, scale):
    from PIL import Image

    image = Image.open(path).convert("RGB")
    width, height = svg.size()
    assert image.size == (round(width * scale), round(height * scale))
    return image


def rim_pixel(image, point: int, scale: float, flipped: bool = False):
    """A pixel on the disc's rim, left of the point (the rim is 0.41..0.47 units out)."""
    x, y = svg.point_xy(point, flipped=flipped)
    return image.getpixel((round((x - 0.44 * svg.UNIT) * scale), round(y * scale)))


def is_red(rgb) -> bool:
    r, g, b = rgb
    return r > 150 and g < 90 and b < 90


def is_dark(rgb) -> bool:
    return max(rgb) < 80


def test_png_has_a_red_disc_where_the_red_king_stands_and_a_dark_one_for_black(tmp_path):
    path = tmp_path / "d.png"
    written = svg.save(path, Board(FEN), scale=1.5)
    assert written.format == "png" and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = png_pixels(path, 1.5)
    assert is_red(rim_pixel(image, parse_square("e0"), 1.5))        # 帅
    assert is_red(rim_pixel(image, parse_square("a0"), 1.5))        # 车
    assert is_dark(rim_pixel(image, parse_square("d9"), 1.5))       # 将
    assert is_dark(rim_pixel(image, parse_square("c5"), 1.5))       # 卒
    # An empty point has no disc: the board's colour there.
    assert not is_red(rim_pixel(image, parse_square("e4"), 1.5))
    assert not is_dark(rim_pixel(image, parse_square("e4"), 1.5))
    flipped = tmp_path / "f.png"
    svg.save(flipped, Board(FEN), scale=1.5, flipped=True)
    image = png_pixels(flipped, 1.5)
    assert is_red(rim_pixel(image, parse_square("e0"), 1.5, flipped=True))
    assert is_dark(rim_pixel(image, parse_square("d9"), 1.5, flipped=True))


@pytest.mark.skipif(svg.cairo_font_family() is None,
                    reason="no font with Chinese characters for cairo (make fonts)")
def test_png_letters_are_drawn_when_a_chinese_font_is_installed(tmp_path):
    path = tmp_path / "d.png"
    assert svg.save(path, Board(FEN)).warnings == ()
    image = png_pixels(path, 2.0)
    x, y = svg.point_xy(parse_square("e0"))
    # The letter 帅 inside the inner ring: red ink in the centre square of the disc.
    box = [(round((x + dx) * 2), round((y + dy) * 2)) for dx in range(-12, 13, 2)
           for dy in range(-12, 13, 2)]
    assert sum(is_red(image.getpixel(p)) for p in box) >= 8
    # The river's characters: dark ink between the river's banks under 楚.
    _, y4 = svg.point_xy(parse_square("b4"))
    river_x = svg.UNIT * (0.75 + 1.5)
    box = [(round((river_x + dx) * 2), round((y4 - 0.5 * svg.UNIT + dy) * 2))
           for dx in range(-14, 15, 2) for dy in range(-14, 15, 2)]
    assert sum(max(image.getpixel(p)) < 120 for p in box) >= 8


def test_png_without_a_chinese_font_warns(tmp_path, monkeypatch):
    monkeypatch.setattr(svg, "installed_chinese_families", lambda: ())
    written = svg.save(tmp_path / "d.png", Board(FEN))
    assert written.warnings == (svg.MISSING_FONT,) and "make fonts" in svg.MISSING_FONT


def test_pdf_diagram(tmp_path):
    path = tmp_path / "d.pdf"
    assert svg.save(path, Board(FEN)).format == "pdf"
    assert path.read_bytes().startswith(b"%PDF")


def test_missing_extra_is_named(uninstalled):
    uninstalled("drawsvg")
    with pytest.raises(MissingExtraError, match=r"drawsvg is not installed: .*'diagrams' extra"):
        svg.board(Board())


# -- the command line ------------------------------------------------------------------------

def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_position_diagram_writes_an_svg(capsys, tmp_path):
    path = tmp_path / "d.svg"
    status, out, _ = run(capsys, "position", "diagram", FEN, "-o", str(path), "--title", "例",
                         "--marks", "e4,e5", "--arrows", "a0a8,帅五进一")
    assert status == 0 and out.strip() == f"wrote {path} (svg)"
    root = ET.parse(path).getroot()
    assert set(pieces(root)) == {"e0", "a0", "d9", "c5"}
    assert [(g.get("data-from"), g.get("data-to")) for g in root.iterfind(".//svg:g", NS)
            if g.get("class") == "arrow"] == [("a0", "a8"), ("e0", "e1")]
    assert not list(tmp_path.glob(".*.tmp"))          # written through a temporary file


def test_diagram_spelling_and_json(capsys, tmp_path):
    path = tmp_path / "d.png"
    status, out, _ = run(capsys, "diagram", FEN, "-o", str(path), "--flip", "--json",
                         "--scale", "0.5")
    assert status == 0
    document = json.loads(out)
    assert document["file"] == str(path) and document["format"] == "png"
    assert document["fen"] == FEN and document["title"] is None
    assert path.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("argv, message", [
    (["position", "diagram", "9/9 w", "-o", "x.svg"], "invalid FEN"),
    (["position", "diagram", FEN, "-o", "x.gif"], "unknown diagram format 'gif'"),
    (["position", "diagram", FEN, "-o", "x.svg", "--arrows", "a0z9"],
     "not an arrow: 'a0z9'.*nor a legal move"),
    (["position", "diagram", FEN, "-o", "x.svg", "--marks", "e10"], "bad mark"),
])
def test_diagram_errors(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, *argv, "--json")
    assert status == 1
    assert re.search(message, json.loads(out)["error"])
    assert err.startswith("error: ") and not list(tmp_path.iterdir())


def test_diagram_scale_out_of_range_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["position", "diagram", FEN, "-o", "x.png", "--scale", "0"])
    assert stop.value.code == 2
    assert "--scale: must be from 0.1 to 20" in capsys.readouterr().err


def test_svg_is_the_same_through_save_and_board(tmp_path):
    path = tmp_path / "d.svg"
    svg.save(path, Board(FEN), title="t", marks=[4])
    assert path.read_text(encoding="utf-8") == svg.board(Board(FEN), title="t", marks=[4])


def test_a_missing_extra_is_named_by_the_command(capsys, tmp_path, uninstalled):
    uninstalled("cairosvg")
    status, out, err = run(capsys, "position", "diagram", FEN, "-o", str(tmp_path / "d.png"),
                           "--json")
    assert status == 1 and not list(tmp_path.iterdir())
    assert json.loads(out)["error"] == ("cairosvg is not installed: it comes with the 'diagrams' "
                                        "extra (pip install -e '.[diagrams]', or make install)")
    status, _, _ = run(capsys, "position", "diagram", FEN, "-o", str(tmp_path / "d.svg"))
    assert status == 0                                   # SVG needs drawsvg only
