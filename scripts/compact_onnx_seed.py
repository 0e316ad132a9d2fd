#!/usr/bin/python3
"""Writes an ONNX model as a smaller fuzzing seed for onnx_import_fuzz (scripts/fuzz_all.sh): the same nodes,
attributes and initializers, with value_info, doc strings and producer fields dropped and every node and tensor
renamed to a short id, so that an export whose names and declared shapes make most of its bytes fits the
fuzzer's input-length limit. The importer recomputes the shapes (ONNX inference and its own evaluator).
usage: scripts/compact_onnx_seed.py MODEL.onnx OUT.onnx   (needs Debian's python3-onnx)
"""
import sys

import onnx


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    model = onnx.load(sys.argv[1], load_external_data=False)
    graph = model.graph
    ids = {}

    def short(name):
        return ids.setdefault(name, "t%x" % len(ids)) if name else name

    del graph.value_info[:]
    for value in list(graph.input) + list(graph.output):
        value.name = short(value.name)
        value.doc_string = ""
    for tensor in graph.initializer:
        tensor.name = short(tensor.name)
        tensor.doc_string = ""
    for i, node in enumerate(graph.node):
        node.name = "n%x" % i
        node.doc_string = ""
        node.input[:] = [short(name) for name in node.input]
        node.output[:] = [short(name) for name in node.output]
    model.producer_name = model.producer_version = model.doc_string = graph.doc_string = ""
    del model.metadata_props[:]
    onnx.save(model, sys.argv[2])


if __name__ == "__main__":
    main()
