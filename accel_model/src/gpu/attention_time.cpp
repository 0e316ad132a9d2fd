// Attention on a GPU. Fused (FlashAttention-2/3, cuDNN): the score matrix in 128 x 128 tiles, each costing its
// matmuls (at the MMA rate the implementation's instructions reach) and its softmax (exp on the special-function
// units, the rest on CUDA cores), in sequence or partly overlapped; a per-query-tile pipeline fill; causal tiles
// above the diagonal skipped; a decode's few queries with the keys split over the idle SMs (split-KV); the backward
// pass as its own kernel. Unfused ("naive", as PyTorch composes it):
// scores materialised, GEMMs by the GEMM model and softmax as a bandwidth-bound pass; PyTorch's SDPA math back
// end is the same in fp32 with its inputs converted. ecosim's own kernel: one
// query row per thread on CUDA cores, operands from shared memory.
#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "ecosim/accel_model/gpu/kernel_model.hpp"
#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::gpu {

namespace {

double ceil_div(double a, double b) { return std::ceil(a / b); }

/// Warps of a block of ecosim's attention kernel: a thread per query row, ecosim_attention_block_rows rows.
double ecosim_block_warps(const KernelModel& model) { return ceil_div(model.value("ecosim_attention_block_rows"), 32); }

/// FlashAttention's FLOP count: 4·B·H·Nq·Nkv·D forward, halved when causal over as many keys as queries (with
/// more keys, as a decode step has, or a sliding window narrower than the keys: 4·D per attended pair), ×2.5 for
/// the backward pass (so ×3.5 for forward + backward).
double attention_flops(const AttentionShape& s) {
  const double heads_d = 4.0 * double(s.batch) * double(s.heads) * double(s.dim);
  const bool band = s.window && s.window < s.kv_seq;  // a window as wide as the keys bounds nothing
  const double forward = s.causal && (band || s.kv_seq != s.seq)
                             ? heads_d * double(attended_pairs(s.seq, s.kv_seq, true, s.window))
                             : heads_d * double(s.seq) * double(s.kv_seq) * (s.causal ? 0.5 : 1.0);
  return forward * ((s.forward ? 1.0 : 0.0) + (s.backward ? 2.5 : 0.0));
}

/// The keys any query reads: with a sliding window, those of the band (the first query's first key on), else all.
double read_keys(const AttentionShape& s) {
  return s.window ? double(std::min(s.kv_seq, s.window + s.seq - 1)) : double(s.kv_seq);
}

/// The key splits FlashAttention-2 chooses for a forward pass of `blocks` thread blocks (heads × query tiles) over
/// `key_tiles` key tiles (its num_splits_heuristic, with the model's one block an SM): none where the blocks nearly
/// fill the SMs; else the fewest splits whose waves are within 85 % of the best wave efficiency, among the counts
/// that change the key tiles a split takes, up to 128, the SMs and the key tiles.
double kv_splits(double blocks, double sms, double key_tiles) {
  if (blocks >= 0.8 * sms) return 1;
  const double most = std::min({128.0, sms, key_tiles});
  const auto eligible = [&](double n) { return n == 1 || ceil_div(key_tiles, n) != ceil_div(key_tiles, n - 1); };
  const auto efficiency = [&](double n) {
    const double waves = blocks * n / sms;
    return waves / std::ceil(waves);
  };
  double best = 0;
  for (double n = 1; n <= most; ++n)
    if (eligible(n)) best = std::max(best, efficiency(n));
  for (double n = 1; n <= most; ++n)
    if (eligible(n) && efficiency(n) >= 0.85 * best) return n;
  return 1;
}

/// The score matrix of a fused kernel in tiles: per query tile its key tiles (causal: up to the diagonal,
/// bottom-right aligned; with a sliding window, from the tile of its first row's first key: FlashAttention's local
/// attention). A tile is masked element by element, costing extra, where the causal diagonal or the band's lower
/// edge cuts it.
class TileGrid {
 public:
  /// Thread blocks over the grid's rows or columns: how many, their total work and the longest's (in tiles, the
  /// pipeline fill and masked tiles' extra included), and the last's tiles and overhead.
  struct Blocks {
    double blocks = 0, work = 0, longest = 0, last = 0, last_overhead = 0;
  };

