#!/usr/bin/python3
"""Writes the small hand-made ONNX fixtures of the importer's tests with onnx.helper (no PyTorch needed).

Run with Debian's interpreter and python3-onnx (installed by scripts/setup.sh):
    /usr/bin/python3 scripts/make_onnx_fixtures.py [OUT_DIR]      (default tests/ops_counter/data/onnx/ops)

Op fixtures (the counts tests/ops_counter/onnx_ops_test.cpp asserts are computed by hand there):
  conv_groups_bias     Conv 4→6 channels, 3×3, groups 2, bias, pad 1, on 8×8
  matmul_broadcast     MatMul [2,3,4,5] × [3,5,6] (both activations: batched, broadcast)
  layernorm_decomposed ReduceMean, Sub, Pow 2, ReduceMean, Add ε, Sqrt, Div, Mul γ, Add β over [2,5,8]
  layernorm_op         LayerNormalization over the same [2,5,8]
  attention_mask       Q [1,2,6,4], K and V [1,2,5,4]: MatMul(Q, Kᵀ) / 2 + mask → Softmax → MatMul(·, V)
  decode_step          one decode step: Q [1,12,1,64] over 32,768 cached keys, K and V [1,12,32768,64] (inputs:
                       the shapes cost no bytes): MatMul(Q, Kᵀ) / 8 → Softmax → MatMul(·, V)
  decode_cache         a decode step growing its KV cache: Q [1,2,1,4] over Concat(past [1,2,7,4], the step's own
                       [1,2,1,4], a Transpose of an input) keys and values (axis 2 and −2), no mask
  decode_cache_gqa     the same with 4 query heads over 2 K/V heads: the grown cache [1,2,8,4] repeated to the query
                       heads after the update, as Hugging Face's repeat_kv (Reshape, Expand, Reshape)
  concat_memories      Q [1,2,1,4] over Concat(two input memories [1,2,5,4], [1,2,3,4]) as keys and values: no
                       cache grown by the step, so not a decode step
  causal_padded        causal_add's block whose mask the graph adds up: the causal constant + (1 − am)·−10⁴ of a
                       padding input am [1,6] reshaped to [1,1,1,6] (one mask, causal plus a term the same per query)
  causal_padded_fill   the same as Hugging Face fills it: Where(am == 0 over [1,1,1,6], the lowest float, Clip(the
                       causal constant with −inf above, min = the lowest float))
  causal_query_term    causal and biased: the causal constant plus a term of an input [1,1,6] unsqueezed to [1,1,6,1]
                       (the same for every key, so varying per query)·−10⁴, a bias merged into the mask
  causal_zero_fill     not causal: the causal constant filled with 0 (unmasked) where a padding input says
  causal_plus_band     not causal: the causal constant plus a constant band masking keys more than 2 back (a window)
  causal_add           a causal decoder block: Q, K, V [1,2,6,4], MatMul(Q, Kᵀ) / 2 + a constant [1,1,6,6] mask
                       (0 on and below the diagonal, -1e9 above) → Softmax → MatMul(·, V)
  causal_where         the same with the mask as Where(keep [1,1,6,6] bool constant, scores, -inf) (GPT-2's form)
  causal_fill          a causal decode of 3 queries over 7 keys as masked_fill exports it: Where(drop [1,1,3,7]
                       bool constant, -inf, scores); query i sees keys 0..4 + i
  causal_stripped      causal_add with its mask stripped (stored externally, as export_models.py strips weights):
                       whether the block is causal cannot be told
  sdpa_causal_long     the same over 300 tokens: its mask (90,000 elements) too large to fold, followed as a band
  sdpa_causal          PyTorch 2's decomposed scaled_dot_product_attention(q, k, v, is_causal=True) as its
                       opset-14 symbolic writes it, Q, K, V [1,2,6,4]: scale = 1/√(Cast(Shape(q)[-1])) computed in
                       the graph, √scale multiplied into Q and into Kᵀ, the causal mask Where(Trilu(Expand(1,
                       [6, 6])) == 0, -inf, 0) added, Softmax, MatMul(·, V)
  attention_unrecognised  Q, K, V [1,2,6,4]: MatMul(Q, Kᵀ) · w (w an input [1,2,6,6]: no scale the attention
                       pattern knows) → Softmax → MatMul(·, V): counted by the one-node rules and reported
  einsum               Einsum "bhqd, bhkd -> bhqk" of [1,2,6,4] and [1,2,5,4] (a batched GEMM), then Einsum
                       "ij,jk->i" of [6,5] and [5,3] (k summed within one operand: not a GEMM, an unknown op)
  attention_written_softmax  Q, K, V [1,2,6,4]: MatMul(Q, Kᵀ) → Exp → / its ReduceSum → MatMul(·, V) (a softmax
                       written out: reported as unrecognised attention, a swap refused)
  attention_log_softmax  the same through LogSoftmax → Exp
  attention_einsum     Q, K, V [1,2,6,4]: Einsum "bhqd,bhkd->bhqk" → Softmax → Einsum "bhqk,bhkd->bhqd" (attention the
                       pattern does not take: reported as unrecognised, a swap refused)
  unknown_op           Relu → Foo → Foo (an op type ecosim does not know)
  cnn_ops              ConvTranspose 4→2, 3×3, stride 2, bias, on 6×6 → BatchNormalization → MaxPool 3×3 stride 2
                       → GlobalAveragePool
  avgpool_padded       F.avg_pool2d(x, 3, 2, padding=1) on [2, 8, 16, 16] as torch exports it: Pad 1 → AveragePool
  shape_eval           the shape evaluator's ops on small integer tensors and on a float input x [2, 3, 4]: Reshape
                       with 0/−1, Shape → Gather, Slice (negative, clamped, reversed, strided), Range, Where,
                       Expand, Trilu, Tile, ScatterND, Split, Pad, Concat, Transpose, Mod, Div, Cast (values
                       hand-computed in tests/ops_counter/onnx_shape_eval_test.cpp)
  attention23_causal   opset 23's Attention node, Q, K, V [2,4,16,8], is_causal = 1
  attention23_gqa_3d   Attention on rank-3 Q [1,10,64] (q_num_heads 8) and K, V [1,10,16] (kv_num_heads 2):
                       grouped-query attention of width 8
  attention23_cache    a decode step: Q, K, V [1,4,1,8], a bool attn_mask input [1,1,1,32] and past_key,
                       past_value [1,4,31,8] inputs: 1 query over 32 keys
  attention23_mask     Q, K, V [1,2,6,4] with a constant additive causal mask [1,1,6,6] as attn_mask
  shape_eval_opset18   opset 18's forms, newer than libonnx 1.12's schemas: ReduceMean with axes as an input
                       (keepdims 0), Split by num_outputs (uneven), Pad with an axes input, on x [2, 3, 5]
Hostile fixtures (hostile/): each must be refused with a clear error
  attention23_softcap  an Attention node with softcap 30 (a tanh on every score, not counted)
  attention23_causal_cache  is_causal over a KV cache (1 query, 6 keys): ONNX aligns that mask top-left
  cycle                two Relu nodes reading each other's output
  negative_dim         an input of shape [1, -3]
  enormous_dim         an input of shape [1, 2^40]
  missing_shape        a Conv whose input has a symbolic batch dimension
  overflow_initializer an initializer of shape [2^24, 2^24, 2^24] (data stripped: external, never read)
  undefined_input      a node reading a tensor nothing defines
  deep_nesting         If nodes nested 80 deep in each other's branches
  missing_operand      a Conv without its weights (found by the fuzzer: an operand read past the node's inputs)
  empty_operand        a MatMul of a [2, 3, 0, 5] tensor (found by the fuzzer: a division by its zero rows)
  empty_initializer    Range(0, 10, delta) whose scalar delta stores no value (found by the fuzzer: libonnx
                       1.12's Range inference read it)
  shape_cycle          a Reshape whose target is the Shape of its own output
  huge_range           Range(0, 10^12, 1)
  huge_computed_range  Range(0, 10^6 · 10^6, 1): the limit computed, so that ecosim's evaluator (not ONNX
                       inference) meets it
  shape_of_unknown     a Reshape to Concat(Unsqueeze(Gather(Shape(x)))) of an input x ["N", 4], then a Relu
  bad_reshape          a Reshape of x [2, 3] to the computed target [2, 4]
  shape_of_unknown_op  Cast(Shape(Foo(x))): the Shape of a tensor without a type (libonnx 1.12's data propagation
                       crashed on it)
  shape_before_producer  Shape(r) listed before the Relu that produces r (crashed libonnx the same way)
  gather_out_of_range  Gather(Shape(x), Range(5, 6, 1)) of x [2, 3] (the index computed: ONNX inference does not
                       see it)
Weights of the fixtures are stripped as in export_models.py: dims kept, data marked external at location
"stripped" (a file that does not exist and that ecosim never opens).
"""
import pathlib
import sys

