"""Vision verbs of the seeing half: `calibrate` and `replay` (registered by ``vision.py``)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from companion.cli import UsageError
from companion.referee.values import ASKS_FOR_A_CARD, card_words


def register(sub: argparse._SubParsersAction) -> None:
    _register_calibrate(sub)
    _register_replay(sub)


# -- calibrate -----------------------------------------------------------------------------

def _register_calibrate(sub) -> None:
    p = sub.add_parser("calibrate", help="find the table mat and save a camera profile")
    p.add_argument("--source", default="0",
                   help="camera index (0, 1, ...), a video file or a folder of images")
    p.add_argument("--name", default="default", help="profile name (default: default)")
    p.add_argument("--out-dir", type=Path, default=None,
                   help="where to save (default: calibration/profiles, else the user data dir)")
    p.add_argument("--timeout", type=float, default=30.0,
                   help="seconds (of frames) to look for the mat before giving up")
    p.add_argument("--wait", type=float, default=5.0,
                   help="once some of the mat's markers are found, seconds to wait for all "
                        "of them (a fit from fewer is less exact far from them)")
    p.add_argument("--corners", default=None, metavar="X,Y X,Y X,Y X,Y",
                   help="no mat: the 4 corners of the playing area in the image, clockwise "
                        "from top-left (4 pairs)")
    p.add_argument("--click", action="store_true",
                   help="no mat: click the 4 corners in a window instead of --corners")
    p.add_argument("--area-mm", default=None, metavar="W,H",
                   help="size of the area whose corners were given (default: the mat's)")
    p.add_argument("--chessboard", type=Path, default=None,
                   help="a folder of chessboard photos for lens intrinsics (wide-angle lenses)")
    p.add_argument("--pattern", default="9x6", help="chessboard inner corners, e.g. 9x6")
    p.add_argument("--square-mm", type=float, default=25.0)
    p.set_defaults(handler=_calibrate)


def _pairs(text: str, n: int, what: str) -> list[tuple[float, float]]:
    try:
        pts = [tuple(float(v) for v in p.split(",")) for p in text.replace(";", " ").split()]
    except ValueError:
        pts = []
    if len(pts) != n or any(len(p) != 2 for p in pts):
        raise UsageError(f"{what} takes {n} pairs X,Y separated by spaces, got {text!r}")
    return pts  # type: ignore[return-value]


def _calibrate(args: argparse.Namespace) -> int:
    from companion.vision.calibration import (
        CalibrationError,
        MatCalibrator,
        chessboard_intrinsics,
        manual_calibration,
        save_profile,
    )
    from companion.vision.source import ImageFolderSource, SourceError, open_source

    intrinsics = None
    if args.chessboard is not None:
        try:
            pattern = tuple(int(v) for v in args.pattern.lower().split("x"))
            if len(pattern) != 2:
                raise ValueError
        except ValueError:
            raise UsageError(f"--pattern takes COLSxROWS, e.g. 9x6, got {args.pattern!r}") from None
        try:
            images = [f.image for f in ImageFolderSource(args.chessboard).frames()]
            intrinsics = chessboard_intrinsics(images, pattern, args.square_mm)
        except (SourceError, CalibrationError) as e:
            raise UsageError(str(e)) from None
        print(f"lens intrinsics from {len(images)} image(s): rms {intrinsics.rms_px:.2f} px")
    try:
        source = open_source(args.source)
    except SourceError as e:
        raise UsageError(str(e)) from None
    calibrator = MatCalibrator()
    manual = args.corners is not None or args.click
    area = tuple(_pairs(args.area_mm, 1, "--area-mm")[0]) if args.area_mm else None
    cal, last_seen, start, found_at = None, None, None, None
    every = len(calibrator.mat.markers)
    try:
        for frame in source.frames():
            image = intrinsics.undistort(frame.image) if intrinsics else frame.image
            size = (image.shape[1], image.shape[0])
            if manual:
                corners = (_pairs(args.corners, 4, "--corners") if args.corners
                           else _click_corners(image))
                try:
                    cal = manual_calibration(corners, size, calibrator.mat, area, intrinsics)
                except CalibrationError as e:
                    raise UsageError(str(e)) from None
                break
            start = frame.timestamp if start is None else start
            # A fit from two markers can be centimetres off far from them: once the mat is
            # found, wait a little for a view with more of its markers (a hand moving away).
            try:
                now = calibrator.calibrate(image, None)
                if cal is None or len(now.markers) > len(cal.markers):
                    cal = now
                found_at = frame.timestamp if found_at is None else found_at
                if len(cal.markers) == every or frame.timestamp - found_at > args.wait:
                    break
                message = (f"found markers {list(now.markers)} of {every}; waiting up to "
                           f"{args.wait:g} s for the others to come into view")
            except CalibrationError as e:
                message = f"looking for the mat... {e}"
            seen = tuple(sorted(calibrator.find_markers(image)))
            if seen != last_seen:  # guide the user as the view changes, not every frame
                print(message, file=sys.stderr)
                last_seen = seen
            if frame.timestamp - start > args.timeout:
                break
    except SourceError as e:
        raise UsageError(str(e)) from None
    finally:
        source.close()
    if cal is None:
        raise UsageError("the mat was not found. Print it with `companion print-mat`, put it "
                         "flat in view, or give its corners with --corners")
    if intrinsics is not None:
        from dataclasses import replace
        cal = replace(cal, intrinsics=intrinsics)
    try:
        path = save_profile(cal, args.name, args.out_dir)
    except CalibrationError as e:
        raise UsageError(str(e)) from None
    how = (f"markers {list(cal.markers)}, mean error {cal.error_mm:.2f} mm"
           if cal.method == "aruco" else "4 corners given by hand")
    print(f"calibrated ({how}); {cal.px_per_mm():.2f} px/mm at the table centre")
    if cal.method == "aruco" and len(cal.markers) < len(calibrator.mat.markers):
        print(f"warning: only {len(cal.markers)} of the mat's {len(calibrator.mat.markers)} "
              "markers were in view; far from them the table may be centimetres off. "
              "Calibrate again with the whole mat in view for a better profile "
              "(while playing, the camera pipeline improves the fit by itself when more "
              "markers come into view).", file=sys.stderr)
    print(f"saved {path}")
    return 0


def _click_corners(image) -> list[tuple[float, float]]:
    import cv2
    clicks: list[tuple[float, float]] = []
    title = "click the 4 corners: top-left, top-right, bottom-right, bottom-left (Esc quits)"

    def on_mouse(event, x, y, *_):
        if event == cv2.EVENT_LBUTTONDOWN and len(clicks) < 4:
            clicks.append((float(x), float(y)))

    try:
        cv2.namedWindow(title)
    except cv2.error:
        raise UsageError("no display for --click; give the corners with --corners") from None
    cv2.setMouseCallback(title, on_mouse)
    while len(clicks) < 4:
        shown = image.copy()
        for c in clicks:
            cv2.circle(shown, (int(c[0]), int(c[1])), 6, (0, 0, 255), -1)
        cv2.imshow(title, shown)
        if cv2.waitKey(30) == 27:
            cv2.destroyWindow(title)
            raise UsageError("calibration cancelled")
    cv2.destroyWindow(title)
    return clicks


# -- replay --------------------------------------------------------------------------------

def _register_replay(sub) -> None:
    p = sub.add_parser("replay", help="run the whole pipeline and the referee on a video")
    p.add_argument("video", type=Path, help="a video file or a folder of frames")
    p.add_argument("--game", required=True, help="e.g. kendra-kari, ganjifa")
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                   help="a rule option of the game (repeatable)")
    p.add_argument("--model", type=Path, default=None, help="ONNX model (default: shipped)")
    p.add_argument("--deck", default=None,
                   help="a deck profile from `companion enroll`: its name or .npz path "
                        "(default: the game's deck)")
    p.add_argument("--calibration", default=None,
                   help="a saved profile (name or .json); default: find the mat in the video")
    p.add_argument("--seat-angles", default=None, metavar="DEG,DEG,...",
                   help="where each seat sits around the mat, as angles from its centre "
                        "(0 = right edge, 90 = bottom edge); default: Player 1 at the "
                        "bottom edge, the others clockwise")
    p.add_argument("--json", action="store_true", help="JSON lines: events, outputs, summary")
    p.add_argument("--show-tracker", action="store_true",
                   help="also print the tracker's events (cards appearing, removed, unsure)")
    p.add_argument("--ask-every-doubt", action="store_true",
                   help="never name an unsure card by elimination (its other readings "
                        "being cards already played): leave every doubt to the players")
    p.add_argument("--ask", action="store_true",
                   help="answer the referee's questions at the terminal (or from stdin): "
                        "which card an unsure one is, and who laid a card")
    p.set_defaults(handler=_replay)


def _replay(args: argparse.Namespace) -> int:
    from companion.commands.rules import _option_pairs
    from companion.layouts import LayoutError, load_layout
    from companion.referee import Referee, RefereeError
    from companion.vision.calibration import CalibrationError, load_profile
    from companion.vision.pipeline import STAGES, Pipeline
    from companion.vision.source import SourceError, open_source
    from companion.vision.track import TableTracker

    if args.video.exists() is False:
        raise UsageError(f"no such video: {args.video}")
    if args.ask and args.json:
        raise UsageError("--ask talks to a person; it cannot be combined with --json")
    angles = None
    if args.seat_angles:
        try:
            angles = tuple(float(v) for v in args.seat_angles.split(","))
        except ValueError:
            raise UsageError(f"--seat-angles takes numbers like 90,180,270,0, got "
                             f"{args.seat_angles!r}") from None
    try:
        referee = Referee(args.game, args.players, _option_pairs(args.option),
                          seat_angles_deg=angles, by_elimination=not args.ask_every_doubt)
        layout = load_layout(referee.game)
    except (RefereeError, LayoutError) as e:
        raise UsageError(str(e)) from None
    calibration = None
    if args.calibration:
        try:
            calibration = load_profile(args.calibration)
        except CalibrationError as e:
            raise UsageError(str(e)) from None
    classifier = _replay_classifier(args, referee)
    try:
        source = open_source(str(args.video))
    except SourceError as e:
        raise UsageError(str(e)) from None
    pipe = Pipeline(classifier, TableTracker(layout), calibration)
    out = sys.stdout
    asker = TerminalAsker(referee, tracker=pipe.tracker) if args.ask else None
    totals = dict.fromkeys(STAGES, 0.0)
    frames, calibrated, counts = 0, 0, {}
    wall = time.perf_counter()
    try:
        for res in pipe.run(source):
            frames += 1
            calibrated += res.calibrated
            for s in STAGES:
                totals[s] += getattr(res.timings, s)
            if res.art is not None:
                if args.json:
                    out.write(json.dumps({"type": "art", "frame": res.frame_index,
                                          **res.art.to_json()}) + "\n")
                elif not res.art.familiar:
                    out.write(f"frame {res.frame_index}: {res.art.words()}: every card "
                              "is asked about; enrol the deck and pass --deck\n")
                elif res.art.again:
                    out.write(f"frame {res.frame_index}: {res.art.words()}: sure readings "
                              "name cards again\n")
            for ev in res.events:
                counts[ev.kind] = counts.get(ev.kind, 0) + 1
                if args.json:
                    out.write(json.dumps({"type": "track", **ev.to_json()}) + "\n")
                elif args.show_tracker:
                    out.write(_track_line(ev) + "\n")
            outputs = referee.observe(list(res.events), res.frame_index, res.timestamp,
                                      res.motion_map)
            if asker is not None:  # print first: a question is put to the person next
                for o in outputs:
                    if o.kind != "question":
                        out.write(_referee_line(o) + "\n")
                outputs = asker.ask(outputs, res.frame_index, res.timestamp)
            for o in outputs:
                counts[o.kind] = counts.get(o.kind, 0) + 1
                if asker is not None:
                    continue  # printed before its questions were put
                if args.json:
                    out.write(json.dumps({"type": "referee", **o.to_json()}) + "\n")
                else:
                    out.write(_referee_line(o) + "\n")
    except SourceError as e:
        raise UsageError(str(e)) from None
    wall = time.perf_counter() - wall
    if frames and not calibrated:
        raise UsageError(f"the mat was never found in {args.video}; calibrate with "
                         "`companion calibrate --source VIDEO --corners ...` and pass "
                         "--calibration")
    per_frame = {s: round(totals[s] / max(frames, 1), 3) for s in STAGES}
    summary = {"type": "summary", "frames": frames, "calibrated_frames": calibrated,
               "seconds": round(wall, 2), "fps": round(frames / wall, 1) if wall else 0.0,
               "ms_per_frame": per_frame, "counts": counts,
               "desynced": referee.desynced or None}
    if args.json:
        out.write(json.dumps(summary) + "\n")
    else:
        stages = ", ".join(f"{s} {v:.1f}" for s, v in per_frame.items())
        print(f"\n{frames} frames in {wall:.1f} s ({summary['fps']} fps); ms per frame: "
              f"{stages}", file=sys.stderr)
        print("counts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
              file=sys.stderr)
        if referee.waiting_for:
            print(f"the referee is still waiting for the card on "
                  f"{referee.layout.place(referee.waiting_for)} to be "
                  "named (the moves after it are not judged); --ask answers such questions",
                  file=sys.stderr)
    return 0


class TerminalAsker:
    """``replay --ask``: the questions the dashboard would show, put to a person at the
    terminal. An unsure card that holds up the judging: its number in the list, another
    card's id, or Enter to leave it out. Who laid a card: the number of the answer, Enter
    for the referee's assumption. At the end of the input, nothing more is asked."""

    def __init__(self, referee, read=None, write=None, tracker=None):
        """``tracker``: the pipeline's, told the cards named (``TableTracker.name``)."""
        self.referee, self.tracker = referee, tracker
        self.read = read or sys.stdin.readline
        self.write = write or (lambda text: print(text, end="", flush=True))
        self.open = True

    def _answer(self, prompt: str) -> str | None:
        if not self.open:
            return None
        self.write(prompt)
        line = self.read()
        if not line:  # end of input: stop asking, leave the rest unanswered
            self.open = False
            return None
        return line.strip()

    def ask(self, outputs, frame: int, timestamp: float) -> list:
        """The outputs of one frame, then whatever the answers to its questions bring."""
        more = []
        for o in outputs:
            if o.kind == "question" and o.question_id is not None:
                listed = "".join(f"\n  {k}) {c}" for k, c in enumerate(o.choices, 1))
                reply = self._answer(f"{o.text}{listed}\nanswer [1]: ")
                if reply and reply.isdigit() and 1 < int(reply) <= len(o.choices):
                    more += self.referee.answer(o.question_id, int(reply) - 1)
        asks = list(outputs)
        for o in asks:  # (an answer can bring another question: players-over-an-earlier-reading)
            if o.kind in ASKS_FOR_A_CARD and self.referee.waits_on(o.zone):
                said = self._name(o, frame, timestamp)
                more += said
                asks += said
        for o in more:
            self.write(_referee_line(o) + "\n")
        return outputs + more

    def _name(self, asked, frame: int, timestamp: float) -> list:
        """Ask which card lies on the zone ``asked`` (an unsure or doubt output) is about
        until the answer is a card, or none of these."""
        from companion.referee import RefereeError
        # (with no readings to offer, the cards the rules let lie there: the dashboard's
        # first row of the deck's grid)
        zone, names = asked.zone, list(asked.choices or asked.could)
        listed = "".join(f"\n  {k}) {card_words(c)} ({c})" for k, c in enumerate(names, 1))
        which = asked.text if asked.kind == "unseen" else \
            f"Which card was laid on {asked.place or zone}?"
        while True:
            reply = self._answer(f"{which}{listed}\n"
                                 "number, card id, or Enter for none of these: ")
            if reply is None:
                return []
            if not reply or reply == "0":
                return self.referee.dismiss(zone, asked.track)
            card = names[int(reply) - 1] if reply.isdigit() and int(reply) <= len(names) \
                else reply
            try:
                said = self.referee.confirm(card, zone, frame, timestamp, asked.track)
            except RefereeError as e:  # a mistyped id: say so and ask again
                self.write(f"{e}\n")
                continue
            if self.tracker is not None and asked.track >= 0:
                self.tracker.name(asked.track, card, asked.frame)
            return said


