"""Post-training int8 quantization of the exported classifier (training side only).

Reading 20 crops took 2.3 ms with float weights on the 2-core box, over the 2 ms goal.
onnxruntime runs the same network with 8-bit weights and activations (QLinearConv, static
scales measured on cards cut from training scenes) in about half the time. The tests and
benchmarks measure the quantized model, which is the one served (quantizing the earlier
float model cost 0.02 points on 4800 held-out crops and 0.17 on the fixture scenes).
Serving needs nothing new: the quantized graph is plain ONNX that ``onnxruntime`` runs.

The weights are stored unsigned (uint8 with zero point 128, the same numbers as the int8
weights, see :func:`unsigned_weights`). onnxruntime multiplies uint8 activations by int8
weights with an AVX2 instruction that adds pairs of products into 16 bits and saturates,
unless the CPU has VNNI: the same int8 model read 89.44% of the fixture-scene cards on an
AVX2-only AMD EPYC box against 92.40% on the box it was measured on. Unsigned weights take
a path that does not saturate, on every CPU (a third slower in a bare loop on random
input; within noise in bench_accuracy).

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
    unsigned_weights(out, out)


def unsigned_weights(src: Path, out: Path) -> int:
    """Rewrites the int8 weights (symmetric, zero point 0) of every QLinearConv and QGemm
    in ``src`` as uint8 with zero point 128: w - 0 == (w + 128) - 128, so the network
    computes exactly the same, without the saturating U8S8 kernel (module docstring).
    Returns how many tensors changed."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(src))
    tensors = {t.name: t for t in model.graph.initializer}
    changed = set()
    for node in model.graph.node:
        if node.op_type not in ("QLinearConv", "QGemm"):
            continue
        for name in node.input[3:6:2]:  # the weights and their zero point
            if name in changed or tensors[name].data_type != onnx.TensorProto.INT8:
                continue
            values = numpy_helper.to_array(tensors[name])
            if name == node.input[5] and values.any():
                raise ValueError(f"{name}: int8 weights with a non-zero zero point")
            shifted = (values.astype(np.int16) + 128).astype(np.uint8)
            tensors[name].CopyFrom(numpy_helper.from_array(shifted, name))
            changed.add(name)
    onnx.checker.check_model(model)
    onnx.save(model, str(out))
    return len(changed)
