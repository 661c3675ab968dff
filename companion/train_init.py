"""Start training from the weights of an exported model (training side only).

The shipped model is int8 ONNX with its batch norms folded into the convolutions; no
float checkpoint of it exists. Training on from it (``companion train --init-from``)
needs those weights back in a :class:`~companion.train.CardNet`:

- each QLinearConv / QGemm weight is dequantized (``(q - zero point) * scale``, per
  output channel) and its int32 bias scaled by ``input scale * weight scale``;
- each folded convolution is split again into a convolution and a batch norm that, in
  evaluation mode, adds the folded bias and nothing else. The norm's running statistics
  are those the folded layer's outputs have on ``sample`` crops, and its scale and shift
  undo them, so that in training mode too (batch statistics near those running ones) the
  network starts out computing what the exported one computes.

The cosine head over the 216 cards is not exported; :func:`card_weights` starts it at each
card's mean embedding.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn


def _quantized_weights(path: Path) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(op type, float weight, float bias) of every QLinearConv and QGemm, in graph order."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    t = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    out = []
    for node in model.graph.node:
        if node.op_type not in ("QLinearConv", "QGemm"):
            continue
        x_scale, w, w_scale, w_zero = (t[n] for n in (node.input[1], node.input[3],
                                                       node.input[4], node.input[5]))
        bias_name = node.input[8] if node.op_type == "QLinearConv" else node.input[6]
        shape = (-1,) + (1,) * (w.ndim - 1)
        weight = (w.astype(np.float32) - w_zero.astype(np.float32).reshape(shape)) \
            * w_scale.astype(np.float32).reshape(shape)
        bias = t[bias_name].astype(np.float32) * float(x_scale) * w_scale.astype(np.float32)
        if node.op_type == "QGemm":
            attrs = {a.name: a for a in node.attribute}
            if "transB" not in attrs or attrs["transB"].i != 1:
                weight = weight.T
        out.append((node.op_type, weight, bias))
    return out


def load_exported(net: nn.Module, path: Path, sample: torch.Tensor) -> None:
    """Sets ``net`` (a CardNet of the exported widths) to the weights of the ONNX model at
    ``path``; ``sample`` (N, 3, S, S) crops set the batch norms' statistics."""
    layers = _quantized_weights(path)
    convs = [(seq[0], seq[1]) for seq in net.trunk if isinstance(seq, nn.Sequential)]
    gemms = [net.embed, net.suit, net.rank, net.kind]
    want = len(convs) + len(gemms)
    if len(layers) != want:
        raise ValueError(f"{path}: {len(layers)} quantized layers, the network has {want}")
    folded_bias = []
    with torch.no_grad():
        for (conv, bn), (op, w, b) in zip(convs, layers):
            if op != "QLinearConv" or tuple(conv.weight.shape) != w.shape:
                raise ValueError(f"{path}: a {op} of shape {w.shape} where the network has "
                                 f"a convolution of {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(w))
            bn.reset_running_stats()
            bn.running_var.fill_(1.0 - bn.eps)  # evaluation mode: x + beta exactly
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b))
            folded_bias.append(torch.from_numpy(b))
        # The order in the graph is embed, suit, rank, kind (as exported).
        for lin, (op, w, b) in zip(gemms, layers[len(convs):]):
            if op != "QGemm" or tuple(lin.weight.shape) != w.shape:
                raise ValueError(f"{path}: a {op} of shape {w.shape} where the network has "
                                 f"a linear layer of {tuple(lin.weight.shape)}")
            lin.weight.copy_(torch.from_numpy(w))
            lin.bias.copy_(torch.from_numpy(b))
        stats = _conv_output_stats(net, [c for c, _ in convs], sample)
        for (_conv, bn), b, (mean, var) in zip(convs, folded_bias, stats):
            bn.running_mean.copy_(mean)
            bn.running_var.copy_(var)
            bn.weight.copy_(torch.sqrt(var + bn.eps))
            bn.bias.copy_(mean + b)


def _conv_output_stats(net: nn.Module, convs: list[nn.Conv2d], sample: torch.Tensor):
    """Per-channel mean and variance of each convolution's output on ``sample``, the
    network in evaluation mode (where it already computes the exported model)."""
    got: dict[int, list[torch.Tensor]] = {i: [] for i in range(len(convs))}
    hooks = [c.register_forward_hook(lambda _m, _i, o, i=i: got[i].append(o.detach()))
             for i, c in enumerate(convs)]
    net.eval()
    try:
        with torch.no_grad():
            for s in range(0, len(sample), 256):
                net(sample[s:s + 256].float())
    finally:
        for h in hooks:
            h.remove()
    out = []
    for i in range(len(convs)):
        o = torch.cat(got[i])
        out.append((o.mean(dim=(0, 2, 3)), o.var(dim=(0, 2, 3))))
    return out


def card_weights(net: nn.Module, x: torch.Tensor, card_index: torch.Tensor,
                 n_cards: int) -> torch.Tensor:
    """(n_cards, dim) each card's mean embedding over the crops ``x`` of it (``card_index``
    -1 for crops that are not a face); a random unit vector for a card with none."""
    net.eval()
    sums = torch.zeros(n_cards, net.embed.out_features)
    with torch.no_grad():
        for s in range(0, len(x), 256):
            e = net(x[s:s + 256].float())[3]
            idx = card_index[s:s + 256]
            keep = idx >= 0
            sums.index_add_(0, idx[keep], e[keep])
    empty = sums.norm(dim=1) == 0
    sums[empty] = torch.randn(int(empty.sum()), sums.shape[1])
    return torch.nn.functional.normalize(sums, dim=1)