def _replay_classifier(args: argparse.Namespace, referee):
    from companion.vision.classify import DEFAULT_MODEL, CardClassifier, ModelError
    model = args.model or DEFAULT_MODEL
    deck_kind = getattr(referee.module, "DECK", None)
    profile = None
    if args.deck:
        try:
            from companion.vision.enroll import ProfileError, find_profile, load_profile
        except ImportError:
            raise UsageError("deck profiles are not available in this install") from None
        try:
            profile = load_profile(find_profile(args.deck))
        except (ProfileError, OSError) as e:
            raise UsageError(str(e)) from None
    try:
        if profile is not None:
            return CardClassifier(model, profile=profile)
        return CardClassifier(model, deck=deck_kind)
    except ModelError as e:
        raise UsageError(str(e)) from None


def _track_line(ev) -> str:
    where = ev.zone or f"({ev.center_mm[0]:.0f}, {ev.center_mm[1]:.0f}) mm"
    what = ev.card_id or ("face-down card" if ev.kind in ("appeared", "removed") else "")
    extra = ""
    if ev.candidates:
        extra = " candidates: " + ", ".join(f"{c} {p:.0%}" for c, p in ev.candidates)
    return (f"  [frames {ev.first_frame}-{ev.last_frame}] {ev.kind} {what} at {where} "
            f"({ev.confidence:.0%}){extra}")


def _referee_line(o) -> str:
    stamp = f"{int(o.timestamp // 60):02d}:{o.timestamp % 60:05.2f}"
    if o.kind == "ruling" and o.ruling is not None:
        verdict = o.ruling.verdict.value.upper()
        line = f"{stamp} {verdict:12} {o.ruling.move}"
        if o.assumed:
            line += "  (assumed: see the question or note above)"
        texts = [e.text.upper() if e.announce else e.text for e in o.ruling.events]
        if o.ruling.reason:
            texts.insert(0, o.ruling.reason)
        return line + "".join(f"\n{'':19}{t}" for t in texts)
    if o.kind == "question":
        return f"{stamp} QUESTION     {o.text} [{' | '.join(o.choices)}]"
    return f"{stamp} {o.kind.upper():12} {o.text}"