  TileGrid(const AttentionShape& s, double tile)
      : q_tiles(ceil_div(double(s.seq), tile)),
        s_(s),
        tile_(tile),
        kv_tiles_(ceil_div(double(s.kv_seq), tile)),
        shift_(double(s.kv_seq - s.seq)) {}

  const double q_tiles;

  /// A block per query tile over its key tiles (a forward pass).
  Blocks query_blocks(double fill, double masked_extra) const {
    Blocks b;
    for (double i = 0; i < q_tiles; ++i) {
      const Row r = row(i);
      const double masked = (s_.causal ? 1.0 : 0.0) + (r.edge_end - r.first);
      add(b, r.end - r.first, fill + masked * masked_extra);
    }
    return b;
  }

  /// A block per key tile over the query tiles attending it (a backward pass). The rows attending key tile j are
  /// those from the first whose key tiles end past j to the last whose first is at or before j (both bounds
  /// move forward with j: the rows' first and end tiles never decrease).
  Blocks key_blocks(double fill, double masked_extra) const {
    Blocks b;
    double from = 0, to = 0, past_edge = 0, past_diagonal = 0;
    for (double j = 0; j < kv_tiles_; ++j) {
      while (from < q_tiles && row(from).end <= j) ++from;
      while (to < q_tiles && row(to).first <= j) ++to;
      while (past_edge < q_tiles && row(past_edge).edge_end <= j) ++past_edge;  // rows whose edge tiles reach j
      while (past_diagonal < q_tiles && row(past_diagonal).end <= j + 1) ++past_diagonal;  // rows ending at j
      if (to <= from) continue;
      const double on_diagonal = s_.causal ? std::min(past_diagonal, to) - from : 0.0;
      const double on_edge = std::max(0.0, to - std::max(from, past_edge));
      add(b, to - from, fill + (on_diagonal + on_edge) * masked_extra);
    }
    return b;
  }

 private:
  /// Query tile i's key tiles [first, end), of which [first, edge_end) are cut by the window's lower edge and,
  /// when causal, end − 1 by the diagonal.
  struct Row {
    double first, end, edge_end;
  };

  Row row(double i) const {
    // the band's lower edge: the first key of the tile's first row and of its last (the rows in between lie between)
    const double first_key = std::max(0.0, i * tile_ + shift_ - double(s_.window) + 1);
    const double last_row = std::min(double(s_.seq), (i + 1) * tile_) - 1;
    const double last_first_key = std::max(0.0, last_row + shift_ - double(s_.window) + 1);
    const double first = s_.window ? std::floor(first_key / tile_) : 0;
    // causal, bottom-right aligned: up to the tile of the last row's last key (row r sees keys up to r + shift)
    const double end = s_.causal ? std::min(kv_tiles_, std::floor((last_row + shift_) / tile_) + 1) : kv_tiles_;
    // masked element by element besides the diagonal: the key tiles the lower edge cuts (from the first row's first
    // key's tile up to the tile before the last row's first key), short of the diagonal tile
    const double edges =
        s_.window ? std::clamp(std::ceil(last_first_key / tile_) - first, 0.0, std::max(0.0, end - first - 1)) : 0.0;
    return {first, end, first + edges};
  }

  const AttentionShape& s_;
  const double tile_, kv_tiles_, shift_;

  static void add(Blocks& b, double tiles, double overhead) {
    b.blocks += 1;
    b.work += tiles + overhead;
    b.longest = std::max(b.longest, tiles + overhead);
    b.last = tiles, b.last_overhead = overhead;
  }
};

}  // namespace

