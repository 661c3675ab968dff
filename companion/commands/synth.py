"""Synth verbs: `print-deck`, `print-mat`, `synth-scenes`, `synth-game`."""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.cli import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("print-deck", help="a print-and-play deck as an A4 PDF (300 dpi)")
    p.add_argument("--deck", required=True, help="mughal or dashavatara")
    p.add_argument("--style", type=int, default=0,
                   help="art style number from 0 (the cover page names the style)")
    p.add_argument("--seed", type=int, default=0, help="variation within the style")
    p.add_argument("--out", required=True, type=Path, help="PDF file to write")
    p.set_defaults(handler=_print_deck)

    p = sub.add_parser("print-mat", help="the table mat with ArUco markers and zones as a PDF")
    p.add_argument("--game", required=True,
                   help="whose zones to draw (a layout in calibration/layouts), or 'none'")
    p.add_argument("--paper", default="a4", choices=["a4", "a2"],
                   help="a4: tiled over A4 pages; a2: one A2 page")
    p.add_argument("--out", required=True, type=Path, help="PDF file to write")
    p.set_defaults(handler=_print_mat)

    p = sub.add_parser("synth-scenes", help="render table scenes with ground truth to a folder")
    p.add_argument("--out", required=True, type=Path, help="folder to write")
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--source", default="own",
                   help="own (our styles in turn), style-N, pysol-mughal or pysol-dashavatara "
                        "(real-art decks: evaluation only)")
    p.add_argument("--jpeg-quality", type=int, default=90)
    p.set_defaults(handler=_synth_scenes)

    p = sub.add_parser("synth-game", help="film a simulated game: video + per-frame truth")
    p.add_argument("--game", required=True,
                   help="kendra-kari, ganjifa, hamrang, ekrang, komi, nakash, sama or udvasa")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, type=Path, help="video file (.mp4 or .avi)")
    p.add_argument("--style", type=int, default=None, help="art style (default: from seed)")
    p.add_argument("--source", default=None, choices=["pysol-mughal", "pysol-dashavatara"],
                   help="play a real-art deck from ../shared/decks instead of our art")
    p.add_argument("--width", type=int, default=960)
    p.add_argument("--height", type=int, default=540)
    p.add_argument("--max-moves", type=int, default=None,
                   help="film only the first N moves (the JSON says so)")
    p.add_argument("--hard", action="store_true", help="dim light, more hands, more occlusion")
    p.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                   help="a rule option, e.g. -o face_up_deal=true (repeatable)")
    p.add_argument("--pace", default="normal", choices=["normal", "brisk"],
                   help="normal: about a second per card; brisk: faster hands and shorter "
                        "pauses (a smaller film), each card still gets its still frames")
    p.set_defaults(handler=_synth_game)


def _print_deck(args: argparse.Namespace) -> int:
    from companion.cards import CardIdError, DeckKind
    from companion.synth.faces import N_STYLES
    from companion.synth.printing import write_deck_pdf
    from companion.synth.progress import ProgressBar
    try:
        deck = DeckKind.parse(args.deck)
    except CardIdError as e:
        raise UsageError(str(e)) from None
    if not 0 <= args.style < N_STYLES:
        raise UsageError(f"--style must be 0..{N_STYLES - 1}, got {args.style}")
    _check_out(args.out, ".pdf")
    pages = write_deck_pdf(deck, args.style, args.out, args.seed, ProgressBar("deck"))
    print(f"wrote {args.out} ({pages} pages)")
    return 0


def _print_mat(args: argparse.Namespace) -> int:
    from companion.layouts import LayoutError, load_layout
    from companion.synth.printing import write_mat_pdf
    game = None if args.game == "none" else args.game
    if game:
        try:
            load_layout(game)
        except LayoutError as e:
            raise UsageError(str(e)) from None
    _check_out(args.out, ".pdf")
    pages = write_mat_pdf(game, args.out, args.paper)
    print(f"wrote {args.out} ({pages} page{'s' * (pages > 1)})")
    return 0


def _synth_scenes(args: argparse.Namespace) -> int:
    from companion.synth.decks import DeckSourceError, check_source
    from companion.synth.progress import ProgressBar
    from companion.synth.sceneset import write_scene_set
    if args.count < 1:
        raise UsageError("--count must be at least 1")
    if not (64 <= args.width <= 4096 and 64 <= args.height <= 4096):
        raise UsageError("--width and --height must be 64..4096")
    if not 1 <= args.jpeg_quality <= 100:
        raise UsageError("--jpeg-quality must be 1..100")
    if args.source != "own":
        try:
            check_source(args.source)
        except DeckSourceError as e:
            raise UsageError(str(e)) from None
    write_scene_set(args.out, args.count, args.seed, args.width, args.height, args.source,
                    args.jpeg_quality, ProgressBar("scenes"))
    print(f"wrote {args.count} scenes to {args.out}")
    return 0


def _synth_game(args: argparse.Namespace) -> int:
    from companion.commands.rules import _option_pairs
    from companion.games.base import OptionsError
    from companion.synth.progress import ProgressBar
    from companion.synth.video import VideoError, film_game
    _check_out(args.out, (".mp4", ".avi"))
    try:
        info = film_game(args.game, args.players, args.seed, args.out, style=args.style,
                         size=(args.width, args.height), max_moves=args.max_moves,
                         hard=args.hard, pace=args.pace, progress=ProgressBar("frames"),
                         source=args.source, options=_option_pairs(args.option))
    except (VideoError, OptionsError) as e:
        raise UsageError(str(e)) from None
    print(f"wrote {args.out} and {info['json']} ({info['frames']} frames)")
    return 0


def _check_out(path: Path, suffix) -> None:
    suffixes = (suffix,) if isinstance(suffix, str) else suffix
    if path.suffix.lower() not in suffixes:
        raise UsageError(f"--out must end in {' or '.join(suffixes)}, got {path}")
    if not path.parent.exists():
        raise UsageError(f"folder {path.parent} does not exist")