import onnx
from onnx import TensorProto, helper

OPSET = 17
FLOAT = TensorProto.FLOAT


def stripped(name, dims):
    """A float initializer of `dims` whose data is external at a location that does not exist."""
    t = TensorProto(name=name, data_type=FLOAT, dims=dims)
    t.data_location = TensorProto.EXTERNAL
    entry = t.external_data.add()
    entry.key, entry.value = "location", "stripped"
    return t


def scalar(name, value):
    return helper.make_tensor(name, FLOAT, [], [value])


def io(name, dims):
    return helper.make_tensor_value_info(name, FLOAT, dims)


def model(name, nodes, inputs, outputs, initializers=(), value_info=(), opset=OPSET):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers), value_info=list(value_info))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_onnx_fixtures")
    m.ir_version = 8
    return m


def causal_block(name, queries, keys, value, dtype, mask_nodes, extra=()):
    """Q [1,2,queries,4] over K, V [1,2,keys,4] with a causal mask constant [1,1,queries,keys] of value(i, j, shift)
    (shift = keys − queries: query i sits at position shift + i), applied by mask_nodes("causal") between the
    scale and the softmax."""
    n = helper.make_node
    shift = keys - queries
    values = [value(i, j, shift) for i in range(queries) for j in range(keys)]
    mask = helper.make_tensor("causal", dtype, [1, 1, queries, keys], values)
    return model(name, [
        n("Transpose", ["k"], ["kt"], name="k_transpose", perm=[0, 1, 3, 2]),
        n("MatMul", ["q", "kt"], ["scores"], name="scores"),
        n("Div", ["scores", "scale"], ["scaled"], name="scale"),
        *mask_nodes("causal"),
        n("Softmax", ["masked"], ["p"], name="softmax", axis=-1),
        n("MatMul", ["p", "v"], ["out"], name="context"),
    ], [io("q", [1, 2, queries, 4]), io("k", [1, 2, keys, 4]), io("v", [1, 2, keys, 4])],
        [io("out", [1, 2, queries, 4])], [scalar("scale", 2.0), mask, *extra])