KernelTime KernelModel::attention(const GpuSpec& gpu, AttentionImpl impl, const AttentionShape& shape) const {
  AttentionShape s = shape;
  if (s.kv_seq == 0) s.kv_seq = s.seq;
  if (s.kv_heads == 0) s.kv_heads = s.heads;
  if (s.batch == 0 || s.heads == 0 || s.seq == 0 || s.dim == 0)
    throw Error("attention batch, heads, seq and dim must be >= 1");
  if (s.heads % s.kv_heads) throw Error(fmt::format("kv-heads ({}) must divide heads ({})", s.kv_heads, s.heads));
  if (!s.forward && !s.backward) throw Error("an attention pass is forward, backward or both");
  if (s.causal && s.kv_seq < s.seq)
    throw Error(fmt::format("causal attention needs kv-seq >= seq (got seq {}, kv-seq {})", s.seq, s.kv_seq));
  if (s.window && !s.causal) throw Error("a sliding window bounds a causal attention's keys: give --causal with it");
  if (s.window >= s.kv_seq) s.window = 0;  // as wide as the keys, it bounds nothing (FlashAttention drops it too)
  // one query, bottom-right aligned, sees every key: the mask hides nothing (FlashAttention-2 drops it when
  // seqlen_q is 1), so the step runs as the unmasked one
  if (s.seq == 1 && !s.window) s.causal = false;
  // Q, K, V and O must fit the GPU's memory (every implementation holds them; K and V per K/V head), in its dtype
  // (ecosim's kernel writes O in fp32).
  const double tensor_bytes = double(s.batch) * double(s.dim) *
                              (2.0 * double(s.seq) * double(s.heads) + 2.0 * double(s.kv_seq) * double(s.kv_heads)) *
                              double(dtype_bytes(s.dtype));
  if (tensor_bytes > double(gpu.memory_bytes))
    throw Error(fmt::format("Q, K, V and O need {:.1f} GB; the {} has {:.1f} GB", tensor_bytes / 1e9, gpu.name,
                            double(gpu.memory_bytes) / 1e9));
  // Fused kernels take fp16 or bf16; materialised attention and ecosim's kernel also fp32.
  const bool fp32_allowed =
      impl == AttentionImpl::naive || impl == AttentionImpl::sdpa_math || impl == AttentionImpl::ecosim;
  if (s.dtype != DType::fp16 && s.dtype != DType::bf16 && !(fp32_allowed && s.dtype == DType::fp32))
    throw Error(fmt::format("{} attention is modelled in fp16 or bf16{}, not {}", attention_impl_name(impl),
                            fp32_allowed ? " or fp32" : "", dtype_name(s.dtype)));
  // The forward of a decode step of grouped-query attention (one query a head): FlashAttention-2 and -3 pack a
  // K/V head's query heads as the rows of one query tile (seqlenq_ngroups_swapped, pack_gqa) — one block per K/V
  // head over its keys, each query attending every key (as compare's records of such a step are costed); a
  // backward pass after it (fwd+bwd) runs on the shape unpacked, as it does alone
  if ((impl == AttentionImpl::flash2 || impl == AttentionImpl::flash3) && s.seq == 1 && s.kv_heads < s.heads &&
      s.forward && !s.window) {
    AttentionShape packed = s;
    packed.seq = s.heads / s.kv_heads;
    packed.heads = packed.kv_heads = s.kv_heads;
    packed.causal = packed.backward = false;
    KernelTime t = fused_attention(gpu, impl, packed);
    if (s.backward) {
      AttentionShape backward = s;
      backward.forward = false;
      const KernelTime b = fused_attention(gpu, impl, backward);
      t.latency_s += b.latency_s, t.flops += b.flops, t.bytes += b.bytes;
    }
    return t;
  }
  if (impl == AttentionImpl::flash2 || impl == AttentionImpl::flash3 || impl == AttentionImpl::cudnn)
    return fused_attention(gpu, impl, s);
  // The others take one K/V head per query head: grouped K and V are first repeated to every query head (Hugging
  // Face's repeat_kv, SDPA's enable_gqa) and, in the backward pass, their gradients summed back over each group.
  AttentionShape per_head = s;
  per_head.kv_heads = s.heads;
  KernelTime t = impl == AttentionImpl::naive       ? unfused_attention(gpu, per_head)
                 : impl == AttentionImpl::sdpa_math ? sdpa_math_attention(gpu, per_head)
                                                    : ecosim_attention(gpu, per_head);
  if (s.kv_heads < s.heads) {
    const double b = double(dtype_bytes(s.dtype)), keys = double(s.batch) * double(s.kv_seq) * double(s.dim);
    const double kv_bytes = 2 * keys * double(s.kv_heads) * b, repeated_bytes = 2 * keys * double(s.heads) * b;
    for (bool pass : {s.forward, s.backward}) {
      if (!pass) continue;
      const KernelTime copy = streaming_kernel(gpu, kv_bytes + repeated_bytes);
      t.latency_s += copy.latency_s;
      t.bytes += copy.bytes;
    }
  }
  return t;
}

