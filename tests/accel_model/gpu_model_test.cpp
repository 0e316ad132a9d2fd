// The GPU model (ecosim::gpu_model): its accuracy against the published measurements, per kernel class, over all
// points and over the points held out of all tuning; hand-computed properties of each kernel class; the GPU files'
// consistency; hostile input.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ecosim/accel_model/gpu/kernel_model.hpp"
#include "ecosim/accel_model/gpu/measurements.hpp"
#include "ecosim/accel_model/gpu/op_records.hpp"
#include "ecosim/ecoformer/msa_kernel_geometry.hpp"
#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/primitives.hpp"

using namespace ecosim::gpu;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// |error| of every point, by kernel class; `held_out_only`: only the points no constant was tuned on.
std::map<KernelClass, std::vector<double>> errors_by_class(bool held_out_only) {
  const KernelModel& model = KernelModel::builtin();
  std::set<std::string> tuned;
  for (const auto& [name, c] : model.constants()) tuned.insert(c.tuned_on.begin(), c.tuned_on.end());
  std::map<KernelClass, std::vector<double>> errors;
  for (const MeasuredPoint& p : builtin_measurements()) {
    if (held_out_only && tuned.contains(p.id)) continue;
    errors[p.kernel_class].push_back(std::abs(relative_error(p, modelled_value(p, model))));
  }
  return errors;
}

void require_goal(const std::map<KernelClass, std::vector<double>>& errors) {
  for (KernelClass c :
       {KernelClass::gemm, KernelClass::fused_attention, KernelClass::unfused_attention, KernelClass::bandwidth}) {
    INFO("class " << kernel_class_name(c));
    REQUIRE(errors.contains(c));
    const auto& e = errors.at(c);
    INFO(e.size() << " points, median " << median(e) << ", worst " << *std::max_element(e.begin(), e.end()));
    CHECK(median(e) <= 0.10);
    CHECK(*std::max_element(e.begin(), e.end()) <= 0.30);
  }
}

}  // namespace

TEST_CASE("gpu model: every kernel class meets the goal over all published points") {
  require_goal(errors_by_class(false));
}

TEST_CASE("gpu model: the points held out of all tuning meet the goal on their own") {
  // gpu_kernel_model.json says which points tuned which constant: large_gemm_fraction_of_peak the H100 GEMM,
  // hbm_fraction the H100 copy, mma_sync_fraction and backward_mma_fraction FlashAttention-2 at D 64 and 16k,
  // the overlaps and pipeline fills FlashAttention-3 and cuDNN at D 64 (16k and 512), the diagonal cost
  // FlashAttention-3 causal at 512, framework_pass_fraction one materialised point, the cuda-call overhead and
  // L2's bandwidth and resident share three of the lent GPUs' copies. All D 128 points, all other GPUs, every
  // other sequence length and the other 42 copies (2.6-134 MB, both sides of L2's share) are held out.
  const auto held_out = errors_by_class(true);
  require_goal(held_out);
  std::size_t total = 0;
  for (const auto& [c, e] : held_out) total += e.size();
  CHECK(total >= 100);
}

TEST_CASE("gpu model: ecosim's own attention kernel, measured on the lent GPUs, held out of its tuning") {
  // Two H200 runs at N = 1024 set its latency per key step; the H200's other points (N 1024-16384, D 32 and 64,
  // fp32 and fp16, two runs: other occupancies and tail waves) are predicted within the goal. The H100's run
  // (another build on another machine, its registers not recorded) is 1.2-1.6x slower than the H200 at the same
  // source and shapes: reported in accel_model/README.md, not asserted.
  const KernelModel& model = KernelModel::builtin();
  std::set<std::string> tuned;
  for (const auto& [name, c] : model.constants()) tuned.insert(c.tuned_on.begin(), c.tuned_on.end());
  std::vector<double> errors;
  for (const MeasuredPoint& p : builtin_measurements())
    if (p.kernel_class == KernelClass::ecosim_kernel && p.gpu == "h200" && !tuned.contains(p.id))
      errors.push_back(std::abs(relative_error(p, modelled_value(p, model))));
  REQUIRE(errors.size() >= 25);
  INFO(errors.size() << " points, median " << median(errors) << ", worst "
                     << *std::max_element(errors.begin(), errors.end()));
  CHECK(median(errors) <= 0.10);
  CHECK(*std::max_element(errors.begin(), errors.end()) <= 0.30);
}

TEST_CASE("gpu model: ecosim's kernel runs as many blocks an SM as its registers, threads and shared memory allow") {
  const KernelModel& model = KernelModel::builtin();
  // the model's geometry of the kernel is the kernel's own (ecoformer/src/msa_cuda.cu)
  CHECK(model.value("ecosim_attention_block_rows") == ecosim::ecoformer::kMsaBlockRows);
  CHECK(model.value("ecosim_attention_key_tile") == ecosim::ecoformer::kMsaKeyTile);
  CHECK(model.value("ecosim_decode_block_warps") == ecosim::ecoformer::kMsaDecodeWarps);
  CHECK(model.value("ecosim_decode_keys_per_split") == ecosim::ecoformer::kMsaDecodeKeysPerSplit);
  CHECK(model.value("ecosim_decode_keys_at_once") == ecosim::ecoformer::kMsaDecodeKeysAtOnce);
  const GpuSpec h100 = builtin_gpu("h100-sxm"), l4 = builtin_gpu("l4");
  // 64 threads (2 warps) a block. D 32: 104 registers -> 3,328 a warp, 6,656 a block: 9 of 65,536 (shared:
  // 4 x (2 x 32 x 32 + 32 x 64) + 1,024 = 17,408 B, 13 of 228 KiB). D 64: 175 -> 5,632 a warp (units of 256),
  // 11,264 a block: 5; on the L4 shared memory binds first: 25,600 B a block, 4 of 100 KiB.
  CHECK(model.ecosim_attention_resident_blocks(h100, 32) == 9);
  CHECK(model.ecosim_attention_resident_blocks(h100, 64) == 5);
  CHECK(model.ecosim_attention_resident_blocks(l4, 64) == 4);
  // One block an SM (132 blocks of 64 rows, one head): each key step takes the root sum of squares of the two
  // warps' throughput time and one warp's latency.
  const std::uint64_t n = 64 * 132;
  const KernelTime t = model.attention(h100, AttentionImpl::ecosim, {1, 1, n, 0, 32, false, false, DType::fp32});
  const double instruction_s = 2.0 / (67e12 / 132), clock_hz = 1980e6;
  const double element_s =
      (2 * 32 * model.value("shared_load_fma_slots") + model.value("softmax_fp32_instructions_forward")) *
          instruction_s +
      1.0 / (16 * clock_hz);
  const double latency_s =
      (model.value("ecosim_attention_latency_cycles_per_dim") * 32 + model.value("ecosim_attention_latency_cycles")) /
      clock_hz;
  CHECK(t.latency_s ==
        Approx(model.value("launch_overhead_us") * 1e-6 + double(n) * std::hypot(2 * 32 * element_s, latency_s))
            .epsilon(1e-9));
}

TEST_CASE("gpu model: every tuned_on id is a published point, and every point's source is cited") {
  std::set<std::string> ids;
  for (const MeasuredPoint& p : builtin_measurements()) ids.insert(p.id);
  // and the training steps measured in PyTorch (pytorch_op_dispatch_us; checked by sim.train_gpu_measured)
  std::ifstream steps(ECOSIM_ACCEL_DATA "/gpu_training_steps.json");
  REQUIRE(steps);
  const nlohmann::json training = nlohmann::json::parse(steps);
  for (const auto& point : training["points"]) ids.insert(point["id"].get<std::string>());
  for (const auto& [name, c] : KernelModel::builtin().constants())
    for (const std::string& id : c.tuned_on) {
      INFO("constant " << name);
      CHECK(ids.contains(id));
    }
}