def sdpa_causal(name, tokens):
    """torch/onnx/symbolic_opset14.py's scaled_dot_product_attention (with _attention_scale and
    _causal_attention_mask), node for node, over `tokens` queries and keys."""
    n = helper.make_node
    shape = [1, 2, tokens, 4]
    return model(name, [
        n("Shape", ["q"], ["q_shape"], name="scale_shape"),
        n("Slice", ["q_shape", "minus_one", "int_max"], ["width"], name="scale_width"),
        n("Cast", ["width"], ["width_f"], name="scale_cast", to=FLOAT),
        n("Sqrt", ["width_f"], ["sqrt_width"], name="scale_sqrt"),
        n("Div", ["one", "sqrt_width"], ["scale_f"], name="scale_div"),
        n("Cast", ["scale_f"], ["scale"], name="scale_cast_back", to=FLOAT),
        n("Shape", ["q"], ["mask_q_shape"], name="mask_q_shape"),
        n("Shape", ["k"], ["mask_k_shape"], name="mask_k_shape"),
        n("Slice", ["mask_q_shape", "minus_two", "minus_one"], ["target"], name="mask_target"),
        n("Slice", ["mask_k_shape", "minus_two", "minus_one"], ["source"], name="mask_source"),
        n("Concat", ["target", "source"], ["mask_size"], name="mask_size", axis=0),
        n("Expand", ["one", "mask_size"], ["ones"], name="mask_ones"),
        n("Trilu", ["ones"], ["lower"], name="mask_trilu", upper=0),
        n("Equal", ["lower", "zero"], ["hidden"], name="mask_equal"),
        n("Where", ["hidden", "minus_inf", "zero"], ["mask"], name="mask_where"),
        n("Transpose", ["k"], ["kt"], name="k_transpose", perm=[0, 1, 3, 2]),
        n("Sqrt", ["scale"], ["sqrt_scale_q"], name="q_sqrt_scale"),
        n("Mul", ["q", "sqrt_scale_q"], ["q_scaled"], name="q_scale"),
        n("Sqrt", ["scale"], ["sqrt_scale_k"], name="k_sqrt_scale"),
        n("Mul", ["kt", "sqrt_scale_k"], ["kt_scaled"], name="k_scale"),
        n("MatMul", ["q_scaled", "kt_scaled"], ["scores"], name="scores"),
        n("Add", ["scores", "mask"], ["masked"], name="mask_add"),
        n("Softmax", ["masked"], ["p"], name="softmax", axis=-1),
        n("MatMul", ["p", "v"], ["out"], name="context"),
    ], [io("q", shape), io("k", shape), io("v", shape)], [io("out", shape)],
        [ints("minus_one", [-1]), ints("minus_two", [-2]), ints("int_max", [2**63 - 1]),
         helper.make_tensor("one", FLOAT, [1], [1.0]), helper.make_tensor("zero", FLOAT, [1], [0.0]),
         helper.make_tensor("minus_inf", FLOAT, [1], [float("-inf")])])


