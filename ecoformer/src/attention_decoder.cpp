// AttentionDecoder (attention_decoder.hpp): the prefill through run_attention's causal kernel on the decoder's
// device (or skipped), its tokens added to the variant's decode state (decode_states.hpp) in order, then each step
// adding the new token and reading its query.
#include "ecosim/ecoformer/attention_decoder.hpp"

#include "baseline_kernels.hpp"
#include "decode_states.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::ecoformer {

namespace {

Tensor token_range(const Tensor& t, std::uint64_t first, std::uint64_t count) {
  if (count == 0 || count > t.seq || first > t.seq - count)
    throw Error("tokens from " + std::to_string(first) + ", " + std::to_string(count) + " of them, of " +
                std::to_string(t.seq) + ": not a range of the tensor's tokens");
  if (t.data.size() != t.batch * t.heads * t.seq * t.dim)
    throw Error("a tensor of " + std::to_string(t.data.size()) + " values does not have its shape's");
  Tensor out{t.batch, t.heads, count, t.dim, {}};
  out.data.reserve(t.batch * t.heads * count * t.dim);
  for (std::uint64_t g = 0; g < t.batch * t.heads; ++g) {
    const auto begin = t.data.begin() + static_cast<std::ptrdiff_t>((g * t.seq + first) * t.dim);
    out.data.insert(out.data.end(), begin, begin + static_cast<std::ptrdiff_t>(count * t.dim));
  }
  return out;
}

}  // namespace

AttentionInputs token_range(const AttentionInputs& in, std::uint64_t first, std::uint64_t count) {
  return {token_range(in.q, first, count), token_range(in.k, first, count), token_range(in.v, first, count)};
}

namespace {
AttentionConfig causal(AttentionConfig c) {
  c.causal = true;
  return c;
}
}  // namespace

AttentionDecoder::AttentionDecoder(const AttentionInputs& prompt, const AttentionConfig& config, Device device,
                                   std::uint64_t seed, OpSink& sink, PrefillOutput output)
    : AttentionDecoder(prompt, config, device, draw_kernel_parameters(prompt, causal(config), seed), sink, output) {}

AttentionDecoder::AttentionDecoder(const AttentionInputs& prompt, const AttentionConfig& config, Device device,
                                   KernelParameters parameters, OpSink& sink, PrefillOutput output)
    : config_(causal(config)), parameters_(std::move(parameters)) {
  check_kernel_parameters(parameters_, config_);
  detail::validate_inputs(prompt, config_);
  // a variant without a state, or a GPU that is not there, fails before any work
  state_ = detail::make_decode_state(config_, parameters_, device);
  prefill_ = output == PrefillOutput::computed ? run_attention(prompt, config_, device, parameters_, sink)
                                               : RunResult{Tensor{}, 0, device};
  state_->add(prompt);
  tokens_ = config_.seq;
}

AttentionDecoder::~AttentionDecoder() = default;

RunResult AttentionDecoder::step(const AttentionInputs& token, OpSink& sink) {
  AttentionConfig step = config_;  // one query over the tokens so far and itself
  step.seq = 1;
  step.keys = tokens_ + 1;
  detail::validate_tensor("Q", token.q, step);
  detail::validate_tensor("K", token.k, step);
  detail::validate_tensor("V", token.v, step);
  RunResult result = state_->step(token);
  ++tokens_;
  emit_attention(kAttentionRecordPrefix, step, Convention::exact, sink);
  return result;
}

std::uint64_t AttentionDecoder::state_bytes() const { return state_->bytes(); }

std::map<std::string, std::vector<double>> AttentionDecoder::state() const { return state_->arrays(); }

}  // namespace ecosim::ecoformer