Timed parse_timed(std::string_view name) {
  if (name == "kernel") return Timed::kernel;
  if (name == "pytorch-call") return Timed::pytorch_call;
  if (name == "cuda-call") return Timed::cuda_call;
  throw Error(fmt::format("unknown timing '{}' (valid: kernel, pytorch-call, cuda-call)", name));
}

KernelTime KernelModel::timed(KernelTime t, Timed timed) const {
  if (timed == Timed::pytorch_call) t.latency_s += value("pytorch_call_overhead_us") * 1e-6;
  if (timed == Timed::cuda_call) t.latency_s += value("cuda_call_overhead_us") * 1e-6;
  return t;
}

KernelTime KernelModel::fused_attention(const GpuSpec& gpu, AttentionImpl impl, const AttentionShape& s) const {
  const std::string name(attention_impl_name(impl));
  if (s.dim > 256 || s.dim % 8 != 0)
    throw Error(fmt::format("{} supports head widths that are multiples of 8 up to 256, not {}", name, s.dim));
  if (impl == AttentionImpl::flash3 && !gpu.warpgroup_mma)
    throw Error(fmt::format("FlashAttention-3 needs Hopper's wgmma; the {} has none", gpu.name));
  const double sms = double(gpu.sms), d = double(s.dim), tile = value("attention_tile");
  // Tensor-core rate per SM the implementation's MMA instructions reach.
  const bool mma_sync = impl == AttentionImpl::flash2 || !gpu.warpgroup_mma;
  const double mma_per_sm = gpu.matmul_flops_per_s(s.dtype) / sms * value("large_gemm_fraction_of_peak") *
                            (mma_sync && gpu.warpgroup_mma ? value("mma_sync_fraction_on_warpgroup_gpus") : 1.0);
  const double exp_s = 1.0 / gpu.special_function_ops_per_s_per_sm();
  const double instruction_s = 2.0 / (gpu.cuda_core_fp32_flops_per_s / sms);  // one FMA = two flops
  // Forward, per score element: two matmuls (4·D flops) and the online softmax, partly overlapped.
  const double mma_s = 4 * d / mma_per_sm;
  const double softmax_s = exp_s + value("softmax_fp32_instructions_forward") * instruction_s;
  const double overlap = value(name + "_softmax_overlap");
  const double forward_element_s = std::max(mma_s, softmax_s) + (1 - overlap) * std::min(mma_s, softmax_s);
  // Backward, per element: five matmuls (10·D flops) at a lower MMA rate, the exp recomputed, in sequence.
  const double backward_element_s = 10 * d / (mma_per_sm * value("backward_mma_fraction")) + exp_s +
                                    value("softmax_fp32_instructions_backward") * instruction_s;
  const TileGrid grid(s, tile);
  const double fill = value(name + "_pipeline_fill_tiles"), masked_extra = value("causal_diagonal_extra_tiles");
  const double heads = double(s.batch) * double(s.heads);
  // The forward pass runs a thread block per head and query tile over its key tiles, the backward pass one per
  // head and key tile over the query tiles that attend it (FlashAttention-2/3 and cuDNN parallelise it over the
  // keys): each block pays the pipeline fill and its masked tiles' extra. Without a mask every block has the same
  // work, so they run in whole waves over the SMs (400 blocks on 132 SMs: 4 waves, not 3.03); causal blocks differ
  // and the block scheduler fills the SMs as blocks finish, so their work spreads evenly, bounded by the longest.
  const auto spread = [&](const TileGrid::Blocks& b) {
    return s.causal ? std::max(heads * b.work / sms, b.longest) : std::ceil(heads * b.blocks / sms) * b.longest;
  };
  const TileGrid::Blocks rows = grid.query_blocks(fill, masked_extra);
  const double element_bytes = double(dtype_bytes(s.dtype));
  const double kv_heads = double(s.batch) * double(s.kv_heads);
  const bool grouped = kv_heads < heads;
  // Q and O per query head, K and V once per K/V head (a grouped-query kernel reads each K/V head for its group)
  const double q_bytes = heads * d * double(s.seq) * element_bytes,
               kv_bytes = kv_heads * d * read_keys(s) * element_bytes;
  const double io_bytes = 2 * q_bytes + 2 * kv_bytes;
  const double launch_s = value("launch_overhead_us") * 1e-6;
  // Split-KV (FlashDecoding, FlashAttention-2's split-KV kernel): when the heads' query tiles leave SMs idle, each
  // one's keys are split over `splits` blocks (kv_splits), each a partial softmax over its share, then a second
  // launch combines the partial outputs and their row maxima and sums.
  const double splits = kv_splits(heads * grid.q_tiles, sms, ceil_div(read_keys(s), tile));
  // (split, each query tile's key tiles are shared out, each piece paying the fill and edges once; the last query
  // tile's row is the longest: in whole waves, or spread as blocks finish when causal)
  const double piece = std::ceil(rows.last / splits) + rows.last_overhead;
  const double forward_units =
      splits == 1 ? spread(rows)
      : s.causal  ? std::max(heads * (rows.work + (splits - 1) * rows.blocks * rows.last_overhead) / sms, piece)
                  : std::ceil(heads * rows.blocks * splits / sms) * piece;
  const double combine_bytes = splits > 1 ? heads * double(s.seq) * splits * (d + 2) * 4.0 : 0.0;  // fp32 partials
  KernelTime t;
  if (s.forward) {
    t.latency_s = launch_s + std::max(forward_units * tile * tile * forward_element_s, streamed_s(gpu, io_bytes));
    if (splits > 1) t.latency_s += launch_s + streamed_s(gpu, 2 * combine_bytes);  // written, then read
    t.bytes = io_bytes + 2 * combine_bytes;
  }
  if (s.backward) {
    // reads Q, O, dO and K, V; writes dQ and, per query head, dK and dV — grouped-query heads' then summed over
    // each group by a streaming pass (FlashAttention-2's interface does so)
    const double expanded_kv_bytes = heads * d * read_keys(s) * element_bytes;
    const double backward_bytes = 4 * q_bytes + 2 * kv_bytes + 2 * expanded_kv_bytes;
    const double units = spread(grid.key_blocks(fill, masked_extra));
    t.latency_s += launch_s + std::max(units * tile * tile * backward_element_s, streamed_s(gpu, backward_bytes));
    t.bytes += backward_bytes;
    if (grouped) {
      const KernelTime sum = streaming_kernel(gpu, 2 * expanded_kv_bytes + 2 * kv_bytes);
      t.latency_s += sum.latency_s;
      t.bytes += sum.bytes;
    }
  }
  t.flops = attention_flops(s);
  return t;
}

