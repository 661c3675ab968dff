"""Post-training int8 quantization of the exported classifier (training side only).

Reading 20 crops took 2.3 ms with float weights on the 2-core box, over the 2 ms goal.
onnxruntime runs the same network with 8-bit weights and activations (QLinearConv, static
scales measured on cards cut from training scenes) in about half the time. The tests and
benchmarks measure the quantized model, which is the one served (quantizing the earlier
float model cost 0.02 points on 4800 held-out crops and 0.17 on the fixture scenes).
Serving needs nothing new: the quantized graph is plain ONNX that ``onnxruntime`` runs.

This needs the ``onnx`` package (the ``[train]`` extra) for the shape pre-processing.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

CALIBRATION_SEED = 9002  # training scenes of their own (companion.train_scenes)


def calibration_crops(n_scenes: int, input_px: int) -> np.ndarray:
    """The crops whose activations set the int8 ranges: cards (and a few empty spots) cut
    from rendered training scenes, the kind of crop the served model reads."""
    from companion.train_scenes import scene_crops
    return scene_crops(n_scenes, CALIBRATION_SEED, input_px, workers=1)[0]


def quantize_int8(src: Path, out: Path, calibration: np.ndarray,
                  input_name: str = "crops") -> None:
    """Writes ``src`` (a float ONNX model) to ``out`` with int8 weights (per channel) and
    uint8 activations whose ranges are measured on ``calibration`` (N, 3, H, W) crops."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    if len(calibration) == 0:
        raise ValueError("int8 quantization needs calibration crops")

    class Batches(CalibrationDataReader):
        def __init__(self):
            self._it = iter([{input_name: calibration[i:i + 32].astype(np.float32)}
                             for i in range(0, len(calibration), 32)])

        def get_next(self):
            return next(self._it, None)

    reader = Batches()
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre))
        quantize_static(str(pre), str(out), reader, quant_format=QuantFormat.QOperator,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        per_channel=True)
