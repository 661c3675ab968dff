"""Table layouts as data: the printed mat and each game's zones, in table millimetres.

The files live in ``calibration/`` (``mat.json``, ``layouts/<game>.json``) and are shared
by the mat printer, the scene renderer, the vision pipeline and the dashboard.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from companion.games.base import seat_name

CALIBRATION_DIR = Path(__file__).resolve().parent.parent / "calibration"


class LayoutError(ValueError):
    pass


@dataclass(frozen=True)
class Marker:
    id: int
    center_mm: tuple[float, float]


@dataclass(frozen=True)
class Mat:
    name: str
    size_mm: tuple[float, float]
    dictionary: str  # a cv2.aruco predefined dictionary name, e.g. DICT_4X4_50
    marker_size_mm: float
    markers: tuple[Marker, ...]
    card_diameter_mm: float

    def marker_corners_mm(self, marker: Marker) -> tuple[tuple[float, float], ...]:
        """Corners in cv2.aruco order: top-left, top-right, bottom-right, bottom-left."""
        h = self.marker_size_mm / 2
        x, y = marker.center_mm
        return ((x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h))


_SEAT_PLACES = {"deni": "Deni spot", "won": "won pile", "discard": "discard pile"}


@dataclass(frozen=True)
class Zone:
    id: str  # "pos1".."pos7", "stock", "play0", "deni2", "won1", ...
    kind: str  # ring, centre, stock, discard, play, deni, won, hand, build, work, pile
    label: str
    center_mm: tuple[float, float]
    seat: int | None = None
    # how far from the centre a card still lies on this zone, where it holds cards side by
    # side (a Sama hand's three, 40 mm apart, lie 45-50 mm out); None: the tracker's radius
    reach_mm: float | None = None


@dataclass(frozen=True)
class Layout:
    game: str
    mat: str
    zones: tuple[Zone, ...]
    doc: str = ""

    def zone(self, zone_id: str) -> Zone:
        for z in self.zones:
            if z.id == zone_id:
                return z
        raise LayoutError(f"layout {self.game!r} has no zone {zone_id!r}; "
                          f"zones: {', '.join(z.id for z in self.zones)}")

    def place(self, zone_id: str | None) -> str:
        """A zone in the players' words, for questions and notes: "Player 1's play spot",
        "Position 3", "the stock". The zone's id (``play0``) means nothing to them."""
        z = next((z for z in self.zones if z.id == zone_id), None)
        if z is None:
            return zone_id or "the table"
        if z.seat is not None:
            return f"{seat_name(z.seat)}'s {_SEAT_PLACES.get(z.kind, z.kind + ' spot')}"
        if z.kind in ("ring", "centre"):
            return f"Position {z.label}"
        if z.kind == "stock":
            return "the stock"
        if z.kind == "discard":
            return f"the {z.label.lower()} pile"
        return f"{z.kind} pile {z.label}"

    def zone_at(self, x_mm: float, y_mm: float, radius_mm: float) -> Zone | None:
        """The zone whose centre is nearest to (x, y), if within ``radius_mm`` (or the
        zone's own ``reach_mm``)."""
        best, best_d = None, math.inf
        for z in self.zones:
            d = math.dist(z.center_mm, (x_mm, y_mm))
            if d <= (z.reach_mm or radius_mm) and d < best_d:
                best, best_d = z, d
        return best


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise LayoutError(f"no such layout file: {path}") from None
    except json.JSONDecodeError as e:
        raise LayoutError(f"{path} is not valid JSON: {e}") from None


def load_mat(name: str = "a2-landscape", directory: Path = CALIBRATION_DIR) -> Mat:
    d = _read(directory / "mat.json")
    if d.get("name") != name:
        raise LayoutError(f"mat {name!r} not found in {directory / 'mat.json'}")
    return Mat(d["name"], tuple(d["size_mm"]), d["dictionary"], float(d["marker_size_mm"]),
               tuple(Marker(m["id"], tuple(m["center_mm"])) for m in d["markers"]),
               float(d["card_diameter_mm"]))


def available_layouts(directory: Path = CALIBRATION_DIR) -> list[str]:
    return sorted(p.stem for p in (directory / "layouts").glob("*.json"))


def load_layout(game: str, directory: Path = CALIBRATION_DIR) -> Layout:
    path = directory / "layouts" / f"{game}.json"
    if not path.exists():
        raise LayoutError(f"no zone layout for game {game!r}; layouts: "
                          f"{', '.join(available_layouts(directory))}")
    d = _read(path)
    zones = tuple(Zone(z["id"], z["kind"], z.get("label", z["id"]), tuple(z["center_mm"]),
                       z.get("seat"), z.get("reach_mm")) for z in d["zones"])
    return Layout(d["game"], d["mat"], zones, d.get("doc", ""))
