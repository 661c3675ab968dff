"""`companion/games` imports nothing but `companion.cards`, its own modules and the stdlib."""

import ast
import sys
from pathlib import Path

GAMES = Path(__file__).resolve().parents[2] / "companion" / "games"
ALLOWED_PROJECT = ("companion.cards", "companion.games")


def _imports(path: Path):
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import inside the package
                yield "companion.games"
            else:
                yield node.module or ""


def test_games_import_only_cards_and_stdlib():
    files = sorted(GAMES.glob("*.py"))
    assert files, "no game modules found"
    bad = []
    for path in files:
        for name in _imports(path):
            top = name.split(".")[0]
            if name.startswith(ALLOWED_PROJECT) or top == "__future__":
                continue
            if top in sys.stdlib_module_names:
                continue
            bad.append(f"{path.name}: {name}")
    assert not bad, "forbidden imports in companion/games: " + ", ".join(bad)


def test_the_checker_catches_a_forbidden_import(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("import numpy\nfrom companion.vision import detect\nimport json\n")
    names = list(_imports(f))
    assert [n for n in names if not (n.startswith(ALLOWED_PROJECT)
                                     or n.split('.')[0] in sys.stdlib_module_names)] == [
        "numpy", "companion.vision"]