TEST_CASE("gpu model: the GPU files' FP32 peak is SMs x clock x FP32 lanes x 2") {
  for (const std::string& name : builtin_gpu_names()) {
    const GpuSpec g = builtin_gpu(name);
    const double lanes = g.architecture == "ampere" ? 64 : 128;  // FP32 lanes per SM: GA100 64, Hopper/Ada 128
    INFO(name);
    CHECK(g.cuda_core_fp32_flops_per_s == Approx(double(g.sms) * g.boost_clock_hz * lanes * 2).epsilon(0.01));
    CHECK(g.tensor_flops_per_s[int(DType::bf16)] == Approx(2 * g.tensor_flops_per_s[int(DType::tf32)]).epsilon(0.01));
    CHECK(!g.sources.empty());
  }
}

TEST_CASE("gpu model: GEMM tiles run in waves over the SMs") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h100 = builtin_gpu("h100-sxm");  // 132 SMs, 128 x 128 tiles
  const double launch_s = model.value("launch_overhead_us") * 1e-6;
  // 12 x 11 = 132 tiles (one wave) against 7 x 19 = 133 tiles (two waves) with a compute-bound K: the second
  // wave doubles the main loop's time.
  const auto main_loop_s = [&](std::uint64_t m, std::uint64_t n, const KernelTime& t) {
    return t.latency_s - launch_s - double(m) * double(n) * 2 / (model.value("hbm_fraction") * 3350e9);
  };
  const KernelTime one = model.gemm(h100, {128 * 12, 128 * 11, 8192, 1, DType::bf16});
  const KernelTime two = model.gemm(h100, {128 * 7, 128 * 19, 8192, 1, DType::bf16});
  CHECK(main_loop_s(128 * 7, 128 * 19, two) / main_loop_s(128 * 12, 128 * 11, one) == Approx(2).epsilon(1e-9));
  // Hand-computed main loop of one wave: (K / 64 + fill) steps of 2·128·128·64 flops at the SM's share.
  const double steps = 8192 / 64 + model.value("gemm_pipeline_fill_steps");
  const double per_sm = 989.4e12 / 132 * model.value("large_gemm_fraction_of_peak");
  CHECK(main_loop_s(128 * 12, 128 * 11, one) == Approx(steps * 2 * 128 * 128 * 64 / per_sm).epsilon(1e-9));
  CHECK(one.flops == 2.0 * 128 * 12 * 128 * 11 * 8192);
}
TEST_CASE("gpu model: a GEMM of a few rows (a decode step's) streams its weights: short tiles, split-K") {
  const KernelModel& model = KernelModel::builtin();
  const double launch_s = model.value("launch_overhead_us") * 1e-6;
  const GpuSpec h100 = builtin_gpu("h100-sxm");
  // one row by a 4096 x 4096 bf16 weight: 32 tiles of 128 columns, K split 4 ways over the 132 SMs; the time is
  // the weights streamed (plus the row, the output, the partials' pass and two launches)
  const KernelTime step = model.gemm(h100, {1, 4096, 4096, 1, DType::bf16});
  const double weights_s = 4096.0 * 4096 * 2 / (model.value("hbm_fraction") * 3350e9);  // from HBM
  CHECK(step.latency_s > weights_s);
  CHECK(step.latency_s < 1.05 * weights_s + 2 * launch_s + 1e-6);
  // the same work on the same bytes, transposed, costs about the same; 8 rows the same as 1 (one MMA's rows)
  const double wide = model.gemm(h100, {1, 1024, 4096, 1, DType::bf16}).latency_s,
               deep = model.gemm(h100, {1, 4096, 1024, 1, DType::bf16}).latency_s;
  CHECK(std::max(wide, deep) / std::min(wide, deep) < 1.25);
  CHECK(model.gemm(h100, {8, 4096, 4096, 1, DType::bf16}).latency_s == Approx(step.latency_s).epsilon(0.03));
  // a memory-bound product is faster on the GPU with more bandwidth (A100: 2.0 TB/s, L4: 0.3 TB/s), in fp32 too
  for (DType t : {DType::fp32, DType::bf16})
    CHECK(model.gemm(builtin_gpu("a100-sxm"), {1, 28672, 8192, 1, t}).latency_s <
          model.gemm(builtin_gpu("l4"), {1, 28672, 8192, 1, t}).latency_s);
  // split-K only where it pays: a short K (2 steps) split in two costs a second launch and the partials' pass for
  // nothing, so twice the columns never take less time, and the H100 SXM is no slower than an A100
  const double narrow = model.gemm(h100, {16, 8192, 128, 1, DType::fp16}).latency_s;
  CHECK(narrow <= model.gemm(h100, {16, 16384, 128, 1, DType::fp16}).latency_s);
  CHECK(narrow <= model.gemm(builtin_gpu("a100-sxm"), {16, 8192, 128, 1, DType::fp16}).latency_s);
}

TEST_CASE("gpu model: a GEMM of no more columns than one MMA's rows costs what its transpose of few rows does") {
  // the library's GEMV and small-M kernels serve either side: 4096 x 1 x 4096 fp32 on the A100 was priced 0.47 ms,
  // ten times its transpose's 0.046 ms (only the rows shrank a skinny GEMM's tiles, and one column is no 16-byte
  // row)
  const KernelModel& model = KernelModel::builtin();
  for (const char* name : {"a100-sxm", "h100-sxm"})
    for (DType t : {DType::fp32, DType::fp16})
      for (std::uint64_t skinny : {1, 8, 16}) {
        INFO(name << " " << skinny);
        const GpuSpec gpu = builtin_gpu(name);
        const KernelTime tall = model.gemm(gpu, {4096, skinny, 4096, 1, t}),
                         wide = model.gemm(gpu, {skinny, 4096, 4096, 1, t});
        CHECK(tall.latency_s == wide.latency_s);
        CHECK(tall.flops == wide.flops);
      }
}

TEST_CASE("gpu model: a skinny GEMM of more rows, columns or depth never takes less time (its best split-K)") {
  // The split count is the fastest of all (1 … min(K steps, SMs)): with only none or as many splits as idle SMs,
  // 128 x 4096 x 4096 fp16 on the H100 (32 tiles, 4 splits) took 23.5 us against 20.7 for 129 rows (2 splits).
  const KernelModel& model = KernelModel::builtin();
  for (const char* name : {"h100-sxm", "a100-sxm", "l4"}) {
    const GpuSpec gpu = builtin_gpu(name);
    auto latency = [&](std::uint64_t m, std::uint64_t n, std::uint64_t k) {
      return model.gemm(gpu, {m, n, k, 1, DType::fp16}).latency_s;
    };
    for (std::uint64_t m = 1; m < 400; ++m) {
      INFO(name << " m " << m);
      CHECK(latency(m, 4096, 4096) <= latency(m + 1, 4096, 4096) * (1 + 1e-12));
      CHECK(latency(m, 1024, 8192) <= latency(m + 1, 1024, 8192) * (1 + 1e-12));
      CHECK(latency(m, 4096, 14336) <= latency(m + 1, 4096, 14336) * (1 + 1e-12));
    }
    for (std::uint64_t x = 1024; x <= 16384; x += 1024) {
      INFO(name << " n or k " << x);
      CHECK(latency(128, x, 4096) <= latency(128, x + 1024, 4096) * (1 + 1e-12));
      CHECK(latency(128, 4096, x) <= latency(128, 4096, x + 1024) * (1 + 1e-12));
    }
  }
}

TEST_CASE("gpu model: a decode step's split-KV attention takes no less time over more keys") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h100 = builtin_gpu("h100-sxm");
  double previous = 0;
  for (std::uint64_t keys = 128; keys <= 4096; keys += 64) {  // split 2, 3, ... ways as the key tiles grow
    INFO(keys << " keys");
    const double t = model.attention(h100, AttentionImpl::flash3, {1, 32, 1, keys, 128, true}).latency_s;
    CHECK(t >= previous);
    previous = t;
  }
}

