"""Dashboard benchmark: announcement latency (frame -> browser over SSE), server memory with
five browsers, and server CPU at 30 fps input.

It starts `companion serve --source demo` as a subprocess on a free 127.0.0.1 port with a
fresh database, so it measures whatever the demo runs on this machine: the vision pipeline
on the filmed fixture games when a model is shipped, else the recorded-game replay (the
table prints which). Usage:

    python benchmarks/bench_web.py [--seconds 60] [--browsers 5] [--chromium]

Latency: for every move announcement an SSE client receives, the time from the arrival of
the frame the move was seen in (the server's ``seen_at``, wall clock, same machine) to the
arrival of the announcement at the client. RSS: the server's resident memory, sampled from
/proc while N clients (MJPEG + SSE each; real headless Chromium pages with --chromium) are
connected. CPU: the server's user+system time per wall second, at 30 fps input.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class InProcessServer:
    """The dashboard with the real pipeline on the filmed games, the ground-truth oracle in
    place of the model (benchmarks/fixture_oracle.py), served from this process."""

    def __init__(self, speed: float, oracle: bool = True):
        from werkzeug.serving import make_server

        from companion.web import create_app
        from companion.web.capture import CaptureThread
        from companion.web.vision_feed import VisionFeed, fixture_videos
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from fixture_oracle import TruthOracle

        from companion.vision.detect import CardDetector

        def oracle_stages(video, deck):
            classifier = TruthOracle(video.meta)
            return classifier, classifier.detector(CardDetector())

        videos = fixture_videos()
        if not videos:
            raise SystemExit("--oracle needs the filmed games in fixtures/videos")
        self.tmp = tempfile.TemporaryDirectory()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app({"DATABASE": str(Path(self.tmp.name) / "bench.db")})
        rt = self.app.extensions["companion"]
        stages = oracle_stages if oracle else None  # None: the shipped model
        rt.capture = CaptureThread(rt.table, rt.hub,
                                   lambda: VisionFeed("demo", videos, stages=stages), loop=True)
        rt.capture.start()
        import logging
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.http = make_server("127.0.0.1", self.port, self.app, threaded=True)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.proc = type("Self", (), {"pid": os.getpid()})()

    def get(self, path: str):
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            return json.loads(r.read())

    def stop(self) -> None:
        self.http.shutdown()
        self.app.extensions["companion"].stop()
        self.tmp.cleanup()


class Server:
    def __init__(self, speed: float, log: Path | None = None):
        """``log``: where the server's output goes (its warnings and errors; default none)."""
        self.tmp = tempfile.TemporaryDirectory()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        # the server keeps its own copy of the log file open
        with open(log, "wb") if log else contextlib.nullcontext(subprocess.DEVNULL) as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "companion.cli", "serve", "--source", "demo", "--port",
                 str(self.port), "--db", str(Path(self.tmp.name) / "bench.db"),
                 "--demo-speed", str(speed)], stdout=out, stderr=subprocess.STDOUT)
        for _ in range(300):
            try:
                self.get("/api/state")
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def get(self, path: str):
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            return json.loads(r.read())

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        self.tmp.cleanup()


def quietly(fn):
    """A client thread ends when the server does; that is not an error worth a trace."""
    def run(*args):
        try:
            fn(*args)
        except (OSError, http.client.HTTPException):
            pass
    return run


@quietly
def sse_client(url: str, arrivals: dict[int, float], stop: threading.Event) -> None:
    """Reads /api/stream; records the wall-clock arrival of each announcement by event id."""
    with urllib.request.urlopen(url + "/api/stream?after=0", timeout=30) as r:
        data = ""
        for raw in r:
            if stop.is_set():
                return
            line = raw.decode().rstrip("\n")
            if line.startswith("data: "):
                data = line[6:]
            elif line == "" and data:
                a = json.loads(data)
                if "event_id" in a and a["event_id"] is not None:
                    arrivals.setdefault(a["event_id"], time.time())
                data = ""


@quietly
def mjpeg_client(url: str, stop: threading.Event, counter: list[int]) -> None:
    with urllib.request.urlopen(url + "/video.mjpg", timeout=30) as r:
        while not stop.is_set():
            chunk = r.read(65536)
            if not chunk:
                return
            counter[0] += chunk.count(b"--frame")


