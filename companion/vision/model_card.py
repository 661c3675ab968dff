"""The model card: the JSON beside the ONNX model (classes, input, recipe, measured
accuracy) and its human-readable markdown twin."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


class ModelError(RuntimeError):
    """The model file or its model card is missing or does not fit this code."""


class ProfileModelError(ModelError):
    """A deck profile's embeddings were made by another model than the one reading."""


def fingerprint(model_path: Path) -> str:
    """A short hash of the model file: which model a deck profile's embeddings came from."""
    return hashlib.sha256(Path(model_path).read_bytes()).hexdigest()[:16]


def card_path(model_path: Path) -> Path:
    return Path(model_path).with_suffix(".json")


def load_model_card(model_path: Path) -> dict:
    p = card_path(model_path)
    if not p.is_file():
        raise ModelError(f"model card {p} is missing (it is written by `companion train`)")
    return json.loads(p.read_text())


def write_model_card(model_path: Path, card: dict) -> None:
    """The JSON card beside the model, and its human-readable markdown twin."""
    model_path = Path(model_path)
    card_path(model_path).write_text(json.dumps(card, indent=2) + "\n")
    model_path.with_suffix(".md").write_text(_card_markdown(card, model_path))


def _pool(rec: dict, history: list) -> str:
    """The training data: a pool rendered first, or one that grew while training ran."""
    scenes = (f"whole rendered training scenes (seed {rec.get('scene_seed', '-')}, cut as "
              "the detector cuts them)")
    if rec.get("stream_capacity"):
        grown = history[-1].get("pool", "?") if history else "?"
        return (f"a pool rendered while training ran, by {rec['workers']} processes, that grew"
                f" to {grown} crops: pasted crops and the cards of {scenes}, in the fixed "
                "pool's proportion" + (f", trained on at most {rec['max_reuse']} times its size"
                                       if rec.get("max_reuse") else ""))
    return f"a pool of {rec['pool']} pasted crops and the cards of {rec.get('scenes', 0)} {scenes}"


def _trained_on(rec: dict) -> str:
    if rec.get("device", "cpu") != "cpu":
        return f"{rec['device']} with {rec['workers']} rendering processes"
    return f"{rec['threads']} CPU thread{'s' if rec['threads'] != 1 else ''}"


def _started_from(training: dict) -> list[str]:
    """Lines for a model trained on from another one's weights (``train --init-from``)."""
    before = training.get("started_from")
    if not before:
        return []
    rec = before["recipe"]
    return [(f"- started from the weights of `{training['recipe']['init_from']}` (crop seed "
            f"{training['recipe']['seed']} here), itself trained on {rec['pool']} pasted "
            f"crops and {rec.get('scenes', 0)} scenes (seed {rec.get('scene_seed', '-')}, crop "
            f"seed {rec['seed']}) for {len(before['history'])} passes in "
            f"{before['seconds'] / 60:.1f} min")]


def _card_markdown(card: dict, model_path: Path) -> str:
    tr = card["training"]
    rec = tr["recipe"]
    size = model_path.stat().st_size / 1e6 if model_path.exists() else float("nan")
    lines = [
        f"# Model card: {card['name']}", "",
        "Recognises round Ganjifa cards in 96x96 detector crops (disc centred, any rotation).",
        "", "## Classes", "",
        f"- suits ({len(card['classes']['suits'])}): {', '.join(card['classes']['suits'])}",
        f"- ranks ({len(card['classes']['ranks'])}): {', '.join(card['classes']['ranks'])}",
        f"- kind: {', '.join(card['classes']['kinds'])}",
        f"- embedding: {card['embedding_dim']} floats, unit length", "",
        "## Input and preprocessing", "",
        (f"- input `{card['input']['name']}`: {card['input']['shape']} {card['input']['dtype']},"
        f" {card['input']['colour']}, {card['input']['range']}"),
        f"- {card['input']['preprocessing']}",
        (f"- outputs: {', '.join(card['outputs'])} (logits; suit logits are masked to the deck"
        " in play before the softmax)"), "",
        "## Size", "",
        (f"- {card['parameters']:,} parameters, {size:.2f} MB ONNX; weights: "
         f"{card.get('weights', 'float32')}"), "",
        "## Training recipe", "",
        f"- data: {tr['data']}",
        (f"- styles: {rec['styles'] or 'all'}; seeds {rec['seeds']}; faces rendered at "
        f"{rec['face_px']} px"),
        (f"- {_pool(rec, tr['history'])}, each pass turned by a random multiple of"
        f" 90 degrees; {rec['minutes']} min budget (at most {rec['max_passes']} passes), batch"
        f" {rec['batch']}, AdamW, warm-up + cosine lr peak {rec['lr']}, widths {rec['widths']}"),
        ("- augmentation: full 360-degree rotation, scale/offset/perspective jitter, "
        "neighbouring and covering cards, hands, light/white balance/gamma, glare, blur, "
        "noise, low resolution, JPEG; negatives: card backs (face-down) and table/hand/edge "
        f"crops (not a card), {rec['negative_share']:.0%} each; "
        f"{rec.get('degraded_share', 0):.0%} of all crops through a harsh camera (strong motion"
        " or defocus blur, dim or blown-out light, a small card, heavy JPEG)"),
        (f"- losses: cross-entropy on suit, rank, kind; cosine-margin classifier over the 216 "
        f"cards on the embedding; trained in {tr['seconds'] / 60:.1f} min on "
        f"{_trained_on(rec)}, rendering included"),
        f"- last epoch: {tr['history'][-1] if tr['history'] else 'n/a'}",
        *_started_from(tr), "",
        "## Measured accuracy", "",
    ]
    acc = card.get("accuracy") or {}
    if not acc:
        lines.append("Not measured yet: run `python benchmarks/bench_accuracy.py "
                     "--update-model-card`.")
    for key, value in acc.items():
        lines.append(f"- {key}: {value}")
    return "\n".join(lines) + "\n"