def op_fixtures():
    n = helper.make_node
    yield "conv_groups_bias", model(
        "conv", [n("Conv", ["x", "w", "b"], ["y"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=2)],
        [io("x", [1, 4, 8, 8])], [io("y", [1, 6, 8, 8])], [stripped("w", [6, 2, 3, 3]), stripped("b", [6])])
    yield "matmul_broadcast", model(
        "matmul", [n("MatMul", ["a", "b"], ["c"], name="matmul")],
        [io("a", [2, 3, 4, 5]), io("b", [3, 5, 6])], [io("c", [2, 3, 4, 6])])
    x = [2, 5, 8]
    yield "layernorm_decomposed", model("layernorm", [
        n("ReduceMean", ["x"], ["mean"], name="mean", axes=[-1]),
        n("Sub", ["x", "mean"], ["d"], name="centre"),
        n("Pow", ["d", "two"], ["d2"], name="square"),
        n("ReduceMean", ["d2"], ["var"], name="variance", axes=[-1]),
        n("Add", ["var", "eps"], ["var_eps"], name="eps"),
        n("Sqrt", ["var_eps"], ["std"], name="std"),
        n("Div", ["d", "std"], ["normed"], name="normalise"),
        n("Mul", ["normed", "gamma"], ["scaled"], name="gamma"),
        n("Add", ["scaled", "beta"], ["y"], name="beta"),
    ], [io("x", x)], [io("y", x)], [scalar("two", 2.0), scalar("eps", 1e-5), stripped("gamma", [8]),
                                    stripped("beta", [8])])
    yield "layernorm_op", model(
        "layernorm_op", [n("LayerNormalization", ["x", "gamma", "beta"], ["y"], name="ln", axis=-1)],
        [io("x", x)], [io("y", x)], [stripped("gamma", [8]), stripped("beta", [8])])
    yield "attention_mask", model("attention", [
        n("Transpose", ["k"], ["kt"], name="k_transpose", perm=[0, 1, 3, 2]),
        n("MatMul", ["q", "kt"], ["scores"], name="scores"),
        n("Div", ["scores", "scale"], ["scaled"], name="scale"),
        n("Add", ["scaled", "mask"], ["masked"], name="mask"),
        n("Softmax", ["masked"], ["p"], name="softmax", axis=-1),
        n("MatMul", ["p", "v"], ["out"], name="context"),
    ], [io("q", [1, 2, 6, 4]), io("k", [1, 2, 5, 4]), io("v", [1, 2, 5, 4]), io("mask", [1, 1, 6, 5])],
        [io("out", [1, 2, 6, 4])], [scalar("scale", 2.0)])
    yield "decode_step", model("decode", [
        n("Transpose", ["k"], ["kt"], name="k_transpose", perm=[0, 1, 3, 2]),
        n("MatMul", ["q", "kt"], ["scores"], name="scores"),
        n("Div", ["scores", "scale"], ["scaled"], name="scale"),
        n("Softmax", ["scaled"], ["p"], name="softmax", axis=-1),
        n("MatMul", ["p", "v"], ["out"], name="context"),
    ], [io("q", [1, 12, 1, 64]), io("k", [1, 12, 32768, 64]), io("v", [1, 12, 32768, 64])],
        [io("out", [1, 12, 1, 64])], [scalar("scale", 8.0)])
    # a decode step growing its KV cache: the 7 cached keys and values (inputs) concatenated with the step's own
    # (computed in the step: here laid out from the step's inputs by a Transpose)
    yield "decode_cache", model("decode_cache", [
        n("Transpose", ["step_k"], ["new_k"], name="k_new", perm=[0, 1, 3, 2]),
        n("Transpose", ["step_v"], ["new_v"], name="v_new", perm=[0, 1, 3, 2]),
        n("Concat", ["past_k", "new_k"], ["k"], name="k_cache", axis=2),
        n("Concat", ["past_v", "new_v"], ["v"], name="v_cache", axis=-2),
        n("Transpose", ["k"], ["kt"], name="k_transpose", perm=[0, 1, 3, 2]),
        n("MatMul", ["q", "kt"], ["scores"], name="scores"),
        n("Div", ["scores", "scale"], ["scaled"], name="scale"),
        n("Softmax", ["scaled"], ["p"], name="softmax", axis=-1),
        n("MatMul", ["p", "v"], ["out"], name="context"),
    ], [io("q", [1, 2, 1, 4]), io("past_k", [1, 2, 7, 4]), io("step_k", [1, 2, 4, 1]), io("past_v", [1, 2, 7, 4]),
        io("step_v", [1, 2, 4, 1])], [io("out", [1, 2, 1, 4])], [scalar("scale", 2.0)])
    # the same grouped: 4 query heads over 2 K/V heads, the grown cache repeated to the query heads after the update
    repeat = [[n("Reshape", [f"{t}", "kv_split"], [f"{t}_5d"], name=f"{t}_unsqueeze"),
               n("Expand", [f"{t}_5d", "kv_expanded"], [f"{t}_expanded"], name=f"{t}_expand"),
               n("Reshape", [f"{t}_expanded", "kv_merged"], [f"{t}_repeated"], name=f"{t}_repeat")] for t in ("k", "v")]
    yield "decode_cache_gqa", model("decode_cache_gqa", [
        n("Transpose", ["step_k"], ["new_k"], name="k_new", perm=[0, 1, 3, 2]),
        n("Transpose", ["step_v"], ["new_v"], name="v_new", perm=[0, 1, 3, 2]),
        n("Concat", ["past_k", "new_k"], ["k"], name="k_cache", axis=2),
        n("Concat", ["past_v", "new_v"], ["v"], name="v_cache", axis=2),
        *repeat[0], *repeat[1],
        n("Transpose", ["k_repeated"], ["kt"], name="k_transpose", perm=[0, 1, 3, 2]),
        n("MatMul", ["q", "kt"], ["scores"], name="scores"),
        n("Div", ["scores", "scale"], ["scaled"], name="scale"),
        n("Softmax", ["scaled"], ["p"], name="softmax", axis=-1),
        n("MatMul", ["p", "v_repeated"], ["out"], name="context"),
    ], [io("q", [1, 4, 1, 4]), io("past_k", [1, 2, 7, 4]), io("step_k", [1, 2, 4, 1]), io("past_v", [1, 2, 7, 4]),
        io("step_v", [1, 2, 4, 1])], [io("out", [1, 4, 1, 4])],
        [scalar("scale", 2.0), ints("kv_split", [1, 2, 1, 8, 4]), ints("kv_expanded", [1, 2, 2, 8, 4]),
         ints("kv_merged", [1, 4, 8, 4])])
    # one query over two memories given as inputs, concatenated (attention pooling): no cache grown, not causal
    yield "concat_memories", model("concat_memories", [
        n("Concat", ["memory_a", "memory_b"], ["k"], name="keys", axis=2),
        n("Transpose", ["k"], ["kt"], name="k_transpose", perm=[0, 1, 3, 2]),
        n("MatMul", ["q", "kt"], ["scores"], name="scores"),
        n("Div", ["scores", "scale"], ["scaled"], name="scale"),
        n("Softmax", ["scaled"], ["p"], name="softmax", axis=-1),
        n("MatMul", ["p", "k"], ["out"], name="context"),
    ], [io("q", [1, 2, 1, 4]), io("memory_a", [1, 2, 5, 4]), io("memory_b", [1, 2, 3, 4])], [io("out", [1, 2, 1, 4])],
        [scalar("scale", 2.0)])
    # a causal mask summed with a padding term of an input (the same for every query): one mask, still causal
    padding = [n("Sub", ["one", "am"], ["pad"], name="pad_invert"),
               n("Reshape", ["pad", "pad_shape"], ["pad_4d"], name="pad_unsqueeze")]
    lowest = -3.4028234663852886e38
    for name, combine in (
            ("causal_padded", [n("Mul", ["pad_4d", "pad_scale"], ["pad_term"], name="pad_term"),
                               n("Add", ["causal", "pad_term"], ["mask"], name="mask_sum")]),
            ("causal_padded_fill", [n("Cast", ["pad_4d"], ["pad_bool"], name="pad_bool", to=TensorProto.BOOL),
                                    n("Clip", ["causal", "lowest", ""], ["causal_clipped"], name="causal_clip"),
                                    n("Where", ["pad_bool", "lowest", "causal_clipped"], ["mask"], name="mask_fill")])):
        block = causal_block(name, 6, 6, lambda i, j, shift: 0.0 if j <= shift + i else
                             (-1e9 if name == "causal_padded" else float("-inf")), FLOAT,
                             lambda mask, combine=combine: [*padding, *combine,
                                                            n("Add", ["scaled", "mask"], ["masked"], name="mask")],
                             [scalar("one", 1.0), scalar("pad_scale", -1e4), scalar("lowest", lowest),
                              ints("pad_shape", [1, 1, 1, 6])])
        block.graph.input.append(io("am", [1, 6]))
        yield name, block
    # look-alikes that are not causal: a term varying per query, and a fill that unmasks
    for name, mask_nodes, am_dims in (
            ("causal_query_term", [n("Unsqueeze", ["am", "query_axis"], ["am_4d"], name="am_unsqueeze"),
                                   n("Mul", ["am_4d", "pad_scale"], ["term"], name="term"),
                                   n("Add", ["causal", "term"], ["mask"], name="mask_sum")], [1, 1, 6]),
            ("causal_zero_fill", [*padding, n("Cast", ["pad_4d"], ["pad_bool"], name="pad_bool", to=TensorProto.BOOL),
                                  n("Where", ["pad_bool", "zero", "causal"], ["mask"], name="mask_fill")], [1, 6])):
        block = causal_block(name, 6, 6, lambda i, j, shift: 0.0 if j <= shift + i else -1e9, FLOAT,
                             lambda mask, mask_nodes=mask_nodes: [*mask_nodes,
                                                                  n("Add", ["scaled", "mask"], ["masked"], name="mask")],
                             [scalar("one", 1.0), scalar("pad_scale", -1e4), scalar("zero", 0.0),
                              ints("pad_shape", [1, 1, 1, 6]), ints("query_axis", [3])])
        block.graph.input.append(io("am", am_dims))
        yield name, block
    # the causal constant plus a constant band (keys more than 2 back masked): a sliding window, not causal (its
    # values known, the sum's own values tell; only a term computed at run time is taken for a bias)
    band = helper.make_tensor("band", FLOAT, [1, 1, 6, 6], [-1e9 if j < i - 2 else 0.0 for i in range(6)
                                                             for j in range(6)])
    yield "causal_plus_band", causal_block("causal_plus_band", 6, 6, lambda i, j, shift: 0.0 if j <= shift + i else
                                           -1e9, FLOAT, lambda mask: [n("Add", [mask, "band"], ["mask"], name="sum"),
                                                                      n("Add", ["scaled", "mask"], ["masked"],
                                                                        name="mask")], [band])
    yield "causal_add", causal_block("causal_add", 6, 6, lambda i, j, shift: 0.0 if j <= shift + i else -1e9,
                                     FLOAT, lambda mask: [n("Add", ["scaled", mask], ["masked"], name="mask")])
    yield "causal_where", causal_block(
        "causal_where", 6, 6, lambda i, j, shift: j <= shift + i, TensorProto.BOOL,
        lambda mask: [n("Where", [mask, "scaled", "fill"], ["masked"], name="mask")], [scalar("fill", float("-inf"))])
    yield "causal_fill", causal_block(
        "causal_fill", 3, 7, lambda i, j, shift: j > shift + i, TensorProto.BOOL,
        lambda mask: [n("Where", [mask, "fill", "scaled"], ["masked"], name="mask")], [scalar("fill", float("-inf"))])
    stripped_mask = causal_block("causal_stripped", 6, 6, lambda i, j, shift: 0.0, FLOAT,
                                 lambda mask: [n("Add", ["scaled", mask], ["masked"], name="mask")])
    for i, t in enumerate(stripped_mask.graph.initializer):
        if t.name == "causal":
            stripped_mask.graph.initializer[i].CopyFrom(stripped("causal", [1, 1, 6, 6]))
    yield "causal_stripped", stripped_mask
    yield "sdpa_causal", sdpa_causal("sdpa_causal", 6)
    yield "sdpa_causal_long", sdpa_causal("sdpa_causal_long", 300)
    yield "einsum", model("einsum", [
        n("Einsum", ["q", "k"], ["scores"], name="scores", equation="bhqd, bhkd -> bhqk"),
        n("Einsum", ["a", "b"], ["rows"], name="rows", equation="ij,jk->i"),
    ], [io("q", [1, 2, 6, 4]), io("k", [1, 2, 5, 4]), io("a", [6, 5]), io("b", [5, 3])],
        [io("scores", [1, 2, 6, 5]), io("rows", [6])])
    yield "attention_unrecognised", model("unrecognised", [
        n("Transpose", ["k"], ["kt"], name="k_transpose", perm=[0, 1, 3, 2]),
        n("MatMul", ["q", "kt"], ["scores"], name="scores"),
        n("Mul", ["scores", "w"], ["weighted"], name="weight"),
        n("Softmax", ["weighted"], ["p"], name="softmax", axis=-1),
        n("MatMul", ["p", "v"], ["out"], name="context"),
    ], [io("q", [1, 2, 6, 4]), io("k", [1, 2, 6, 4]), io("v", [1, 2, 6, 4]), io("w", [1, 2, 6, 6])],
        [io("out", [1, 2, 6, 4])])
    qkv = [io("q", [1, 2, 6, 4]), io("k", [1, 2, 6, 4]), io("v", [1, 2, 6, 4])]
    yield "attention_written_softmax", model("written_softmax", [
        n("Transpose", ["k"], ["kt"], name="k_transpose", perm=[0, 1, 3, 2]),
        n("MatMul", ["q", "kt"], ["scores"], name="scores"),
        n("Exp", ["scores"], ["e"], name="exp"),
        n("ReduceSum", ["e", "last"], ["sum"], name="sum", keepdims=1),
        n("Div", ["e", "sum"], ["p"], name="normalise"),
        n("MatMul", ["p", "v"], ["out"], name="context"),
    ], qkv, [io("out", [1, 2, 6, 4])], [ints("last", [-1])])
    yield "attention_log_softmax", model("log_softmax", [
        n("Transpose", ["k"], ["kt"], name="k_transpose", perm=[0, 1, 3, 2]),
        n("MatMul", ["q", "kt"], ["scores"], name="scores"),
        n("LogSoftmax", ["scores"], ["l"], name="log_softmax", axis=-1),
        n("Exp", ["l"], ["p"], name="exp"),
        n("MatMul", ["p", "v"], ["out"], name="context"),
    ], qkv, [io("out", [1, 2, 6, 4])])
    yield "attention_einsum", model("attention_einsum", [
        n("Einsum", ["q", "k"], ["scores"], name="scores", equation="bhqd,bhkd->bhqk"),
        n("Softmax", ["scores"], ["p"], name="softmax", axis=-1),
        n("Einsum", ["p", "v"], ["out"], name="context", equation="bhqk,bhkd->bhqd"),
    ], [io("q", [1, 2, 6, 4]), io("k", [1, 2, 6, 4]), io("v", [1, 2, 6, 4])], [io("out", [1, 2, 6, 4])])
    yield "cnn_ops", model("cnn", [
        n("ConvTranspose", ["x", "w", "b"], ["up"], name="deconv", kernel_shape=[3, 3], strides=[2, 2]),
        n("BatchNormalization", ["up", "scale", "bias", "mean", "var"], ["bn"], name="bn"),
        n("MaxPool", ["bn"], ["pooled"], name="maxpool", kernel_shape=[3, 3], strides=[2, 2]),
        n("GlobalAveragePool", ["pooled"], ["y"], name="gap"),
    ], [io("x", [1, 4, 6, 6])], [io("y", [1, 2, 1, 1])],
        [stripped("w", [4, 2, 3, 3]), stripped("b", [2])] + [stripped(c, [2]) for c in ("scale", "bias", "mean", "var")])
    # F.avg_pool2d(x, 3, 2, padding=1) as torch exports it: a zero Pad, then the pool
    yield "avgpool_padded", model("avgpool_padded", [
        n("Pad", ["x", "pads"], ["padded"], name="pad", mode="constant"),
        n("AveragePool", ["padded"], ["y"], name="avgpool", kernel_shape=[3, 3], strides=[2, 2]),
    ], [io("x", [2, 8, 16, 16])], [io("y", [2, 8, 8, 8])],
        [helper.make_tensor("pads", TensorProto.INT64, [8], [0, 0, 1, 1, 0, 0, 1, 1])])
    # a tied head: the token table gathered, then read again (transposed by Gemm) as the head's weight
    yield "tied_head", model(
        "tied_head", [n("Gather", ["table", "ids"], ["x"], name="embed"),
                      n("Gemm", ["x", "table"], ["logits"], name="head", transB=1)],
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [4])], [io("logits", [4, 10])],
        [stripped("table", [10, 6])])
    yield "dropout_runtime_mode", model(
        "dropout_runtime_mode", [n("Dropout", ["x", "ratio", "mode"], ["y"], name="drop")],
        [io("x", [2, 8]), helper.make_tensor_value_info("mode", TensorProto.BOOL, [])], [io("y", [2, 8])],
        [scalar("ratio", 0.1)])
    yield from attention23_fixtures()
    yield "unknown_op", model("unknown", [
        n("Relu", ["x"], ["r"], name="relu"),
        n("Foo", ["r"], ["f"], name="foo1"),
        n("Foo", ["f"], ["y"], name="foo2"),
    ], [io("x", [1, 16])], [io("y", [1, 16])], value_info=[io("f", [1, 16])])