TEST_CASE("gpu model: keys are split wherever the heads' query tiles leave SMs idle, not only for one tile") {
  // FlashAttention-2's num_splits_heuristic splits whenever heads × query tiles fall short of the SMs: one more
  // query (two tiles), one more head past half the SMs, or a second batch entry never costs ~2-4x the step
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h100 = builtin_gpu("h100-sxm");
  const auto ms = [&](std::uint64_t batch, std::uint64_t heads, std::uint64_t seq, std::uint64_t kv_heads = 0) {
    AttentionShape s{batch, heads, seq, 131072, 128, false, false, DType::fp16};
    s.kv_heads = kv_heads;
    return model.attention(h100, AttentionImpl::flash2, s).latency_s;
  };
  CHECK(ms(1, 32, 129) < 2.0 * ms(1, 32, 128));        // twice the work at most (was 3.6x)
  CHECK(ms(1, 67, 1) < 1.1 * ms(1, 66, 1) * 67 / 66);  // one more head (was 1.75x)
  CHECK(ms(2, 32, 1) < 2.1 * ms(1, 32, 1));            // a second sequence
  CHECK(ms(1, 129, 1, 1) < 2.0 * ms(1, 128, 1, 1));    // a grouped-query decode packed into two query tiles (was 75x)
  // and a split is no slower than the whole row on the idle SMs' share of the key tiles
  const KernelTime decode =
      model.attention(h100, AttentionImpl::flash2, {1, 67, 1, 131072, 128, false, false, DType::fp16});
  CHECK(decode.latency_s <
        1.1 * model.streaming_kernel(h100, decode.bytes).latency_s + 2 * model.value("launch_overhead_us") * 1e-6);
}

TEST_CASE("gpu model: unfused attention's bytes are those its kernels move, never above the HBM bandwidth") {
  const KernelModel& model = KernelModel::builtin();
  for (const char* name : {"h100-sxm", "a100-sxm", "l4"}) {
    const GpuSpec gpu = builtin_gpu(name);
    for (std::uint64_t seq : {512, 2048, 4096})
      for (bool causal : {false, true})
        for (bool backward : {false, true}) {
          INFO(name << " seq " << seq << (causal ? " causal" : "") << (backward ? " fwd+bwd" : " fwd"));
          AttentionShape s{2, 16, seq, seq, 64, causal, backward, DType::fp16};
          const KernelTime t = model.attention(gpu, AttentionImpl::naive, s);
          CHECK(t.bytes / t.latency_s <= gpu.memory_bytes_per_s);
          // the forward's passes over the scores: S written, softmax read and written, P read (and the mask)
          const double scores_bytes = 2.0 * 16 * double(seq) * double(seq) * 2;
          CHECK(t.bytes >= (4 + (causal ? 2 : 0) + (backward ? 7 : 0)) * scores_bytes);
        }
  }
}

TEST_CASE("gpu model: a GEMM whose rows are not 16-byte aligned runs at the misaligned fraction") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h100 = builtin_gpu("h100-sxm");
  const double launch_s = model.value("launch_overhead_us") * 1e-6;
  // Same tiles and K steps (10,922 and 10,944 both take 171 steps of 64), aligned or not.
  const KernelTime aligned = model.gemm(h100, {8192, 8192, 10944, 1, DType::fp16});
  const KernelTime misaligned = model.gemm(h100, {8192, 8192, 10922, 1, DType::fp16});
  const double store_s = 8192.0 * 8192 * 2 / (model.value("hbm_fraction") * 3350e9);
  CHECK((aligned.latency_s - launch_s - store_s) / (misaligned.latency_s - launch_s - store_s) ==
        Approx(model.value("misaligned_gemm_fraction")).epsilon(1e-9));
}

TEST_CASE("gpu model: bandwidth-bound kernels move each element in and out at the streaming bandwidth") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec a100 = builtin_gpu("a100-sxm");
  const KernelTime copy = model.bandwidth(a100, BandwidthOp::copy, {4096, 8192, DType::fp16});
  const double bytes = 2.0 * 4096 * 8192 * 2;
  CHECK(copy.bytes == bytes);
  CHECK(
      copy.latency_s ==
      Approx(model.value("launch_overhead_us") * 1e-6 + bytes / (model.value("hbm_fraction") * 2039e9)).epsilon(1e-12));
  // Small sizes: the launch dominates, so the bandwidth reached falls with size.
  const KernelTime tiny = model.bandwidth(a100, BandwidthOp::softmax, {1, 1024, DType::fp16});
  CHECK(tiny.gb_per_s() < 0.01 * copy.gb_per_s());
  const KernelTime norm = model.bandwidth(a100, BandwidthOp::rmsnorm, {4096, 8192, DType::fp16});
  CHECK(norm.bytes == bytes + 8192 * 2);  // plus the gain vector
}

TEST_CASE("gpu model: a streaming kernel whose bytes stay resident in L2 moves them at L2's bandwidth") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h100 = builtin_gpu("h100-sxm");
  const double launch_s = model.value("launch_overhead_us") * 1e-6;
  const double l2_bytes_per_s = model.value("l2_bytes_per_clock_per_sm") * 132 * 1980e6;
  const double resident_bytes = model.value("l2_resident_share") * 50 * 1024 * 1024;  // the H100's 50 MiB L2
  // fp32 copies: 2 x rows x cols x 4 bytes, one just within the resident share, one just beyond it
  const std::uint64_t cols = 1024, within_rows = std::uint64_t(resident_bytes / (8.0 * cols));
  const KernelTime within = model.bandwidth(h100, BandwidthOp::copy, {within_rows, cols, DType::fp32});
  const KernelTime beyond = model.bandwidth(h100, BandwidthOp::copy, {within_rows + 1, cols, DType::fp32});
  REQUIRE(within.bytes <= resident_bytes);
  REQUIRE(beyond.bytes > resident_bytes);
  CHECK(within.latency_s == Approx(launch_s + within.bytes / l2_bytes_per_s).epsilon(1e-12));
  CHECK(beyond.latency_s == Approx(launch_s + beyond.bytes / (model.value("hbm_fraction") * 3350e9)).epsilon(1e-12));
  CHECK(within.latency_s < beyond.latency_s);  // L2 (about 5.9 TB/s) outruns HBM (3.0 TB/s sustained)
  // timed as one CUDA call from C++ (a cudaMemcpy between events): the call's CPU side is inside
  CHECK(model.timed(within, Timed::cuda_call).latency_s ==
        Approx(within.latency_s + model.value("cuda_call_overhead_us") * 1e-6));
  CHECK(parse_timed("cuda-call") == Timed::cuda_call);
}

