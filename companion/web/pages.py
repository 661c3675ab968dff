"""The HTML pages. Each is a thin template; the page's script fills it from the JSON API
and keeps it live over SSE, so a page and the API can never disagree."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

bp = Blueprint("pages", __name__)

PAGES = (
    ("table", "/", "Table"),
    ("played", "/played", "Played cards"),
    ("confirm", "/confirm", "Confirm"),
    ("setup", "/setup", "Setup"),
    ("scoreboard", "/scoreboard", "Scoreboard"),
    ("learn", "/learn", "Learn"),
    ("enroll", "/enroll", "Enrol a deck"),
    ("manual", "/manual", "Manual play"),
)


def _page(name: str):
    def view():
        return render_template(f"{name}.html", page=name, pages=PAGES,
                               join_url=current_app.config.get("JOIN_URL"))
    view.__name__ = name
    return view


for _name, _path, _title in PAGES:
    bp.add_url_rule(_path, _name, _page(_name))
