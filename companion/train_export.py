"""Export a trained card classifier: ONNX (int8 unless asked for float) and its model card.

Training only (torch); ``companion.train`` calls :func:`export` at the end of a run and
when a checkpoint is exported on the serving machine.
"""

from __future__ import annotations

import tempfile
import warnings
from dataclasses import asdict
from pathlib import Path

import torch
from torch import nn

from companion.train_quantize import calibration_crops, quantize_int8
from companion.train_scenes import RANKS, SUITS
from companion.vision import crops as C


def recipe_of(cfg) -> dict:
    """A training config as JSON values (tuples as lists, paths as strings)."""
    return {k: ([list(x) if isinstance(x, tuple) else x for x in v] if isinstance(v, tuple)
                else str(v) if isinstance(v, Path) else v)
            for k, v in asdict(cfg).items()}


def export(model: nn.Module, cfg, history: list[dict], seconds: float) -> dict:
    """ONNX (int8 when ``cfg.quantize``) and the model card."""
    from companion.vision.model_card import load_model_card, write_model_card
    model.eval()
    cfg.out.parent.mkdir(parents=True, exist_ok=True)
    px = cfg.input_px
    dummy = torch.zeros(1, 3, px, px)
    names = ["suit_logits", "rank_logits", "kind_logits", "embedding"]
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "fp32.onnx" if cfg.quantize else cfg.out
        with warnings.catch_warnings():  # the TorchScript exporter is deprecated, not broken
            warnings.simplefilter("ignore", DeprecationWarning)
            torch.onnx.export(model, (dummy,), str(fp32), dynamo=False,
                              input_names=["crops"], output_names=names, opset_version=17,
                              dynamic_axes={"crops": {0: "n"}, **{k: {0: "n"} for k in names}})
        if cfg.quantize:
            quantize_int8(fp32, cfg.out, calibration_crops(cfg.calibration_scenes, px))
    recipe = recipe_of(cfg)
    card = {
        "name": cfg.out.stem,
        "classes": {"suits": list(SUITS), "ranks": list(RANKS), "kinds": list(C.KINDS)},
        "input": {"name": "crops", "shape": ["n", 3, px, px], "dtype": "float32",
                  "colour": "BGR", "range": "0..255",
                  "preprocessing": f"96x96 detector crop -> INTER_AREA resize to {px}x{px} "
                                   "(none at 96) -> NCHW float32; (x-128)/64 is in the graph"},
        "outputs": names,
        "embedding_dim": model.embed.out_features,
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "weights": ("8-bit per channel (int8 values stored as uint8 with zero point 128, "
                    "so that AVX2 CPUs without VNNI do not saturate), uint8 activations "
                    "(static QOperator quantization, ranges from the cards of "
                    f"{cfg.calibration_scenes} training scenes)")
                   if cfg.quantize else "float32",
        "training": {"data": "companion.synth.faces only (own rendered art): pasted crops "
                             "(companion.vision.crops augmentation) and cards cut from "
                             "rendered table scenes (companion.train_scenes)"
                             + (f", and {cfg.device_crops} pasted crops a step made on the "
                                "training device (companion.train_device_crops)"
                                if cfg.device_crops else "") + "; never shared/decks",
                     "recipe": recipe, "seconds": round(seconds, 1), "history": history},
        "accuracy": {},
    }
    if cfg.init_from is not None:
        card["training"]["started_from"] = load_model_card(cfg.init_from)["training"]
    write_model_card(cfg.out, card)
    return card
