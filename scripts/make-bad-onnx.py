#!/usr/bin/python3
"""Writes the bad ONNX inputs of tests/data/onnx/bad/ (issue 24) with python3-onnx (no PyTorch).

    /usr/bin/python3 scripts/make-bad-onnx.py
Each file is one way a model can be unusable; the tests expect exit 2 and a message naming the file
and the node or field. They also seed the ONNX reader's fuzz target.
"""
import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "onnx", "bad")
DATA = os.path.join(HERE, "..", "tests", "data", "onnx")


def conv_model(x_shape, w_shape, name):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, w_shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    node = helper.make_node("Conv", ["x", "w"], ["y"], name=name, pads=[1, 1, 1, 1])
    graph = helper.make_graph([node], "bad", [x, w], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def save(model, name):
    onnx.save(model, os.path.join(OUT, name))


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "not_onnx.onnx"), "w") as f:
        f.write("this is a text file, not an ONNX model\n")
    with open(os.path.join(DATA, "conv1d.onnx"), "rb") as f:
        data = f.read()
    with open(os.path.join(OUT, "truncated.onnx"), "wb") as f:
        f.write(data[: len(data) // 2 + 3])
    # The weight's shape is unknown and nothing in the graph determines it.
    save(conv_model([1, 3, 8, 8], None, "conv_no_weight_shape"), "missing_shape.onnx")
    save(conv_model([1, 0, 8, 8], [4, 0, 3, 3], "conv_zero"), "zero_dimension.onnx")
    save(conv_model([1, 3, -2, 8], [4, 3, 3, 3], "conv_negative"), "negative_dimension.onnx")
    save(conv_model([1, 3, "height", 8], [4, 3, 3, 3], "conv_symbolic"), "symbolic_dimension.onnx")
    # Pooling only: no operator the reader models (a ReLU alone would be a layer since issue 35).
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 4, 4])
    pool = helper.make_node("MaxPool", ["x"], ["y"], name="only_pool", kernel_shape=[2, 2], strides=[2, 2])
    graph = helper.make_graph([pool], "pool", [x], [y])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), "no_layers.onnx")


if __name__ == "__main__":
    main()