def attention23(name, inputs, shapes, out_shape, initializers=(), **attributes):
    """One opset-23 Attention node reading `inputs` (shapes: the graph inputs' dims, by name; "" = omitted)."""
    node = helper.make_node("Attention", inputs, ["y"], name="attention", **attributes)
    graph_inputs = [io(k, v) if k != "mask_in" else helper.make_tensor_value_info(k, TensorProto.BOOL, v)
                    for k, v in shapes.items()]
    return model(name, [node], graph_inputs, [io("y", out_shape)], initializers, opset=23)


def attention23_fixtures():
    yield "attention23_causal", attention23(
        "attention23_causal", ["q", "k", "v"], {"q": [2, 4, 16, 8], "k": [2, 4, 16, 8], "v": [2, 4, 16, 8]},
        [2, 4, 16, 8], is_causal=1)
    yield "attention23_gqa_3d", attention23(
        "attention23_gqa_3d", ["q", "k", "v"], {"q": [1, 10, 64], "k": [1, 10, 16], "v": [1, 10, 16]}, [1, 10, 64],
        q_num_heads=8, kv_num_heads=2)
    yield "attention23_cache", attention23(
        "attention23_cache", ["q", "k", "v", "mask_in", "past_k", "past_v"],
        {"q": [1, 4, 1, 8], "k": [1, 4, 1, 8], "v": [1, 4, 1, 8], "mask_in": [1, 1, 1, 32],
         "past_k": [1, 4, 31, 8], "past_v": [1, 4, 31, 8]}, [1, 4, 1, 8])
    mask = helper.make_tensor("causal", FLOAT, [1, 1, 6, 6], [0.0 if j <= i else -1e9 for i in range(6) for j in range(6)])
    yield "attention23_mask", attention23(
        "attention23_mask", ["q", "k", "v", "causal"], {"q": [1, 2, 6, 4], "k": [1, 2, 6, 4], "v": [1, 2, 6, 4]},
        [1, 2, 6, 4], [mask])


