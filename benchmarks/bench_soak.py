"""Soak: the dashboard left on for a whole evening; prints a table.

    python benchmarks/bench_soak.py [--minutes 20] [--speed 4] [--sample-s 60]

It starts `companion serve --source demo` as a subprocess on a free 127.0.0.1 port with a
fresh database (as ``bench_web.py`` does), keeps one watching page connected (an SSE client
and an MJPEG client), and plays the players' part: every question the Table page shows is
answered with its first choice, a second or so after it appears, as a player tapping the
likeliest card would. Unanswered, a question holds the referee's later rulings back, and a
whole evening would be one stalled game.

Every ``--sample-s`` seconds it records the server's resident memory, the games ended, the
moves and questions stored, the size of the database with its write-ahead log, and the
camera rate the dashboard shows. At the end: the mean memory of the last third of the run
against the middle third (a server that keeps growing shows there), and the warnings and
errors in the server's own output.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_web import Server, mjpeg_client, rss_mb, sse_client


def answer_questions(srv: Server) -> int:
    """Answers every open question with its first choice; how many were answered."""
    game = srv.get("/api/state").get("game") or {}
    answered = 0
    for q in game.get("pending") or []:
        if q.get("resolved") or not q.get("choices"):
            continue
        body = json.dumps({"choice": q["choices"][0]["value"]}).encode()
        req = urllib.request.Request(f"{srv.url}/api/pending/{q['id']}", data=body,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10):
                answered += 1
        except urllib.error.HTTPError:  # answered meanwhile, or the game moved on
            pass
    return answered


def stored(db: Path) -> dict[str, float]:
    """What the server's database holds so far (read-only, beside the server's writes)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        ended = con.execute("SELECT count(*) FROM games WHERE ended IS NOT NULL").fetchone()[0]
        moves = con.execute("SELECT count(*) FROM events WHERE kind = 'move'").fetchone()[0]
        asked = con.execute("SELECT count(*) FROM pending").fetchone()[0]
    finally:
        con.close()
    size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))
    return {"games": ended, "moves": moves, "asked": asked, "db_mb": size / 2**20}


def soak(minutes: float, speed: float, sample_s: float, log: Path) -> list[dict[str, float]]:
    srv = Server(speed, log)
    db = Path(srv.tmp.name) / "bench.db"
    stop = threading.Event()
    for target, args in ((sse_client, (srv.url, {}, stop)), (mjpeg_client, (srv.url, stop, [0]))):
        threading.Thread(target=target, args=args, daemon=True).start()
    rows: list[dict[str, float]] = []
    answers = 0
    t0 = next_sample = time.monotonic()
    try:
        while (now := time.monotonic()) - t0 < minutes * 60:
            answers += answer_questions(srv)
            if now >= next_sample:
                fps = srv.get("/api/state")["camera"]["fps"]
                rows.append({"minute": (now - t0) / 60, "rss_mb": rss_mb(srv.proc.pid),
                             "answered": answers, "fps": fps, **stored(db)})
                r = rows[-1]
                print(f"{r['minute']:6.1f} {r['games']:6d} {r['moves']:6d} {r['asked']:6d} "
                      f"{r['answered']:6d} {r['rss_mb']:8.1f} {r['db_mb']:7.2f} "
                      f"{r['fps']:5.1f}", flush=True)
                next_sample += sample_s
            time.sleep(1.0)
    finally:
        stop.set()
        srv.stop()
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=20.0)
    ap.add_argument("--speed", type=float, default=4.0,
                    help="the demo's speed (companion serve --demo-speed); the pipeline's "
                         "own rate caps it")
    ap.add_argument("--sample-s", type=float, default=60.0)
    args = ap.parse_args()
    print(f"## Soak: the demo for {args.minutes:g} minutes at --demo-speed {args.speed:g}, "
          "one watching page, questions answered with their first choice")
    print(f"{'minute':>6} {'games':>6} {'moves':>6} {'asked':>6} {'answd':>6} "
          f"{'RSS MB':>8} {'DB MB':>7} {'fps':>5}", flush=True)
    log = Path(tempfile.gettempdir()) / f"bench_soak_{os.getpid()}.log"
    rows = soak(args.minutes, args.speed, args.sample_s, log)
    said = log.read_text(errors="replace").splitlines()
    log.unlink()
    # the server prints its address, then only warnings and errors (werkzeug's requests
    # are not logged): every other line is one
    problems = [line for line in said if not line.startswith("Ganjifa companion:")]
    print(f"server output besides its address: {len(problems)} lines")
    for line in problems[:10]:
        print("  " + line)
    third = max(1, len(rows) // 3)
    if len(rows) >= 3:
        middle = [r["rss_mb"] for r in rows[third:2 * third]]
        last = [r["rss_mb"] for r in rows[2 * third:]]
        print(f"RSS, middle third {sum(middle) / len(middle):.1f} MB, last third "
              f"{sum(last) / len(last):.1f} MB; peak {max(r['rss_mb'] for r in rows):.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
