"""The growing training pool (GPU machines) and training with it, several sizes at once."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

pytest.importorskip("torch", reason="training needs the [train] extra (torch)")
pytest.importorskip("onnx", reason="ONNX export needs the [train] extra (onnx)")

from companion.cli import main
from companion.train_feed import PASTED_CHUNK, GrowingPool


def _numbered_chunk(job):
    n, seed = job
    return np.full((n, 3, 8, 8), seed % 256, np.uint8), np.full((n, 4), seed, np.int64)


def _broken_chunk(job):
    raise ValueError("no faces")


def test_workers_keep_rendering_between_updates_until_the_pool_is_full():
    capacity = 5 * PASTED_CHUNK - 100  # five jobs: more than the 2 x 2 sent at the start
    feed = GrowingPool(capacity, 8, "cpu", 2, pasted_job=_numbered_chunk, pasted_seed=10,
                       scene_seed=0, pasted_every=1)
    try:
        deadline = time.time() + 30
        while feed._rendered < capacity and time.time() < deadline:
            time.sleep(0.05)
        assert feed.update() == capacity  # all arrived before this first update
        assert feed._jobs_sent >= 5  # more than went out at the start, with no update()
        # five whole or partial jobs fill it, in the order they arrived (jobs sent beyond
        # the capacity while others were in flight are dropped)
        seeds = set(feed.y[:, 0].tolist())
        assert len(seeds) == 5 and seeds <= set(range(10, 10 + feed._jobs_sent))
        assert all(int(feed.x[i, 0, 0, 0]) == int(feed.y[i, 0]) for i in range(0, capacity, 97))
    finally:
        feed.close()


def test_a_failing_worker_stops_training_with_its_error():
    feed = GrowingPool(4096, 8, "cpu", 1, pasted_job=_broken_chunk, pasted_seed=0,
                       scene_seed=0, pasted_every=1)
    try:
        with pytest.raises(RuntimeError, match="rendering training crops failed") as info:
            feed.update(wait_for=100)
        assert isinstance(info.value.__cause__, ValueError)
    finally:
        feed.close()


def test_streamed_training_of_two_sizes_exports_both_and_the_checkpoint(tmp_path, capsys):
    out, ckpt = tmp_path / "tiny.onnx", tmp_path / "tiny.pt"
    # Half a minute: on a busy box the first pass alone took the 6 s first given, and the
    # pool had no time to grow.
    assert main(["train", "--tiny", "--out", str(out), "--stream-capacity", "2500",
                 "--max-passes", "100000", "--minutes", "0.5", "--also-widths", "8,8,8,16",
                 "--checkpoint", str(ckpt), "--float"]) == 0
    other = tmp_path / "tiny-w8-8-8-16.onnx"
    assert out.is_file() and other.is_file() and ckpt.is_file()
    assert "QLinearConv" not in _ops(out)  # --float: the training machine does not quantize
    history = json.loads(out.with_suffix(".json").read_text())["training"]["history"]
    assert history[-1]["pool"] > history[0]["pool"]  # the pool grew while training ran
    assert f"grew to {history[-1]['pool']} crops" in out.with_suffix(".md").read_text()
    assert len(history[-1]["train_card_acc_by_widths"]) == 2
    capsys.readouterr()

    again = tmp_path / "again.onnx"
    assert main(["train", "--from-checkpoint", str(ckpt), "--widths", "8,8,8,16",
                 "--out", str(again)]) == 0
    card = json.loads(again.with_suffix(".json").read_text())
    assert card["training"]["recipe"]["widths"] == [8, 8, 8, 16]
    assert card["parameters"] == json.loads(other.with_suffix(".json").read_text())["parameters"]
    assert main(["train", "--from-checkpoint", str(ckpt), "--widths", "9,9,9,9",
                 "--out", str(again)]) == 2
    assert "holds widths" in capsys.readouterr().err
    assert main(["train", "--tiny", "--widths", "1,2"]) == 2

    # The run exported float weights; the serving machine exports int8 from its checkpoint.
    assert main(["train", "--from-checkpoint", str(ckpt), "--out", str(again)]) == 0
    ops = _ops(again)
    assert "QLinearConv" in ops and "Conv" not in ops
    assert json.loads(again.with_suffix(".json").read_text())["weights"].startswith("8-bit")


def _ops(model) -> set[str]:
    import onnx
    return {n.op_type for n in onnx.load(str(model)).graph.node}


def test_a_streamed_run_waits_for_the_pool_rather_than_reuse_its_crops_more(tmp_path):
    out = tmp_path / "tiny.onnx"
    # A capacity the pool does not reach in the run: a full pool is trained on unthrottled.
    assert main(["train", "--tiny", "--out", str(out), "--stream-capacity", "200000",
                 "--max-passes", "100000", "--minutes", "0.3", "--max-reuse", "3"]) == 0
    history = json.loads(out.with_suffix(".json").read_text())["training"]["history"]
    assert history[-1]["pool"] < 200_000
    # it went over its crops more than once, but never over three times what the pool held
    assert max(rec["trained"] / rec["pool"] for rec in history) > 1
    for rec in history:
        assert rec["trained"] <= 3 * rec["pool"]
    assert "at most 3.0 times its size" in out.with_suffix(".md").read_text()


@pytest.mark.parametrize("args", [["--max-reuse", "1"], ["--max-reuse", "2"]])
def test_max_reuse_needs_a_growing_pool_and_more_than_one(args, capsys):
    extra = ["--stream-capacity", "2500"] if args[1] == "1" else []
    assert main(["train", "--tiny", *args, *extra]) == 2
    assert "--max-reuse" in capsys.readouterr().err