TEST_CASE("gpu model: attention FLOPs are FlashAttention's count, and causal skips the tiles above the diagonal") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h100 = builtin_gpu("h100-sxm");
  AttentionShape s{4, 16, 4096, 0, 128, false, false, DType::fp16};
  const KernelTime full = model.attention(h100, AttentionImpl::flash3, s);
  CHECK(full.flops == 4.0 * 4 * 4096.0 * 4096 * 16 * 128);
  s.causal = true;
  const KernelTime causal = model.attention(h100, AttentionImpl::flash3, s);
  CHECK(causal.flops == full.flops / 2);
  // 32 query tiles of 64 heads on 132 SMs: causal work is Σ(i+1) = 528 key tiles (+ fill and diagonal) per head,
  // spread over the SMs; unmasked, 64·32 rows of 32 key tiles (+ fill) run in ⌈2048 / 132⌉ = 16 whole waves.
  const double fill = model.value("flash3_pipeline_fill_tiles"), diag = model.value("causal_diagonal_extra_tiles");
  const double launch_s = model.value("launch_overhead_us") * 1e-6;
  CHECK((causal.latency_s - launch_s) / (full.latency_s - launch_s) ==
        Approx(64.0 * (528 + 32 * (fill + diag)) / 132 / (16 * (32 + fill))).epsilon(1e-9));
  s.causal = false;
  s.backward = true;
  CHECK(model.attention(h100, AttentionImpl::flash2, s).flops == 3.5 * full.flops);
  set_attention_pass(s, "bwd");  // the backward pass alone: 2.5 forwards' FLOPs, and the fwd+bwd time less the fwd
  const KernelTime backward = model.attention(h100, AttentionImpl::flash2, s);
  CHECK(backward.flops == 2.5 * full.flops);
  set_attention_pass(s, "fwd");
  const double forward_s = model.attention(h100, AttentionImpl::flash2, s).latency_s;
  set_attention_pass(s, "fwd+bwd");
  CHECK(model.attention(h100, AttentionImpl::flash2, s).latency_s == Approx(forward_s + backward.latency_s));
  REQUIRE_THROWS_WITH(set_attention_pass(s, "sideways"), Catch::Matchers::Contains("valid: fwd, bwd, fwd+bwd"));
  // FlashAttention-3 beats FlashAttention-2 on Hopper, and the materialised form is slowest.
  set_attention_pass(s, "fwd");
  const double fa2 = model.attention(h100, AttentionImpl::flash2, s).latency_s;
  CHECK(full.latency_s < fa2);
  CHECK(fa2 < model.attention(h100, AttentionImpl::naive, s).latency_s);
}

TEST_CASE("gpu model: unmasked attention tiles run in whole waves over the SMs") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h200 = builtin_gpu("h200");  // 132 SMs
  const double launch_s = model.value("launch_overhead_us") * 1e-6;
  const auto kernel_s = [&](std::uint64_t heads, std::uint64_t seq) {
    return model.attention(h200, AttentionImpl::flash2, {1, heads, seq, 0, 64, false, false, DType::fp16}).latency_s -
           launch_s;
  };
  // 132 heads × 1 query tile = one wave; 133 heads need a second wave of the same length.
  CHECK(kernel_s(133, 128) == Approx(2 * kernel_s(132, 128)).epsilon(1e-12));
  CHECK(kernel_s(264, 128) == Approx(kernel_s(133, 128)).epsilon(1e-12));
  // B·H = 16, N = 3136: 25 query tiles a head, 400 blocks, 4 waves of rows of 25 key tiles (+ the fill).
  const double fill = model.value("flash2_pipeline_fill_tiles");
  CHECK(kernel_s(16, 3136) / kernel_s(132, 3136) == Approx(4.0 / 25.0).epsilon(1e-12));
  CHECK(kernel_s(132, 128) / kernel_s(132, 3136) == Approx((1 + fill) / (25 * (25 + fill))).epsilon(1e-12));
}

TEST_CASE("gpu model: a decode step's keys are split over the idle SMs, so it streams its KV cache") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h100 = builtin_gpu("h100-sxm");
  // 32 heads, one query over 131,072 cached keys of width 128: 32 blocks would leave 100 of 132 SMs idle; split
  // four ways the time is the cache's K and V streamed once (plus the combine pass's small partials)
  const KernelTime decode =
      model.attention(h100, AttentionImpl::flash2, {1, 32, 1, 131072, 128, false, false, DType::fp16});
  const double kv_bytes = 2.0 * 32 * 131072 * 128 * 2;
  const double stream_s = model.streaming_kernel(h100, kv_bytes).latency_s;
  CHECK(decode.latency_s > stream_s);
  CHECK(decode.latency_s < 1.02 * stream_s + 2 * model.value("launch_overhead_us") * 1e-6);
  // a prefill's many query tiles fill the SMs themselves: nothing is split (its time is whole waves of rows)
  const KernelTime prefill =
      model.attention(h100, AttentionImpl::flash2, {1, 32, 4096, 0, 128, false, false, DType::fp16});
  CHECK(prefill.bytes == Approx(32.0 * 128 * (2 * 4096 + 2 * 4096) * 2));  // Q, K, V, O once: no partials
  // causal with more keys than queries: FLOPs of the attended pairs (a decode step's query attends every key)
  const KernelTime step =
      model.attention(h100, AttentionImpl::flash2, {1, 32, 1, 131072, 128, true, false, DType::fp16});
  CHECK(step.flops == decode.flops);
  CHECK(step.flops == 4.0 * 32 * 131072 * 128);
  // a sliding window of 4,096 keys: the step reads the band's K and V alone, 32 times fewer bytes and streams them
  AttentionShape windowed{1, 32, 1, 131072, 128, true, false, DType::fp16};
  windowed.window = 4096;
  const KernelTime band = model.attention(h100, AttentionImpl::flash2, windowed);
  CHECK(band.flops == 4.0 * 32 * 4096 * 128);
  const double band_io = 32.0 * 128 * (2 * 1 + 2 * 4096) * 2;
  CHECK(band.bytes >= band_io);
  CHECK(band.bytes < band_io * 1.05);  // the split's partials besides
  CHECK(band.latency_s < decode.latency_s / 8);
  // a grouped-query decode step (32 query heads over 8 K/V heads): FlashAttention packs a K/V head's 4 query heads
  // as one tile's rows, so it is the step of 8 heads of 4 rows each over every key — K and V streamed once, a
  // quarter of the multi-head step's bytes, and close to the bandwidth's time for them
  AttentionShape grouped{1, 32, 1, 131072, 128, true, false, DType::fp16};
  grouped.kv_heads = 8;
  AttentionShape packed{1, 8, 4, 131072, 128, false, false, DType::fp16};
  packed.kv_heads = 8;
  const KernelTime gqa = model.attention(h100, AttentionImpl::flash2, grouped);
  CHECK(gqa.latency_s == model.attention(h100, AttentionImpl::flash2, packed).latency_s);
  CHECK(gqa.flops == step.flops);
  CHECK(gqa.bytes < step.bytes / 3.9);
  CHECK(gqa.latency_s < step.latency_s / 3);
  // a causal prefill's window as wide as its keys bounds nothing: FlashAttention's halved count, as without one
  AttentionShape causal_prefill{1, 32, 4096, 0, 128, true, false, DType::fp16};
  const double halved = model.attention(h100, AttentionImpl::flash2, causal_prefill).flops;
  CHECK(halved == 4.0 * 32 * 4096 * 4096 * 128 / 2);
  causal_prefill.window = 4096;
  CHECK(model.attention(h100, AttentionImpl::flash2, causal_prefill).flops == halved);
  // causal over more keys than queries, bottom-right aligned, the offset not a whole tile: 129 queries over 256
  // keys (offset 127) — query tile 0's last row sees key 254, in key tile 1: two key tiles for each of its two query
  // tiles, more than 256 queries' 1 + 2
  const auto causal_s = [&](std::uint64_t seq) {
    return model.attention(h100, AttentionImpl::flash2, {4, 132, seq, 256, 128, true, false, DType::fp16}).latency_s;
  };
  CHECK(causal_s(129) > causal_s(256));
  CHECK(causal_s(128) < causal_s(256));
  // nor a grouped-query decode step's: packed as without it, in the same time
  AttentionShape wide = grouped;
  wide.window = 131072;
  CHECK(model.attention(h100, AttentionImpl::flash2, wide).latency_s == gqa.latency_s);
  CHECK(model.attention(h100, AttentionImpl::flash3, wide).latency_s ==
        model.attention(h100, AttentionImpl::flash3, grouped).latency_s);
}