def ints(name, values, dims=None):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)] if dims is None else dims, values)


def shape_eval_fixture():
    n = helper.make_node
    big = 2 ** 63 - 1
    nodes = [
        n("Reshape", ["x", "c_0_m1"], ["reshape_0_m1"]),              # [2, 12]
        n("Reshape", ["x", "c_m1_0_2"], ["reshape_m1_0_2"]),          # [4, 3, 2]
        n("Shape", ["x"], ["shape"]),                                 # [2, 3, 4]
        n("Gather", ["shape", "c_1_scalar"], ["gather_scalar"]),      # 3 (rank 0)
        n("Gather", ["shape", "c_m1_0"], ["gather_list"]),            # [4, 2]
        n("Slice", ["shape", "c_m2", "c_big"], ["slice_tail"]),       # [3, 4]
        n("Slice", ["shape", "c_m1", "c_min", "c_0", "c_m1"], ["slice_reversed"]),  # [4, 3, 2]
        n("Slice", ["shape", "c_5", "c_100"], ["slice_clamped"]),     # []
        n("Range", ["i_0", "i_10", "i_1"], ["range_10"]),             # 0..9
        n("Slice", ["range_10", "c_1", "c_100", "c_0", "c_3"], ["slice_step"]),  # [1, 4, 7]
        n("Range", ["i_10", "i_0", "i_m4"], ["range_down"]),          # [10, 6, 2]
        n("Equal", ["shape", "c_3"], ["is_3"]),
        n("Where", ["is_3", "c_m1", "shape"], ["where"]),             # [2, -1, 4]
        n("Expand", ["col", "c_2_1_4"], ["expand"]),                  # [2, 3, 4] of 1, 2, 3 by row
        n("ConstantOfShape", ["c_3_3"], ["ones"], value=ints("one", [1], [1])),
        n("Trilu", ["ones"], ["lower"], upper=0),
        n("Trilu", ["ones", "i_1"], ["upper_1"]),
        n("Tile", ["row", "c_2_2"], ["tile"]),                        # [[5, 6, 5, 6], [5, 6, 5, 6]]
        n("ScatterND", ["ones", "rows_2_0", "rows_upd"], ["scatter_rows"]),  # [[4, 5, 6], [1, 1, 1], [7, 8, 9]]
        n("ScatterND", ["ones", "elem_1_m1", "elem_upd"], ["scatter_elem"]),  # ones with [1][2] = 0
        n("Split", ["range_7", "c_2_5"], ["split_a", "split_b"]),     # [0, 1], [2..6]
        n("Split", ["range_6"], ["half_a", "half_b"]),                # [0, 1, 2], [3, 4, 5]
        n("Range", ["i_0", "i_7", "i_1"], ["range_7"]),
        n("Range", ["i_0", "i_6", "i_1"], ["range_6"]),
        n("Pad", ["row", "c_1_0_0_1"], ["pad"]),                      # [[0, 0, 0], [5, 6, 0]]
        n("Concat", ["gather_list", "c_1"], ["pads_x"], axis=0),      # [4, 2, 1] -> a computed pad
        n("Concat", ["pads_x", "c_0_0_0"], ["pads_x6"], axis=0),      # [4, 2, 1, 0, 0, 0]
        n("Pad", ["x", "pads_x6"], ["pad_x"]),                        # [6, 5, 5]
        n("Transpose", ["row_col"], ["transposed"], perm=[1, 0]),     # [[1, 3], [2, 4]]
        n("Mod", ["c_m7_7", "c_3_m3"], ["mod"]),                      # [2, -2]
        n("Div", ["c_m7_7", "c_2"], ["div"]),                         # [-3, 3]
        n("Cast", ["f_27", ], ["cast"], to=TensorProto.INT64),        # [2, -2]
        n("MatMul", ["x", "w"], ["matmul"]),                          # [2, 3, 5]
        n("Clip", ["f_m2_5_9", "f_8", "f_3"], ["clip_crossed"]),       # min > max: [3, 3, 3]
        n("Clip", ["f_m2_5_9", "f_0", ""], ["clip_low"]),              # [0, 5, 9]
        n("Clip", ["f_m2_5_9", "f_nan", ""], ["clip_nan"]),            # NaN: no value folded
    ]
    init = [ints("c_0_m1", [0, -1]), ints("c_m1_0_2", [-1, 0, 2]), ints("c_1_scalar", [1], []),
            ints("c_m1_0", [-1, 0]), ints("c_m2", [-2]), ints("c_big", [big]), ints("c_m1", [-1]),
            ints("c_min", [-big - 1]), ints("c_0", [0]), ints("c_5", [5]), ints("c_100", [100]), ints("c_1", [1]),
            ints("c_3", [3]), ints("i_0", [0], []), ints("i_1", [1], []), ints("i_10", [10], []),
            ints("i_m4", [-4], []), ints("i_7", [7], []), ints("i_6", [6], []), ints("col", [1, 2, 3], [3, 1]),
            ints("c_2_1_4", [2, 1, 4]), ints("c_3_3", [3, 3]), ints("row", [5, 6], [1, 2]), ints("c_2_2", [2, 2]),
            ints("c_2_5", [2, 5]), ints("c_1_0_0_1", [1, 0, 0, 1]), ints("c_0_0_0", [0, 0, 0]),
            ints("row_col", [1, 2, 3, 4], [2, 2]), ints("rows_2_0", [2, 0], [2, 1]),
            ints("rows_upd", [7, 8, 9, 4, 5, 6], [2, 3]), ints("elem_1_m1", [1, -1], [1, 2]), ints("elem_upd", [0]), ints("c_m7_7", [-7, 7]), ints("c_3_m3", [3, -3]), ints("c_2", [2]),
            helper.make_tensor("f_27", FLOAT, [2], [2.7, -2.7]), stripped("w", [4, 5]),
            helper.make_tensor("f_m2_5_9", FLOAT, [3], [-2.0, 5.0, 9.0]), scalar("f_8", 8.0), scalar("f_3", 3.0),
            scalar("f_0", 0.0), scalar("f_nan", float("nan"))]
    outputs = [n_.output[k] for n_ in nodes for k in range(len(n_.output))]
    return model("shape_eval", nodes, [io("x", [2, 3, 4])],
                 [helper.make_empty_tensor_value_info(o) for o in outputs], init)


