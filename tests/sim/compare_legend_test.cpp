// compare's terminal legend: each GPU column lists every distinct source of its rows (a measured library beside
// one variant's kernel, a modelled one beside another's), which rows price attention op by op and why, and which
// GPU's model the GPU model's error is of.
#include <catch2/catch.hpp>

#include "compare/compare_table.hpp"

using namespace ecosim::cli;

TEST_CASE("compare's legend names each GPU column's every source and its op-by-op rows") {
  CompareReport r;
  r.workload = {{"batch", 1}, {"seq", 64}, {"dim", 16}, {"heads", 1}};
  r.published = {{"workload", r.workload}, {"source", "a paper"}};
  r.provenance = {{"variant_parameters", nlohmann::ordered_json::object()},
                  {"accelerator", {{"name", "bitfusion-45nm"}}},
                  {"engine", "closed-form"},
                  {"fuse_attention", false}};
  CompareRow msa, sra;
  msa.variant = "msa";
  msa.gpu_measured = msa.gpu_library_measured = true;
  msa.gpu_label = "measured, CUDA events (H200)";
  msa.gpu_library_label = "measured, cuBLAS fp32 unfused (H200)";
  msa.gpu_model_error = 0.25;
  r.provenance["gpu_model_error_of"] = "H100 SXM";  // --gpu's (given), not the GPU that ran
  sra.variant = "sra";
  sra.gpu_label = "modelled, H200, ecosim's kernels";
  sra.gpu_library_label = "modelled, H200, best library";
  sra.gpu_op_by_op = {"ecosim's attention kernel supports head widths up to 128, not 160"};
  r.rows = {msa, sra};
  const std::string text = render_terminal(r, "reports", false);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("lib ms: measured, cuBLAS fp32 unfused (H200); ~ modelled, H200, best library"));
  CHECK_THAT(text, Catch::Contains("GPU ms: measured, CUDA events (H200); ~ modelled, H200, ecosim's kernels"));
  CHECK_THAT(text, Catch::Contains("GPU ms of sra: attention priced op by op, not fused (ecosim's attention kernel"));
  CHECK_THAT(text, !Catch::Contains("of msa: attention priced"));
  CHECK_THAT(text,
             Catch::Contains("GPU model's error (H100 SXM modelled) against this run's measurement: msa +25.0 %"));
}