TEST_CASE("gpu model: SDPA's math back end is materialised attention in fp32 plus its inputs' conversions") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h100 = builtin_gpu("h100-sxm");
  AttentionShape s{2, 8, 2048, 0, 64, false, false, DType::fp32};
  const double fp32_naive = model.attention(h100, AttentionImpl::naive, s).latency_s;
  CHECK(model.attention(h100, AttentionImpl::sdpa_math, s).latency_s == fp32_naive);  // fp32 inputs: nothing to convert
  s.dtype = DType::fp16;
  // Q, K, V to fp32 and O back: four streaming kernels of 2·8·2048·64 elements, 2 + 4 bytes each.
  const double convert_s = model.streaming_kernel(h100, 2.0 * 8 * 2048 * 64 * 6).latency_s;
  CHECK(model.attention(h100, AttentionImpl::sdpa_math, s).latency_s == Approx(fp32_naive + 4 * convert_s));
  CHECK(model.attention(h100, AttentionImpl::naive, s).latency_s < fp32_naive);  // fp16 composition: tensor cores
}

TEST_CASE("gpu model: a latency timed as one PyTorch call adds the call's dispatch") {
  const KernelModel& model = KernelModel::builtin();
  const KernelTime k =
      model.attention(builtin_gpu("h200"), AttentionImpl::cudnn, {1, 16, 1024, 0, 64, false, false, DType::fp16});
  CHECK(model.timed(k, Timed::kernel).latency_s == k.latency_s);
  CHECK(model.timed(k, Timed::pytorch_call).latency_s ==
        Approx(k.latency_s + model.value("pytorch_call_overhead_us") * 1e-6));
  CHECK(model.timed(k, Timed::pytorch_call).flops == k.flops);
  REQUIRE_THROWS_WITH(parse_timed("wall"), Catch::Matchers::Contains("valid: kernel, pytorch-call"));
}

TEST_CASE("gpu model: a card CUDA names is found among the built-in GPUs, an unknown one is none of them") {
  // the names cudaGetDeviceProperties gave on the lent machines (H200, H100 SXM5) and on the others' datasheets
  CHECK(builtin_gpu_of_device("NVIDIA H200") == "h200");
  CHECK(builtin_gpu_of_device("NVIDIA H100 80GB HBM3") == "h100-sxm");
  CHECK(builtin_gpu_of_device("NVIDIA H100 PCIe") == "h100-pcie");
  CHECK_FALSE(builtin_gpu_of_device("Tesla T4"));
  CHECK_FALSE(builtin_gpu_of_device("H200"));  // the whole name, not a part of it
  for (const std::string& name : builtin_gpu_names())
    for (const std::string& device : builtin_gpu(name).cuda_device_names) CHECK(builtin_gpu_of_device(device) == name);
}

TEST_CASE("gpu model: hostile input is a clear error") {
  using Catch::Matchers::Contains;
  const KernelModel& model = KernelModel::builtin();
  REQUIRE_THROWS_WITH(builtin_gpu("h300"), Contains("unknown GPU 'h300'") && Contains("h100-sxm"));
  REQUIRE_THROWS_WITH(read_gpu_file(ECOSIM_GPU_TEST_DATA "/gpu_negative_bandwidth.json"), Contains("memory_gb_per_s"));
  REQUIRE_THROWS_WITH(parse_gpu(R"({"name": "x"})", "g.json"), Contains("g.json"));
  const GpuSpec a100 = builtin_gpu("a100-sxm");
  // a bandwidth kernel in tf32 (a tensor-core input format, never stored)
  REQUIRE_THROWS_WITH(model.bandwidth(a100, BandwidthOp::copy, {100, 100, DType::tf32}), Contains("tf32"));
  REQUIRE_THROWS_WITH(model.attention(a100, AttentionImpl::flash3, {1, 1, 128, 0, 64, false, false, DType::fp16}),
                      Contains("wgmma"));
  REQUIRE_THROWS_WITH(model.attention(a100, AttentionImpl::flash2, {1, 1, 128, 0, 0, false, false, DType::fp16}),
                      Contains(">= 1"));
  REQUIRE_THROWS_WITH(model.attention(a100, AttentionImpl::flash2, {1, 1, 128, 0, 320, false, false, DType::fp16}),
                      Contains("up to 256"));
  REQUIRE_THROWS_WITH(model.attention(a100, AttentionImpl::flash2, {1, 1, 256, 128, 64, true, false, DType::fp16}),
                      Contains("kv-seq >= seq"));
  REQUIRE_THROWS_WITH(model.attention(a100, AttentionImpl::naive, {4, 16, 65536, 0, 64, false, false, DType::fp16}),
                      Contains("GB of scores"));  // Q, K, V and O fit (8.6 GB), the scores do not (1.1 TB)
  for (AttentionImpl impl : {AttentionImpl::flash2, AttentionImpl::ecosim})  // 137 GB of Q, K, V and O; before any
    REQUIRE_THROWS_WITH(model.attention(a100, impl, {64, 64, 65536, 0, 64, false, false, DType::fp16}),  // count
                        Contains("Q, K, V and O need 137.4 GB; the A100 SXM has 85.9 GB"));              // overflows
  // grouped-query: K and V once per K/V head — 32 sequences of 128k keys over 8 of 64 heads hold 17.2 GB of K and V
  AttentionShape grouped_decode{32, 64, 1, 131072, 128, true, false, DType::fp16};
  grouped_decode.kv_heads = 8;
  CHECK_NOTHROW(model.attention(a100, AttentionImpl::flash2, grouped_decode));
  REQUIRE_THROWS_WITH(model.attention(a100, AttentionImpl::flash2, {1, 1, 128, 0, 64, false, false, DType::fp32}),
                      Contains("flash2 attention is modelled in fp16 or bf16, not fp32"));
  REQUIRE_THROWS_WITH(model.gemm(a100, {1, 1, 1, 1, DType::fp8}), Contains("no fp8"));
  REQUIRE_THROWS_WITH(model.gemm(a100, {0, 1, 1, 1, DType::fp16}), Contains(">= 1"));
  REQUIRE_THROWS_WITH(parse_dtype("fp64"), Contains("valid: fp32"));
  REQUIRE_THROWS_WITH(parse_measurements(R"({"description": "", "sources": {}, "points": [{"id": "a"}]})", "m.json"),
                      Contains("m.json"));
  REQUIRE_THROWS_WITH(
      parse_measurements(R"({"description": "", "sources": {"s": "a paper"}, "points": [{"id": "a", "source": "s",
        "gpu": "h300", "op": "copy", "dtype": "fp16", "conditions": "", "rows": 1, "cols": 1, "gbs": 1}]})",
                         "m.json"),
      Contains("m.json: points[0]: gpu: unknown GPU 'h300'"));
}