KernelTime KernelModel::unfused_attention(const GpuSpec& gpu, const AttentionShape& s) const {
  const double b = double(dtype_bytes(s.dtype)), heads = double(s.batch) * double(s.heads);
  const double scores = heads * double(s.seq) * double(s.kv_seq);
  // Forward keeps the scores and the probabilities (and the masked scores when causal); backward adds dP, dS.
  const double resident_bytes = scores * b * ((s.causal ? 3.0 : 2.0) + (s.backward ? 2.0 : 0.0));
  if (resident_bytes > double(gpu.memory_bytes))
    throw Error(fmt::format("naive attention materialises {:.1f} GB of scores; the {} has {:.1f} GB",
                            resident_bytes / 1e9, gpu.name, double(gpu.memory_bytes) / 1e9));
  const double launch_s = value("launch_overhead_us") * 1e-6;
  // The heads are laid out of the packed (batch, seq, heads, dim) tensors and back: Q, K, V, O each copied.
  const double layout_bytes = 2 * heads * double(s.dim) * (2 * double(s.seq) + 2 * double(s.kv_seq)) * b;
  // each kernel's time and the bytes it moves, summed (the GEMMs' by their own model, a pass its bytes)
  KernelTime k;
  const auto batched = [&](std::uint64_t m, std::uint64_t n, std::uint64_t depth) {
    const KernelTime g = gemm(gpu, {m, n, depth, s.batch * s.heads, s.dtype});
    k.latency_s += g.latency_s;
    k.bytes += g.bytes;
  };
  // PyTorch's generic elementwise, copy and softmax kernels (passes over long rows, broadcast indexing) sustain
  // a lower share of the memory bandwidth than a streaming copy.
  const double pass_bytes_per_s = value("framework_pass_fraction") * gpu.memory_bytes_per_s;
  const auto pass = [&](double bytes) {
    k.latency_s += launch_s + bytes / pass_bytes_per_s;
    k.bytes += bytes;
  };
  const auto layout = [&] {  // four copies, their launches
    k.latency_s += 3 * launch_s;
    pass(layout_bytes);
  };
  const std::uint64_t nq = s.seq, nk = s.kv_seq, d = s.dim;
  if (s.forward) {
    layout();
    batched(nq, nk, d);  // S = Q Kᵀ
    // S + mask: the (Nq, Nkv) mask is read again for every head once it no longer fits in L2.
    const double mask_bytes = double(nq) * double(nk) * b;
    if (s.causal) pass((2 + (mask_bytes > double(gpu.l2_bytes) ? 1 : 0)) * scores * b);
    pass(2 * scores * b);  // P = softmax(S)
    batched(nq, d, nk);    // O = P V
  }
  if (s.backward) {
    layout();              // dO in; dQ, dK, dV out
    batched(nq, nk, d);    // dP = dO Vᵀ
    batched(nk, d, nq);    // dV = Pᵀ dO
    pass(3 * scores * b);  // dS = P ∘ (dP − rowsum(dP ∘ P))
    batched(nq, d, nk);    // dQ = dS K
    batched(nk, d, nq);    // dK = dSᵀ Q
  }
  k.flops = attention_flops(s);
  return k;
}

