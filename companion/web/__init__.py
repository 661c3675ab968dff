"""The dashboard: a Flask app factory, its blueprints, and the table runtime they share.

``create_app(config)`` opens the store, rebuilds the current game from it, and (when
``SOURCE`` is set) starts the one capture-and-referee thread of the table; every browser
shares that thread through the :class:`~companion.web.table.TableSession` (SSE) and the
:class:`~companion.web.capture.FrameHub` (MJPEG).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from companion.store import Store
from companion.web.capture import CaptureThread, FrameHub
from companion.web.draft import Draft
from companion.web.table import TableSession

MAX_UPLOAD_BYTES = 4 * 1024 * 1024


@dataclass
class Runtime:
    store: Store
    table: TableSession
    hub: FrameHub
    draft: Draft
    capture: CaptureThread | None = None

    def stop(self) -> None:
        if self.capture is not None:
            self.capture.stop()
            self.capture.join(timeout=3)


def runtime() -> Runtime:
    return current_app.extensions["companion"]


DEFAULTS: dict[str, Any] = {
    "DATABASE": ":memory:",
    "SOURCE": None,  # None: no capture thread (tests, manual play only)
    "JOIN_TOKEN": None,  # set with --lan: every request must carry it
    "DEMO_SEED": 7,
    "DEMO_SPEED": 1.0,  # the demo replays this many times faster than real time
    "MAX_CONTENT_LENGTH": MAX_UPLOAD_BYTES,
    "MJPEG_FPS": 12,  # frames a second sent to each live-view viewer
    "SESSION_TITLE": "Game night",
    "PROFILES_DIR": "profiles",  # deck profiles enrolled on the dashboard (as `companion enroll`)
}


def create_app(config: dict[str, Any] | None = None) -> Flask:
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    store = Store(app.config["DATABASE"])
    source = app.config["SOURCE"]
    table = TableSession(store, title=app.config["SESSION_TITLE"], source=str(source or ""))
    hub = FrameHub()
    rt = Runtime(store, table, hub, Draft.load(app.config["PROFILES_DIR"]))
    table.draft = rt.draft
    if source is not None:
        from companion.web.feeds import open_feed
        seed, speed = app.config["DEMO_SEED"], app.config["DEMO_SPEED"]
        rt.capture = CaptureThread(table, hub, lambda: open_feed(str(source), seed, speed),
                                   loop=(str(source) in ("demo", "replay")),
                                   profiles_dir=app.config["PROFILES_DIR"], draft=rt.draft)
        rt.capture.start()
    else:
        table.set_camera(ok=False, text="no camera: manual play and uploads only")
    app.extensions["companion"] = rt

    from companion.web import api, enroll, media, pages
    app.register_blueprint(pages.bp)
    app.register_blueprint(enroll.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(media.bp)
    _install_join_token(app)
    _install_error_pages(app)
    return app


def _install_join_token(app: Flask) -> None:
    @app.before_request
    def require_token():
        token = app.config.get("JOIN_TOKEN")
        if not token:
            return None
        given = request.args.get("token") or request.cookies.get("join_token") or ""
        if hmac.compare_digest(given.encode(), str(token).encode()):
            return None
        if request.path.startswith("/api/") or request.path.endswith((".mjpg", ".jpg")):
            return jsonify(error="this table needs its join link (ask the host for the QR "
                                 "code)"), 403
        return render_template("error.html", code=403,
                               message="This table needs its join link: scan the QR code "
                                       "on the host's screen."), 403

    @app.after_request
    def remember_token(response):
        token = app.config.get("JOIN_TOKEN")
        if token and request.args.get("token") == token:
            response.set_cookie("join_token", token, httponly=True, samesite="Strict")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response


def _install_error_pages(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException):
        if request.path.startswith("/api/") or request.accept_mimetypes.best == \
                "application/json":
            return jsonify(error=e.description, status=e.code), e.code
        return render_template("error.html", code=e.code, message=e.description), e.code