TEST_CASE("gpu model: a trace is costed by class — softmax attention fused, matmuls as GEMMs, the rest streamed") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h100 = builtin_gpu("h100-sxm");
  auto record = [](ecosim::OpClass kind, std::string func, std::uint64_t batch, std::uint64_t m, std::uint64_t n,
                   std::uint64_t k) {
    ecosim::OpRecord r;
    r.kind = kind;
    r.func = std::move(func);
    r.batch = batch;
    r.m = m;
    r.n = n;
    r.k = k;
    r.group = "layer.softmax_attention";
    return r;
  };
  // One softmax attention (8 heads, 2048 queries and keys, head width 64): scores, softmax, context.
  std::vector<ecosim::OpRecord> ops{record(ecosim::OpClass::gemm, "", 8, 2048, 2048, 64),
                                    record(ecosim::OpClass::reduce, "softmax", 8, 2048, 2048, 1),
                                    record(ecosim::OpClass::gemm, "", 8, 2048, 64, 2048)};
  const AttentionShape s{8, 1, 2048, 2048, 64, false, false, DType::fp16};
  double best = 1e9;
  for (AttentionImpl impl : {AttentionImpl::flash2, AttentionImpl::flash3, AttentionImpl::cudnn})
    best = std::min(best, model.attention(h100, impl, s).latency_s);
  CHECK(modelled_latency_s(ops, h100, Software::best_library) == best);
  // ecosim's kernels as written: fp32 operands (the records' attention at fp16 would be half its bytes)
  AttentionShape s_fp32 = s;
  s_fp32.dtype = DType::fp32;
  CHECK(modelled_latency_s(ops, h100, Software::ecosim_kernels) ==
        model.attention(h100, AttentionImpl::ecosim, s_fp32).latency_s);
  CHECK(model.attention(h100, AttentionImpl::ecosim, s_fp32).bytes >
        model.attention(h100, AttentionImpl::ecosim, s).bytes);
  // Reformer's chunk group, its softmax unnormalised (the rounds combined after): the chunks' attention, fused as
  // ecosim's kernel runs it (it was priced op by op, with no reason given)
  std::vector<ecosim::OpRecord> chunks = ops;
  chunks[1].func = std::string(ecosim::ops::kUnnormalisedSoftmaxFunc);
  for (auto& r : chunks) r.group = "layer.chunk_attention";
  CHECK(modelled_latency_s(chunks, h100, Software::ecosim_kernels) ==
        modelled_latency_s(ops, h100, Software::ecosim_kernels));
  // Outside a fusion group the same records are a GEMM, a streamed pass and a GEMM.
  for (auto& r : ops) r.group.clear();
  ops[1].counts.add_read_bytes(ecosim::DType::fp32, 1000).add_written_bytes(ecosim::DType::fp32, 1000);
  const double expected = model.gemm(h100, {2048, 2048, 64, 8, DType::bf16}).latency_s +
                          model.streaming_kernel(h100, 2000).latency_s +
                          model.gemm(h100, {2048, 64, 2048, 8, DType::bf16}).latency_s;
  CHECK(modelled_latency_s(ops, h100, Software::best_library) == Approx(expected).epsilon(1e-12));

  // PyTorch eager: the group unfused even in its fusion group, matmuls in fp32 (fp16 under autocast), and the
  // step no faster than its records' dispatch
  for (auto& r : ops) r.group = "layer.softmax_attention";
  const auto eager = [&](DType matmul) {
    return model.gemm(h100, {2048, 2048, 64, 8, matmul}).latency_s + model.streaming_kernel(h100, 2000).latency_s +
           model.gemm(h100, {2048, 64, 2048, 8, matmul}).latency_s;
  };
  const double dispatch_s = 3 * model.value("pytorch_op_dispatch_us") * 1e-6;
  CHECK(eager(DType::fp32) > dispatch_s);  // fp32: the GPU's kernels bind (0.3 ms)
  CHECK(modelled_latency_s(ops, h100, Software::pytorch_fp32) == Approx(eager(DType::fp32)).epsilon(1e-12));
  CHECK(eager(DType::fp16) < dispatch_s);  // fp16: 71 us of kernels behind 91 us of dispatch
  CHECK(modelled_latency_s(ops, h100, Software::pytorch_amp) == Approx(dispatch_s).epsilon(1e-12));
  // a convolution runs on TF32 tensor cores in fp32 (cuDNN's default under PyTorch), in fp16 under autocast
  std::vector<ecosim::OpRecord> conv{record(ecosim::OpClass::conv, "", 32, 12544, 256, 1152)};
  conv[0].group.clear();
  CHECK(modelled_latency_s(conv, h100, Software::pytorch_fp32) ==
        Approx(model.gemm(h100, {12544, 256, 1152, 32, DType::tf32}).latency_s).epsilon(1e-12));
  // so does a convolution written as a GEMM (a weight or input gradient, a transposed convolution), its col2im
  // sums inside cuDNN's kernel: no pass of their own (it was priced as an fp32 GEMM plus a pass, 4x the time)
  std::vector<ecosim::OpRecord> as_gemm{record(ecosim::OpClass::gemm, "", 1, 1152, 256, 401408),
                                        record(ecosim::OpClass::eltwise, "add", 1, 1, 1, 1)};
  for (auto& r : as_gemm) {
    r.group.clear();
    r.params[std::string(ecosim::ops::kConvolutionParam)] = 1;
  }
  as_gemm[1].counts.add_read_bytes(ecosim::DType::fp32, 1 << 30).add_written_bytes(ecosim::DType::fp32, 1 << 29);
  CHECK(modelled_latency_s(as_gemm, h100, Software::pytorch_fp32) ==
        Approx(model.gemm(h100, {1152, 256, 401408, 1, DType::tf32}).latency_s).epsilon(1e-12));
  // a thousand tiny element-wise records: each costs its dispatch, not its few bytes
  std::vector<ecosim::OpRecord> tiny(1000, record(ecosim::OpClass::eltwise, "relu", 1, 1, 1, 1));
  for (auto& r : tiny) r.group.clear();
  CHECK(modelled_latency_s(tiny, h100, Software::pytorch_amp) ==
        Approx(1000 * model.value("pytorch_op_dispatch_us") * 1e-6).epsilon(1e-12));
}

TEST_CASE("gpu model: bytes resident in L2 never stream slower than from memory") {
  // a Blackwell-like GPU whose L2 (148 SMs × 1.965 GHz × the Hopper-tuned bytes a clock) is slower than its 8 TB/s
  // memory's sustained rate: a copy just small enough to stay in L2 took longer than one just too large
  const GpuSpec gpu = parse_gpu(R"({"name": "B200-like", "architecture": "blackwell", "sms": 148,
      "boost_clock_mhz": 1965, "l2_bytes": 132120576, "memory_bytes": 206158430208, "memory_gb_per_s": 8000,
      "cuda_core_fp32_tflops": 80, "tensor_dense_tflops": {"tf32": 1100, "fp16": 2250, "bf16": 2250, "fp8": 4500},
      "warpgroup_mma": true, "special_function_ops_per_clock_per_sm": 16,
      "sm_resources": {"registers": 65536, "threads": 2048, "blocks": 32, "shared_bytes": 233472},
      "sources": ["a test's"]})",
                                "test");
  const KernelModel& model = KernelModel::builtin();
  const double resident = model.value("l2_resident_share") * double(gpu.l2_bytes);
  CHECK(model.streaming_kernel(gpu, resident).latency_s <= model.streaming_kernel(gpu, resident + 4096).latency_s);
}

TEST_CASE("gpu model: a one-query decode step costs the same causal or not (its mask hides no key)") {
  const KernelModel& model = KernelModel::builtin();
  for (const char* name : {"a100-sxm", "h100-sxm"}) {
    const GpuSpec gpu = builtin_gpu(name);
    for (AttentionImpl impl : {AttentionImpl::flash2, AttentionImpl::cudnn, AttentionImpl::naive}) {
      INFO(name << " " << attention_impl_name(impl));
      AttentionShape step{.batch = 4, .heads = 32, .seq = 1, .kv_seq = 32768, .dim = 128};
      const KernelTime open = model.attention(gpu, impl, step);
      step.causal = true;
      const KernelTime masked = model.attention(gpu, impl, step);
      CHECK(masked.latency_s == open.latency_s);
      CHECK(masked.flops == open.flops);
    }
  }
}