def measure(seconds: float, browsers: int, chromium: bool, speed: float,
            oracle: bool = False, in_process: bool = False) -> dict:
    srv = InProcessServer(speed, oracle) if oracle or in_process else Server(speed)
    oracle = oracle or in_process  # from here on: "the server is in this process"
    stop = threading.Event()
    arrivals: dict[int, float] = {}
    frames = [0]
    threads = [threading.Thread(target=sse_client, args=(srv.url, arrivals, stop), daemon=True)]
    pw = browser = None
    if chromium:
        from playwright.sync_api import sync_playwright
        pw = sync_playwright().start()
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--no-first-run",
                                           "--disable-background-networking",
                                           "--disable-component-update", "--disable-sync"])
        for _ in range(browsers):
            browser.new_page().goto(srv.url + "/")
    else:
        for _ in range(browsers):
            threads.append(threading.Thread(target=mjpeg_client, args=(srv.url, stop, frames),
                                            daemon=True))
            threads.append(threading.Thread(target=sse_client, args=(srv.url, {}, stop),
                                            daemon=True))
    for t in threads:
        t.start()
    time.sleep(2)  # let the pages connect before sampling
    # only moves seen from now on count: the measuring client is connected by then
    cpu0, t0, wall0 = cpu_seconds(srv.proc.pid), time.monotonic(), time.time()
    rss = []
    frame_walls: dict[int, float] = {}
    capture = srv.app.extensions["companion"].capture if oracle else None
    while time.monotonic() - t0 < seconds:
        rss.append(rss_mb(srv.proc.pid))
        if capture is not None:  # the first pass through the films only: keys repeat later
            for k, v in list(capture.frame_walls.items()):
                frame_walls.setdefault(k, v)
        time.sleep(0.5)
    cpu = (cpu_seconds(srv.proc.pid) - cpu0) / (time.monotonic() - t0)
    state = srv.get("/api/state")
    stop.set()
    if browser is not None:
        browser.close()
        pw.stop()
    from companion.store import Store
    store = Store(Path(srv.tmp.name) / "bench.db")
    seen_at = {e.id: e.payload["seen_at"] for g in store.games() for e in store.events(g.id)
               if e.payload.get("seen_at", 0) >= wall0}
    truth_lat = truth_latencies(store, arrivals, frame_walls) if oracle else []
    store.close()
    lat = [(arrivals[i] - seen_at[i]) * 1000 for i in seen_at if i in arrivals]
    if os.environ.get("BENCH_VERBOSE"):
        print("latencies (ms, by event id):", [round(x) for x in lat], file=sys.stderr)
    srv.stop()
    return {"latency_ms": lat, "truth_latency_ms": truth_lat, "rss_mb": rss, "cpu": cpu, "fps": state["camera"]["fps"],
            "label": state["camera"]["demo_label"], "mjpeg_frames": frames[0]}


def truth_latencies(store, arrivals: dict[int, float], frame_walls: dict[int, float]):
    """ms from the frame in which each filmed move's card is down, still and uncovered (the
    film's ground truth) to its announcement at the client: tracker wait included."""
    from companion.games import get_game
    from companion.games.base import Move
    from companion.web.vision_feed import fixture_videos
    out, offset = [], 0
    games = store.games()
    for video, game in zip(fixture_videos(), games):
        meta = json.loads(video.meta.read_text())
        public = get_game(meta["game"]).public_move
        # each stored move that is a filmed move (read right) is timed from that move's frame
        filmed = [(public(Move.from_json(m["move"])).to_json(), int(m["frame"]))
                  for m in meta["moves"]]
        for ev in store.events(game.id, kind="move"):
            hit = next((k for k, (mv, _) in enumerate(filmed) if mv == ev.payload["move"]),
                       None)
            if hit is None:
                continue
            wall = frame_walls.get(offset + filmed.pop(hit)[1])
            if wall is not None and ev.id in arrivals:
                out.append((arrivals[ev.id] - wall) * 1000)
        offset += int(meta["frames"])
    return out


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=40.0)
    ap.add_argument("--browsers", type=int, default=5)
    ap.add_argument("--chromium", action="store_true", help="real headless Chromium pages")
    ap.add_argument("--in-process", action="store_true",
                    help="the real pipeline with the shipped model, served from this process, "
                         "so that latency from the film's still frame is measured too")
    ap.add_argument("--oracle", action="store_true",
                    help="the real vision pipeline on the filmed games with the ground-truth "
                         "oracle for a classifier, in this process (RSS and CPU then include "
                         "the clients)")
    args = ap.parse_args()
    # run the demo at the 30 fps input the goal names, whatever its own rate
    from companion.web.feeds import open_feed
    speed = 1.0 if args.oracle or args.in_process else 30.0 / open_feed("demo").fps
    idle = measure(args.seconds, 0, False, speed, args.oracle, args.in_process)
    busy = measure(args.seconds, args.browsers, args.chromium, speed, args.oracle,
                   args.in_process)
    label = "vision pipeline + ground-truth oracle" if args.oracle else \
        "vision pipeline + shipped model" if args.in_process else busy["label"]
    print(f"source: {label or 'vision pipeline'}; input {busy['fps']:.0f} fps")
    print(f"{'clients':>8} {'moves':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} "
          f"{'RSS MB':>8} {'CPU %':>7}")
    for name, r in (("0", idle), (f"{args.browsers}" + (" chromium" if args.chromium else ""),
                                  busy)):
        lat = r["latency_ms"]
        print(f"{name:>8} {len(lat):>6} {pct(lat, 50):>8.1f} {pct(lat, 95):>8.1f} "
              f"{max(lat) if lat else float('nan'):>8.1f} {max(r['rss_mb']):>8.1f} "
              f"{100 * r['cpu']:>7.1f}")
        if args.oracle or args.in_process:
            t = r["truth_latency_ms"]
            print(f"{'':>8} {len(t):>6} {pct(t, 50):>8.1f} {pct(t, 95):>8.1f} "
                  f"{max(t) if t else float('nan'):>8.1f}   (from the film's still frame)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