KernelTime KernelModel::sdpa_math_attention(const GpuSpec& gpu, const AttentionShape& s) const {
  AttentionShape fp32 = s;
  fp32.dtype = DType::fp32;
  KernelTime t = unfused_attention(gpu, fp32);
  if (s.dtype != DType::fp32) {
    // Q, K, V converted to fp32 and the output back in the forward pass, dO in and dQ, dK, dV back in the backward
    // pass: one streaming kernel each.
    const double heads = double(s.batch) * double(s.heads), d = double(s.dim), b = double(dtype_bytes(s.dtype));
    const double q = heads * double(s.seq) * d, kv = heads * double(s.kv_seq) * d;
    const auto convert = [&](double elements) { return streaming_kernel(gpu, elements * (b + 4.0)); };
    if (s.forward)
      for (const KernelTime& c : {convert(q), convert(kv), convert(kv), convert(q)}) {
        t.latency_s += c.latency_s;
        t.bytes += c.bytes;
      }
    if (s.backward)
      for (const KernelTime& c : {convert(q), convert(q), convert(kv), convert(kv)}) {  // dO in; dQ, dK, dV out
        t.latency_s += c.latency_s;
        t.bytes += c.bytes;
      }
  }
  return t;
}

KernelTime KernelModel::ecosim_attention(const GpuSpec& gpu, const AttentionShape& s) const {
  if (s.backward || !s.forward)
    throw Error("ecosim's attention kernel (ecoformer/src/msa_cuda.cu) has no backward pass");
  if (s.window) throw Error("ecosim's attention kernel (ecoformer/src/msa_cuda.cu) has no sliding window");
  if (s.dim > 128) throw Error(fmt::format("ecosim's attention kernel supports head widths up to 128, not {}", s.dim));
  if (s.dtype == DType::bf16)
    throw Error("ecosim's attention kernel (ecoformer/src/msa_cuda.cu) reads fp32 or fp16 operands, not bf16");
  if (s.seq == 1 && s.kv_seq > 1) return ecosim_decode_attention(gpu, s);
  // Per score element, on CUDA cores in fp32: 2·D FMAs, each with its shared-memory operand load — the loads
  // go through the SM's load/store unit, which issues one warp-wide load in the time the CUDA cores issue
  // shared_load_fma_slots FMAs, so the pair costs the larger of the two — the online softmax's instructions,
  // and one exp on the special-function units.
  const double sms = double(gpu.sms), d = double(s.dim);
  const double instruction_s = 2.0 / (gpu.cuda_core_fp32_flops_per_s / sms);
  const double fma_slots = std::max(1.0, value("ecosim_shared_loads_per_fma") * value("shared_load_fma_slots"));
  const double element_s = (2 * d * fma_slots + value("softmax_fp32_instructions_forward")) * instruction_s +
                           1.0 / gpu.special_function_ops_per_s_per_sm();
  // One thread a query row: a warp's key step (32 rows x one key) holds the SM's issue for 32 elements, and on
  // its own takes the latency of its dependent chain (the score's FMAs in sequence, then the context's).
  const double warp_step_s = 32 * element_s;
  const double warp_latency_s =
      (value("ecosim_attention_latency_cycles_per_dim") * d + value("ecosim_attention_latency_cycles")) /
      gpu.boost_clock_hz;
  const double rows = value("ecosim_attention_block_rows"), heads = double(s.batch) * double(s.heads);
  // Causal: each block of rows stops after the last key its last row sees (the rest of its rows' keys in that
  // tile are computed and weighted 0).
  double pairs = double(s.seq) * double(s.kv_seq);
  if (s.causal) {
    const double shift = double(s.kv_seq - s.seq);
    pairs = 0;
    for (double r0 = 0; r0 < double(s.seq); r0 += rows) {
      const double r1 = std::min(double(s.seq), r0 + rows);
      pairs += (r1 - r0) * std::min(double(s.kv_seq), shift + r1);
    }
  }
  // The blocks an SM holds at once (its registers, threads, blocks and shared memory), and the rounds the busiest
  // SM runs: a round of r blocks takes, per key step, the throughput time of its 2r warps or one warp's latency,
  // whichever binds, combined smoothly (their root sum of squares) where both are near.
  // (in double: the shape may be beyond 64-bit block counts before the memory check refuses it)
  const double block_warps = ecosim_block_warps(*this);
  const double blocks = std::ceil(double(s.seq) / rows) * heads, per_sm = std::ceil(blocks / sms);
  const double resident = double(ecosim_attention_resident_blocks(gpu, s.dim));
  const double key_steps = pairs / double(s.seq);  // per block: the keys its rows run over (causal: on average)
  const auto round_s = [&](double r) { return key_steps * std::hypot(r * block_warps * warp_step_s, warp_latency_s); };
  const double full_rounds = std::floor(per_sm / resident), last = per_sm - full_rounds * resident;
  const double compute_s = full_rounds * round_s(resident) + (last > 0 ? round_s(last) : 0.0);
  const double io_bytes =
      heads * d *
      (double(s.seq) * (dtype_bytes(s.dtype) + 4.0) + 2.0 * double(s.kv_seq) * double(dtype_bytes(s.dtype)));
  KernelTime t;
  t.latency_s = value("launch_overhead_us") * 1e-6 + std::max(compute_s, streamed_s(gpu, io_bytes));
  t.flops = attention_flops(s);
  t.bytes = io_bytes;
  return t;
}

