"""Web verbs: `serve`, the dashboard."""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path

from companion.cli import UsageError


def default_db(demo: bool = False) -> Path:
    """The user's database; the demo keeps its own, so its rounds never reach the real
    evening's scoreboard."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "ganjifa-companion" / ("demo.db" if demo else "companion.db")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="the dashboard in the browser (live referee, scores, "
                                     "learning)")
    p.add_argument("--source", default="auto",
                   help="0 (a webcam index), a video FILE, demo (the vision pipeline on the "
                        "filmed games, in a loop) or replay (the filmed games' ground truth); "
                        "default: the webcam if one opens, else demo")
    p.add_argument("--host", default=None, help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=5000)
    p.add_argument("--lan", action="store_true",
                   help="share on the local network: binds all interfaces and requires a join "
                        "token (printed as a URL and a QR code)")
    p.add_argument("--db", default=None, help=f"SQLite database (default {default_db()}; "
                                              "the demo uses demo.db beside it)")
    p.add_argument("--title", default="Game night", help="name of a new session")
    p.add_argument("--open", action="store_true", help="open the dashboard in a browser")
    p.add_argument("--verbose", action="store_true", help="log every HTTP request")
    p.add_argument("--profiles-dir", default="profiles",
                   help="where the Enrol page saves deck profiles and Setup finds them "
                        "(default: profiles, as `companion enroll`)")
    p.add_argument("--demo-speed", type=float, default=1.0,
                   help="replay the demo this many times faster (default 1)")
    p.set_defaults(handler=_serve)


def _camera_opens(index: int = 0) -> bool:
    import cv2
    cap = cv2.VideoCapture(index)
    try:
        return bool(cap.isOpened()) and bool(cap.read()[0])
    finally:
        cap.release()


def resolve_source(spec: str) -> str:
    if spec == "auto":
        return "0" if _camera_opens() else "demo"
    if spec in ("demo", "replay") or spec.isdigit():
        return spec
    if not Path(spec).is_file():
        raise UsageError(f"--source {spec!r}: no such video file (or use 0 for a webcam, "
                         "or demo)")
    return spec


def _lan_address() -> str:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:  # no packet is sent: this only asks the kernel which interface routes outward
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def _serve(args: argparse.Namespace) -> int:
    import secrets

    from werkzeug.serving import make_server

    from companion.store import StoreError
    from companion.web import create_app

    if not 0 < args.port < 65536:
        raise UsageError(f"--port must be 1..65535, got {args.port}")
    source = resolve_source(args.source)
    host = args.host or ("0.0.0.0" if args.lan else "127.0.0.1")
    if not 0 < args.demo_speed <= 100:
        raise UsageError(f"--demo-speed must be above 0 and at most 100, got {args.demo_speed}")
    db = Path(args.db) if args.db else default_db(demo=source in ("demo", "replay"))
    config = {"DATABASE": str(db), "SOURCE": source,
              "SESSION_TITLE": args.title, "DEMO_SPEED": args.demo_speed,
              "PROFILES_DIR": args.profiles_dir}
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '127.0.0.1') else host}:{args.port}/"
    if args.lan:
        token = secrets.token_urlsafe(12)
        config["JOIN_TOKEN"] = token
        config["JOIN_URL"] = f"http://{_lan_address()}:{args.port}/?token={token}"
        url = f"http://127.0.0.1:{args.port}/?token={token}"
    try:
        app = create_app(config)
    except StoreError as e:
        raise UsageError(str(e)) from None
    if not args.verbose:
        import logging
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
    try:
        server = make_server(host, args.port, app, threaded=True)
    except OSError as e:
        raise UsageError(f"cannot listen on {host}:{args.port}: {e.strerror or e}") from None
    print(f"Ganjifa companion: {url}  (source: {source}, database: {config['DATABASE']})",
          flush=True)
    if args.lan:
        import segno
        print(f"Phones join with: {config['JOIN_URL']}")
        segno.make(config["JOIN_URL"], error="m").terminal(out=sys.stdout, compact=True)
        sys.stdout.flush()
    if args.open and (sys.platform in ("darwin", "win32") or os.environ.get("DISPLAY")
                      or os.environ.get("WAYLAND_DISPLAY")):
        # only with a screen: without one, webbrowser may start a text browser in the
        # terminal that runs the server
        import threading
        import webbrowser
        threading.Timer(0.5, webbrowser.open, (url,)).start()
    try:
        server.serve_forever()
    finally:
        app.extensions["companion"].stop()
    return 0