TEST_CASE("gpu model: an attention group the fused kernel refuses is priced op by op, and says why") {
  using Catch::Matchers::Contains;
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h100 = builtin_gpu("h100-sxm");
  auto record = [](ecosim::OpClass kind, std::string func, std::uint64_t m, std::uint64_t n, std::uint64_t k) {
    ecosim::OpRecord r;
    r.kind = kind;
    r.func = std::move(func);
    r.batch = 4;
    r.m = m;
    r.n = n;
    r.k = k;
    r.group = "layer.softmax_attention";
    return r;
  };
  const auto attention = [&](std::uint64_t dim) {
    return std::vector<ecosim::OpRecord>{record(ecosim::OpClass::gemm, "", 1024, 1024, dim),
                                         record(ecosim::OpClass::reduce, "softmax", 1024, 1024, 1),
                                         record(ecosim::OpClass::gemm, "", 1024, dim, 1024)};
  };
  // head width 128: ecosim's fused kernel takes it; 136: it does not, so its three records are three kernels
  CHECK(modelled_latency(attention(128), h100, Software::ecosim_kernels).op_by_op.empty());
  const std::vector<ecosim::OpRecord> wide = attention(136);
  const ModelledLatency ecosim = modelled_latency(wide, h100, Software::ecosim_kernels);
  REQUIRE(ecosim.op_by_op.size() == 1);
  CHECK_THAT(ecosim.op_by_op[0], Contains("head widths up to 128, not 136"));
  const double one_by_one = model.gemm(h100, {1024, 1024, 136, 4, DType::fp32}).latency_s +
                            model.streaming_kernel(h100, 0).latency_s +
                            model.gemm(h100, {1024, 136, 1024, 4, DType::fp32}).latency_s;
  CHECK(ecosim.seconds == Approx(one_by_one).epsilon(1e-12));
  // the libraries take 136 (a multiple of 8 up to 256), not 132; two groups that share a reason list it once
  CHECK(modelled_latency(wide, h100, Software::best_library).op_by_op.empty());
  std::vector<ecosim::OpRecord> twice = attention(132);
  for (ecosim::OpRecord r : attention(132)) {
    r.group = "next.softmax_attention";
    twice.push_back(r);
  }
  const ModelledLatency library = modelled_latency(twice, h100, Software::best_library);
  REQUIRE(library.op_by_op.size() == 1);
  CHECK_THAT(library.op_by_op[0], Contains("multiples of 8 up to 256, not 132"));
}

TEST_CASE("gpu model: a sliding window skips the key tiles before the band, and ecosim's kernel each block's last") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h100 = builtin_gpu("h100-sxm");
  AttentionShape s{1, 32, 16384, 0, 128, true, false, DType::bf16};
  const KernelTime causal = model.attention(h100, AttentionImpl::flash2, s);
  s.window = 4096;  // Mistral's
  const KernelTime band = model.attention(h100, AttentionImpl::flash2, s);
  // FLOPs: 4·D per attended pair, Σ min(t, W); time: about the band's share of the causal triangle's tiles
  CHECK(band.flops == Approx(4.0 * 32 * 128 * double(ecosim::attended_pairs(16384, 16384, true, 4096))));
  const double share =
      double(ecosim::attended_pairs(16384, 16384, true, 4096)) / double(ecosim::attended_pairs(16384, 16384, true));
  CHECK(band.latency_s / causal.latency_s == Approx(share).epsilon(0.1));
  // The band's lower edge is masked element by element in every key tile it cuts: across a query tile of 128 rows
  // it cuts one tile when the window is a whole number of tiles, two otherwise — so a window of 4,160 keys costs
  // more than one of 4,224 (the same key tiles read, one more of them masked), which costs more than 4,096.
  const auto windowed_s = [&](std::uint64_t window) {
    AttentionShape w = s;
    w.window = window;
    return model.attention(h100, AttentionImpl::flash2, w).latency_s;
  };
  CHECK(windowed_s(4160) > windowed_s(4224));
  CHECK(windowed_s(4224) > windowed_s(4096));
  s.window = 1 << 20;  // wider than every row's keys: the causal triangle
  CHECK(model.attention(h100, AttentionImpl::flash2, s).latency_s == Approx(causal.latency_s));
  s.causal = false;
  CHECK_THROWS_WITH(model.attention(h100, AttentionImpl::flash2, s), Catch::Contains("--causal"));
  // ecosim's kernel: causal blocks of rows stop after their last row's last key — about half the full work
  AttentionShape e{1, 16, 8192, 0, 32, false, false, DType::fp32};
  const double full = model.attention(h100, AttentionImpl::ecosim, e).latency_s;
  e.causal = true;
  const double half = model.attention(h100, AttentionImpl::ecosim, e).latency_s;
  CHECK(half / full == Approx(0.5).epsilon(0.02));
  e.window = 1024;
  CHECK_THROWS_WITH(model.attention(h100, AttentionImpl::ecosim, e), Catch::Contains("no sliding window"));
}

TEST_CASE("gpu model: ecosim's split-KV decode step is its warps' loads in sequence, from L2 or from HBM") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h200 = builtin_gpu("h200");
  const auto step_s = [&](std::uint64_t keys, std::uint64_t dim) {
    AttentionShape s{1, 16, 1, keys, dim, false, false, DType::fp32};
    return model.attention(h200, AttentionImpl::ecosim, s).latency_s;
  };
  const double launches_s = 4 * model.value("launch_overhead_us") * 1e-6;  // the K/V append's two copies, two kernels
  const double l2_s = model.value("ecosim_decode_l2_load_cycles") / h200.boost_clock_hz;
  const double hbm_s = model.value("ecosim_decode_hbm_load_cycles") / h200.boost_clock_hz;
  // 1,025 keys at head width 64 (8.4 MB of cache, in L2): 5 splits, 80 blocks in one round; a warp's 64 keys, two
  // rows each, two loads a lane a row: 256 loads; the combine: the maxima (one a thread), then a warp's 2 splits of
  // 4 loads each (maximum, sum, two of the acc row)
  CHECK(step_s(1025, 64) == Approx(launches_s + 256 * l2_s + (1 + 2 * 4) * l2_s));
  // 65,537 keys (537 MB, from HBM): 257 splits, 4,112 blocks; 56 registers a thread -> 9 blocks an SM, 1,188 at
  // once: 4 rounds of 256 loads, above the cache's streaming time; the combine: 3 + 65 x 4 loads in L2
  const double cache_bytes = 16.0 * 2 * 65537 * 64 * 4;
  const double streamed_s = cache_bytes / (model.value("hbm_fraction") * h200.memory_bytes_per_s);
  CHECK(4 * 256 * hbm_s > streamed_s);
  CHECK(step_s(65537, 64) == Approx(launches_s + 4 * 256 * hbm_s + (3 + 65 * 4) * l2_s));
  // head width 128: four loads a lane a row, twice the chain of width 64 over the same keys in L2
  CHECK(step_s(1025, 128) - step_s(1025, 64) == Approx(256 * l2_s + 2 * 2 * l2_s));
  // far below the prefill kernel's time for one query row a group over the same cache (16 threads in all)
  AttentionShape prefill_row{1, 16, 2, 65536, 64, true, false, DType::fp32};
  CHECK(step_s(65536, 64) * 20 < model.attention(h200, AttentionImpl::ecosim, prefill_row).latency_s);
}