KernelTime KernelModel::ecosim_decode_attention(const GpuSpec& gpu, const AttentionShape& s) const {
  // A decode step (one query row a group, msa_cuda.cu): the new token's key and value copied into the cache, then
  // the split-KV kernels — blocks of ecosim_decode_block_warps warps each take ecosim_decode_keys_per_split keys of
  // a group's cache, a warp a few keys a step with its lanes across the head width; then a block a group combines
  // the splits, a warp a split at a time. Measured on the lent H200 (session 26), a warp's time is its loads in
  // sequence — each key's row of K and of V, a load a lane per 32 of the compiled head width, each waiting for the
  // one before (a load inside a branch is not issued ahead of it) — at the latency of an L2 hit where the cache
  // stays in L2 from one step to the next, else of an HBM access; the SMs hold as many blocks at once as their
  // registers and threads allow, and the partial sums are no faster than the cache streamed from memory.
  if (s.dtype != DType::fp32)
    throw Error(
        fmt::format("ecosim's decode kernel (ecoformer/src/msa_cuda.cu, decode_partials) keeps its KV cache "
                    "in fp32, not {}: give fp32",
                    dtype_name(s.dtype)));
  const double groups = double(s.batch) * double(s.heads), keys = double(s.kv_seq), d = double(s.dim);
  const double split_keys = value("ecosim_decode_keys_per_split"), warps = value("ecosim_decode_block_warps");
  const double splits = std::ceil(keys / split_keys), blocks = splits * groups;
  // the kernel is compiled for head widths up to 32, 64 and 128: a lane loads width / 32 elements of each row
  const int width = s.dim <= 32 ? 32 : s.dim <= 64 ? 64 : 128;
  const double lane_loads = width / 32.0;
  const double block_threads = 32 * warps, unit = value("register_allocation_unit");
  const double block_registers =
      std::ceil(value(fmt::format("ecosim_decode_registers_d{}", width)) * 32 / unit) * unit * warps;
  const double resident = std::min({double(gpu.sm.blocks), std::floor(double(gpu.sm.threads) / block_threads),
                                    std::floor(double(gpu.sm.registers) / block_registers)});
  const double rounds = std::ceil(blocks / (double(gpu.sms) * resident));
  const double element = double(dtype_bytes(s.dtype)), cache_bytes = groups * 2 * keys * d * element;
  const double l2_load_s = value("ecosim_decode_l2_load_cycles") / gpu.boost_clock_hz;
  const bool cache_in_l2 = cache_bytes <= value("ecosim_decode_l2_share") * double(gpu.l2_bytes);
  const double cache_load_s = cache_in_l2 ? l2_load_s : value("ecosim_decode_hbm_load_cycles") / gpu.boost_clock_hz;
  // a split's keys dealt to its warps a few at a time: the first warp holds the most
  const double at_once = value("ecosim_decode_keys_at_once"), split = std::min(keys, split_keys);
  const double deal = warps * at_once,
               warp_keys = at_once * std::floor(split / deal) + std::min(at_once, std::fmod(split, deal));
  const double chain_s = warp_keys * 2 * lane_loads * cache_load_s;
  // the combine: the splits' maxima a thread each, then a warp's splits (maximum, sum and acc row each), in L2
  const double combine_s =
      (std::ceil(splits / block_threads) + std::ceil(splits / warps) * (2 + lane_loads)) * l2_load_s;
  const double io_bytes = cache_bytes + groups * (d * element + d * 4) + 2 * blocks * (d + 2) * 4;
  KernelTime t;
  t.latency_s =
      4 * value("launch_overhead_us") * 1e-6 + std::max(rounds * chain_s, streamed_s(gpu, io_bytes)) + combine_s;
  t.flops = attention_flops(s);
  t.bytes = io_bytes;
  return t;
}