def shape_eval_opset18_fixture():
    n = helper.make_node
    return model("shape_eval_opset18", [
        n("ReduceMean", ["x", "last"], ["mean"], keepdims=0),  # [2, 3]
        n("Split", ["x"], ["part_a", "part_b"], axis=2, num_outputs=2),  # [2, 3, 3], [2, 3, 2]
        n("Pad", ["x", "pads", "", "middle"], ["padded"]),  # [2, 6, 5]
    ], [io("x", [2, 3, 5])], [helper.make_empty_tensor_value_info(o) for o in ("mean", "part_a", "part_b", "padded")],
        [ints("last", [-1]), ints("pads", [1, 2]), ints("middle", [1])], opset=18)


def nested_if(depth):
    """An If node whose then-branch holds an If node, `depth` deep."""
    leaf = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "leaf", [], [io("y", [1])])
    branch = leaf
    for level in range(depth):
        node = helper.make_node("If", ["c"], ["y"], name=f"if{level}", then_branch=branch, else_branch=leaf)
        branch = helper.make_graph([node], f"level{level}", [], [io("y", [1])])
    return branch.node[0]


def hostile_fixtures():
    n = helper.make_node
    yield "attention23_softcap", attention23(
        "attention23_softcap", ["q", "k", "v"], {"q": [1, 2, 6, 4], "k": [1, 2, 6, 4], "v": [1, 2, 6, 4]},
        [1, 2, 6, 4], softcap=30.0)
    yield "attention23_causal_cache", attention23(
        "attention23_causal_cache", ["q", "k", "v", "", "past_k", "past_v"],
        {"q": [1, 2, 1, 4], "k": [1, 2, 1, 4], "v": [1, 2, 1, 4], "past_k": [1, 2, 5, 4], "past_v": [1, 2, 5, 4]},
        [1, 2, 1, 4], is_causal=1)
    yield "cycle", model("cycle", [n("Relu", ["b"], ["a"], name="r1"), n("Relu", ["a"], ["b"], name="r2")],
                         [], [io("a", [1, 4])])
    yield "negative_dim", model("negative", [n("Relu", ["x"], ["y"], name="relu")], [io("x", [1, -3])],
                                [io("y", [1, 3])])
    yield "enormous_dim", model("enormous", [n("Relu", ["x"], ["y"], name="relu")], [io("x", [1, 2 ** 40])],
                                [io("y", [1, 2 ** 40])])
    yield "missing_shape", model(
        "missing", [n("Conv", ["x", "w"], ["y"], name="conv", kernel_shape=[3, 3])],
        [io("x", ["N", 3, 8, 8])], [io("y", ["N", 4, 6, 6])], [stripped("w", [4, 3, 3, 3])])
    yield "overflow_initializer", model(
        "overflow", [n("MatMul", ["x", "w"], ["y"], name="matmul")], [io("x", [1, 2 ** 24])],
        [io("y", [1, 2 ** 24])], [stripped("w", [2 ** 24, 2 ** 24, 2 ** 24])])
    yield "undefined_input", model("undefined", [n("Relu", ["nowhere"], ["y"], name="relu")], [],
                                   [io("y", [1, 4])])
    yield "missing_operand", model("missing_operand", [n("Conv", ["x"], ["y"], name="conv", kernel_shape=[3, 3])],
                                   [io("x", [1, 3, 8, 8])], [io("y", [1, 4, 6, 6])])
    yield "empty_operand", model("empty_operand", [n("MatMul", ["a", "b"], ["c"], name="matmul")],
                                 [io("a", [2, 3, 0, 5]), io("b", [6, 5, 6])], [io("c", [2, 3, 0, 6])])
    no_value = TensorProto(name="delta", data_type=TensorProto.INT64)  # a scalar (no dims) without its value
    yield "empty_initializer", model("empty_initializer", [n("Range", ["start", "limit", "delta"], ["r"], name="range")],
                                     [], [helper.make_tensor_value_info("r", TensorProto.INT64, None)],
                                     [ints("start", [0], []), ints("limit", [10], []), no_value])
    yield "shape_cycle", model("shape_cycle", [n("Reshape", ["x", "s"], ["r"], name="reshape"),
                                               n("Shape", ["r"], ["s"], name="shape")],
                               [io("x", [2, 3])], [io("r", [3, 2])])
    yield "huge_range", model("huge_range", [n("Range", ["start", "limit", "delta"], ["r"], name="range")], [],
                              [helper.make_tensor_value_info("r", TensorProto.INT64, None)],
                              [ints("start", [0], []), ints("limit", [10 ** 12], []), ints("delta", [1], [])])
    yield "huge_computed_range", model("huge_computed_range", [
        n("Mul", ["million", "million"], ["limit"], name="limit"),
        n("Range", ["start", "limit", "delta"], ["r"], name="range"),
    ], [], [helper.make_tensor_value_info("r", TensorProto.INT64, None)],
        [ints("start", [0], []), ints("million", [10 ** 6], []), ints("delta", [1], [])])
    yield "shape_of_unknown", model("shape_of_unknown", [
        n("Shape", ["x"], ["s"], name="shape"),
        n("Gather", ["s", "zero"], ["g"], name="gather"),
        n("Unsqueeze", ["g", "axes"], ["u"], name="unsqueeze"),
        n("Concat", ["u", "four"], ["target"], name="concat", axis=0),
        n("Reshape", ["y", "target"], ["r"], name="reshape"),
        n("Relu", ["r"], ["out"], name="relu"),
    ], [io("x", ["N", 4]), io("y", [2, 4])], [io("out", None)],
        [ints("zero", [0], []), ints("axes", [0]), ints("four", [4])])
    yield "bad_reshape", model("bad_reshape", [
        n("Shape", ["x"], ["s"], name="shape"),
        n("Gather", ["s", "zero"], ["g"], name="gather"),
        n("Concat", ["g", "four"], ["target"], name="concat", axis=0),
        n("Reshape", ["x", "target"], ["r"], name="reshape"),
    ], [io("x", [2, 3])], [io("r", None)], [ints("zero", [0]), ints("four", [4])])
    yield "gather_out_of_range", model("gather_out_of_range", [
        n("Shape", ["x"], ["s"], name="shape"),
        n("Range", ["five", "six", "one"], ["index"], name="range"),
        n("Gather", ["s", "index"], ["g"], name="gather"),
    ], [io("x", [2, 3])], [helper.make_tensor_value_info("g", TensorProto.INT64, None)],
        [ints("five", [5], []), ints("six", [6], []), ints("one", [1], [])])
    yield "shape_of_unknown_op", model("shape_of_unknown_op", [
        n("Foo", ["x"], ["f"], name="foo"),
        n("Shape", ["f"], ["s"], name="shape"),
        n("Cast", ["s"], ["c"], name="cast", to=FLOAT),
    ], [io("x", [2, 3])], [io("c", None)])
    yield "shape_before_producer", model("shape_before_producer", [
        n("Shape", ["r"], ["s"], name="shape"),
        n("Relu", ["x"], ["r"], name="relu"),
    ], [io("x", [2, 3])], [helper.make_tensor_value_info("s", TensorProto.INT64, None)])
    yield "gemm_activations_bias", model("gemm_activations_bias", [n("Gemm", ["a", "b", "c"], ["y"], name="gemm")],
                                         [io("a", [2, 3]), io("b", [3, 4]), io("c", [2, 4])], [io("y", [2, 4])])
    yield "max_three", model("max_three", [n("Max", ["a", "b", "c"], ["y"], name="max")],
                             [io("a", [2, 3]), io("b", [2, 3]), io("c", [2, 3])], [io("y", [2, 3])])
    yield "deep_nesting", model("deep", [nested_if(80)], [helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                                [io("y", [1])], [scalar("x", 1.0)])


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "tests/ops_counter/data/onnx/ops")
    (out / "hostile").mkdir(parents=True, exist_ok=True)
    for folder, fixtures in ((out, op_fixtures()), (out, [("shape_eval", shape_eval_fixture()), ("shape_eval_opset18", shape_eval_opset18_fixture())]),
                             (out / "hostile", hostile_fixtures())):
        for name, m in fixtures:
            path = folder / f"{name}.onnx"
            path.write_bytes(m.SerializeToString())
            print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