TEST_CASE("gpu model: grouped-query attention reads K and V once per K/V head, as a trace's causal groups mark") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h100 = builtin_gpu("h100-sxm");
  // Llama-3-8B's prefill: 32 query heads over 8 K/V heads, 2,048 tokens, head width 128
  AttentionShape gqa{1, 32, 2048, 0, 128, true, false, DType::bf16};
  gqa.kv_heads = 8;
  AttentionShape mha = gqa;
  mha.kv_heads = 0;
  const double q_bytes = 32.0 * 2048 * 128 * 2, kv_bytes = 8.0 * 2048 * 128 * 2;
  const KernelTime fused = model.attention(h100, AttentionImpl::flash2, gqa);
  CHECK(fused.bytes == Approx(2 * q_bytes + 2 * kv_bytes));  // Q and O per query head, K and V per K/V head
  CHECK(model.attention(h100, AttentionImpl::flash2, mha).bytes == Approx(4 * q_bytes));
  CHECK(fused.flops == model.attention(h100, AttentionImpl::flash2, mha).flops);
  // the materialised form (and ecosim's kernel) first repeat K and V to every query head: one streaming copy
  const KernelTime repeat = model.streaming_kernel(h100, 2 * kv_bytes + 2 * q_bytes);
  CHECK(model.attention(h100, AttentionImpl::naive, gqa).latency_s ==
        Approx(model.attention(h100, AttentionImpl::naive, mha).latency_s + repeat.latency_s).epsilon(1e-12));
  // the backward pass writes dK and dV per query head, then sums each group's (FlashAttention-2's interface)
  set_attention_pass(gqa, "bwd");
  const KernelTime backward = model.attention(h100, AttentionImpl::flash2, gqa);
  const KernelTime sum = model.streaming_kernel(h100, 2 * q_bytes + 2 * kv_bytes);
  CHECK(backward.bytes == Approx(4 * q_bytes + 2 * kv_bytes + 2 * q_bytes + sum.bytes));
  gqa.kv_heads = 5;
  CHECK_THROWS_WITH(model.attention(h100, AttentionImpl::flash2, gqa), Catch::Contains("must divide heads"));

  // A causal grouped-query attention's records (one product per query head, batch 1 × 32 heads) carry their K/V
  // heads (params.kv_groups = 8): the trace is costed as the grouped attention, not as 32 heads each with its K/V.
  std::vector<ecosim::OpRecord> ops(3);
  const std::array<ecosim::OpClass, 3> kinds{ecosim::OpClass::gemm, ecosim::OpClass::reduce, ecosim::OpClass::gemm};
  const std::array<std::array<std::uint64_t, 3>, 3> shapes{{{2048, 2048, 128}, {2048, 2048, 1}, {2048, 128, 2048}}};
  for (std::size_t i = 0; i < 3; ++i) {
    ops[i].kind = kinds[i];
    ops[i].func = i == 1 ? "softmax" : "";
    ops[i].batch = 32;
    std::tie(ops[i].m, ops[i].n, ops[i].k) = std::tuple(shapes[i][0], shapes[i][1], shapes[i][2]);
    ops[i].group = "layer.softmax_attention";
    ops[i].params = {{"causal", 1}, {"kv_groups", 8}};
  }
  const auto best_s = [&](const AttentionShape& s) {
    double best = 1e9;
    for (AttentionImpl impl : {AttentionImpl::flash2, AttentionImpl::flash3, AttentionImpl::cudnn})
      best = std::min(best, model.attention(h100, impl, s).latency_s);
    return best;
  };
  AttentionShape grouped{8, 4, 2048, 2048, 128, true, false, DType::fp16};
  grouped.kv_heads = 1;
  CHECK(modelled_latency_s(ops, h100, Software::best_library) == best_s(grouped));

  // A grouped-query decode step's records stack each K/V head's 4 query heads as the rows of one product
  // (params.packed_heads = 4; batch 8 K/V heads, 4 rows, 4,096 keys): costed as the step of 32 query heads over 8
  // K/V heads it is — by every library (FlashAttention packs it again) and by ecosim's kernels, which run a decode
  // kernel per query head over K and V repeated to it, not their prefill kernel over 4 rows.
  std::vector<ecosim::OpRecord> step = ops;
  const std::array<std::array<std::uint64_t, 3>, 3> step_shapes{{{4, 4096, 128}, {4, 4096, 1}, {4, 128, 4096}}};
  for (std::size_t i = 0; i < 3; ++i) {
    step[i].batch = 8;
    std::tie(step[i].m, step[i].n, step[i].k) = std::tuple(step_shapes[i][0], step_shapes[i][1], step_shapes[i][2]);
    step[i].params = {{"packed_heads", 4}};
  }
  AttentionShape decode{8, 4, 1, 4096, 128, false, false, DType::fp16};
  decode.kv_heads = 1;
  CHECK(modelled_latency_s(step, h100, Software::best_library) == best_s(decode));
  // ecosim's decode kernel keeps its cache in fp32 (msa_cuda.cu): priced so, and an fp16 or bf16 one refused
  AttentionShape decode_fp32 = decode;
  decode_fp32.dtype = DType::fp32;
  CHECK(modelled_latency_s(step, h100, Software::ecosim_kernels) ==
        model.attention(h100, AttentionImpl::ecosim, decode_fp32).latency_s);
  for (DType t : {DType::fp16, DType::bf16}) {
    decode.dtype = t;
    CHECK_THROWS_WITH(model.attention(h100, AttentionImpl::ecosim, decode),
                      Catch::Contains("not " + std::string(dtype_name(t))));
  }
  AttentionShape four_rows{8, 1, 4, 4096, 128, false, false, DType::fp32};  // what the records' shape alone says
  CHECK(model.attention(h100, AttentionImpl::ecosim, decode_fp32).latency_s <
        model.attention(h100, AttentionImpl::ecosim, four_rows).latency_s / 10);
  four_rows.dtype = DType::bf16;  // its prefill kernel reads fp32 or fp16
  CHECK_THROWS_WITH(model.attention(h100, AttentionImpl::ecosim, four_rows), Catch::Contains("not bf16"));
}

TEST_CASE("gpu model: fwd+bwd is the forward's time plus the backward's, grouped-query decode steps included") {
  // FlashAttention-2 and -3 pack a decode step's query heads per K/V head in the forward whether or not a backward
  // follows (fwd+bwd of 32 heads over 8 K/V heads took 0.324 ms against 0.0177 + 0.276 before); the math path
  // converts Q, K, V to fp32 in the forward only (its backward alone converted them too).
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h100 = builtin_gpu("h100-sxm");
  for (AttentionImpl impl : {AttentionImpl::flash2, AttentionImpl::flash3, AttentionImpl::cudnn, AttentionImpl::naive,
                             AttentionImpl::sdpa_math})  // (ecosim's kernel has no backward pass)
    for (std::uint64_t seq : {1, 64})
      for (std::uint64_t kv_heads : {8, 32}) {
        INFO(attention_impl_name(impl) << " seq " << seq << " kv heads " << kv_heads);
        AttentionShape s{1, 32, seq, 8192, 128, seq > 1, false, DType::fp16};
        s.kv_heads = kv_heads;
        auto latency = [&](const char* pass) {
          set_attention_pass(s, pass);
          return model.attention(h100, impl, s).latency_s;
        };
        CHECK(latency("fwd+bwd") == Approx(latency("fwd") + latency("bwd")).epsilon(1e-12));
      }
}

TEST_CASE("gpu model: the fused backward pass runs a block per key tile over the query tiles attending it") {
  const KernelModel& model = KernelModel::builtin();
  const GpuSpec h200 = builtin_gpu("h200");  // 132 SMs
  const double fill = model.value("flash2_pipeline_fill_tiles"), launch_s = model.value("launch_overhead_us") * 1e-6;
  const auto backward_s = [&](std::uint64_t seq, std::uint64_t kv_seq) {
    AttentionShape s{1, 132, seq, kv_seq, 256, false, true, DType::fp16};
    s.forward = false;
    return model.attention(h200, AttentionImpl::flash2, s).latency_s - launch_s;
  };
  // One query tile over 16 key tiles: 132 × 16 blocks of one tile each, 16 waves; sixteen query tiles over one
  // key tile: 132 blocks of 16 tiles, one wave. The same tiles, the fill paid per block.
  CHECK(backward_s(128, 16 * 128) / backward_s(16 * 128, 128) == Approx(16 * (1 + fill) / (16 + fill)).epsilon(1e-9));
  // causal and square: each key tile's column is a query tile's row mirrored, so the work is the forward's tiles
  AttentionShape causal{1, 16, 8192, 0, 128, true, true, DType::fp16};
  const KernelTime both = model.attention(h200, AttentionImpl::flash2, causal);
  causal.backward = false;
  CHECK(both.latency_s > model.attention(h200, AttentionImpl::flash2, causal).latency_s);
}