std::uint64_t KernelModel::ecosim_attention_resident_blocks(const GpuSpec& gpu, std::uint64_t dim) const {
  const auto block_threads = std::uint64_t(value("ecosim_attention_block_rows"));
  const double block_warps = ecosim_block_warps(*this);
  // The kernel is compiled for head widths up to 16, 32, 64 and 128, each with its own registers a thread.
  const std::uint64_t width = dim <= 16 ? 16 : dim <= 32 ? 32 : dim <= 64 ? 64 : 128;
  const double unit = value("register_allocation_unit");
  const double warp_registers =
      std::ceil(value(fmt::format("ecosim_attention_registers_d{}", width)) * 32 / unit) * unit;
  // shared memory: a tile of keys and one of values (fp32, D wide) and the tile's scores of every row
  const double key_tile = value("ecosim_attention_key_tile");
  const double shared_bytes =
      4 * (2 * key_tile * double(dim) + key_tile * double(block_threads)) + value("shared_bytes_reserved_per_block");
  const double by_registers = std::floor(double(gpu.sm.registers) / (warp_registers * block_warps));
  const double by_shared = std::floor(double(gpu.sm.shared_bytes) / shared_bytes);
  const double fits =
      std::min({double(gpu.sm.blocks), double(gpu.sm.threads / block_threads), by_registers, by_shared});
  if (fits < 1)
    throw Error(fmt::format("ecosim's attention kernel at head width {} does not fit one block on an SM of the {}", dim,
                            gpu.name));
  return std::uint64_t(fits);
}

}  // namespace ecosim::gpu
