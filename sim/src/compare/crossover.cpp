// `ecosim crossover`'s sweep: every variant's per-token costs over the contexts, and where each falls below MSA's.
#include "crossover.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "ecosim/accel_model/gpu/op_records.hpp"
#include "ecosim/accel_model/plan_source.hpp"
#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "ecosim/ops_counter/record_source.hpp"
#include "ecosim/ops_counter/sinks.hpp"

namespace ecosim::cli {

namespace {

/// The options of one point: decode, the step over a cache of C − 1 tokens; prefill, C tokens.
ModelOptions point_options(const CrossoverRequest& r, AttentionVariant v, std::uint64_t context) {
  ModelOptions o = r.options;
  o.attention.variant = v;
  if (o.phase.phase == Phase::decode) {
    if (context < 2) throw Error("a decode step's context is at least 2 tokens (one cached, one new)");
    o.phase.context = context - 1;
    o.phase.tokens = 1;
  } else {
    o.seq_len = context;
  }
  return o;
}

/// One point; `tech` prices the op energy, `accel_tech` the accelerator's vector unit (the built-in table, as
/// every replay prices it: its cycles and energy one definition, accel_model/README.md).
CrossoverPoint point(const CrossoverRequest& r, AttentionVariant v, std::uint64_t context,
                     const accel::AccelConfig& accel, const TechTable& tech, const TechTable& accel_tech) {
  const ModelOptions o = point_options(r, v, context);
  OpCounter counter;
  RecordingSink list;
  FanOutSink sink({&counter, &list});
  for (const Layer& layer : r.zoo.build(r.model, o)) emit(layer, Convention::exact, sink);
  const DecoderFacts facts = *r.zoo.decoder_facts(r.model, o);
  RecordList records(list.records);
  accel::PlanSource plans(records, Convention::exact, name(v), accel, accel_tech);
  const accel::ReplayResult replay = accel::replay_closed_form(plans, accel);
  const auto tokens = static_cast<double>(facts.new_tokens);
  gpu::ModelledLatency gpu_time = gpu::modelled_latency(list.records, r.gpu, gpu::Software::best_library);
  return {.context = context,
          .op_energy_pj = tech.energy_pj(counter.total()) / tokens,
          .accel_energy_pj = replay.total.energy.total_pj() / tokens,
          .accel_latency_ms = replay.latency_ms() / tokens,
          .macs = facts.macs_per_token(),
          .gpu_latency_ms = gpu_time.seconds * 1e3 / tokens,
          .kv_cache_bytes = facts.kv_cache_bytes,
          .gpu_fits = facts.resident_bytes() <= r.gpu.memory_bytes,
          .gpu_op_by_op = std::move(gpu_time.op_by_op)};
}

template <typename T>
std::vector<double> metric(const CrossoverSeries& s, T CrossoverPoint::*field) {
  std::vector<double> values;
  for (const CrossoverPoint& p : s.points) values.push_back(static_cast<double>(p.*field));
  return values;
}

nlohmann::ordered_json crossover_json(const Crossover& c) {
  nlohmann::ordered_json j;
  j["kind"] = c.kind == Crossover::Kind::crosses            ? "crosses"
              : c.kind == Crossover::Kind::below_from_first ? "below_from_first"
              : c.kind == Crossover::Kind::after_tie        ? "after_tie"
                                                            : "not_within";
  const bool located = c.kind == Crossover::Kind::crosses || c.kind == Crossover::Kind::after_tie;
  j["context"] = located ? nlohmann::ordered_json(c.context) : nlohmann::ordered_json();
  if (c.kind == Crossover::Kind::after_tie) j["by"] = c.by;
  if (c.below_earlier) j["below_earlier"] = c.below_earlier;  // below MSA there, then not: the crossing is the last
  return j;
}

std::string crossover_text(const Crossover& c, std::uint64_t first) {
  const std::string earlier = c.below_earlier ? "*" : "";  // footnoted below the table
  switch (c.kind) {
    case Crossover::Kind::crosses: return fmt::format("{:.0f}{}", c.context, earlier);
    case Crossover::Kind::below_from_first: return fmt::format("≤ {}", first);
    case Crossover::Kind::after_tie: return fmt::format("{:.0f}–{:.0f}{}", c.context, c.by, earlier);
    case Crossover::Kind::not_within: break;
  }
  return "none" + earlier;
}

}  // namespace

Crossover find_crossover(const std::vector<std::uint64_t>& contexts, const std::vector<double>& msa,
                         const std::vector<double>& cost) {
  std::optional<std::size_t> last_not_below;
  for (std::size_t i = 0; i < contexts.size(); ++i)
    if (cost[i] >= msa[i]) last_not_below = i;
  if (!last_not_below) return {Crossover::Kind::below_from_first, 0};
  const std::size_t j = *last_not_below;
  std::uint64_t below_earlier = 0;
  for (std::size_t i = 0; i < j && !below_earlier; ++i)
    if (cost[i] < msa[i]) below_earlier = contexts[i];
  if (j + 1 == contexts.size()) return {.below_earlier = below_earlier};
  const double before = cost[j] - msa[j], after = cost[j + 1] - msa[j + 1];  // ≥ 0, then < 0
  const auto c0 = static_cast<double>(contexts[j]), c1 = static_cast<double>(contexts[j + 1]);
  if (before == 0) return {Crossover::Kind::after_tie, c0, c1, below_earlier};
  const double t = before / (before - after);
  return {Crossover::Kind::crosses, c0 + t * (c1 - c0), 0, below_earlier};
}

std::vector<CrossoverSeries> crossover_series(const CrossoverRequest& request, const accel::AccelConfig& accel,
                                              const TechTable& tech) {
  if (request.variants.empty() || request.variants.front() != AttentionVariant::msa)
    throw Error("the crossover is against MSA: it must be the first variant");
  std::vector<CrossoverSeries> series;
  const TechTable accel_tech = TechTable::builtin_45nm();
  for (AttentionVariant v : request.variants) {
    CrossoverSeries s{v, {}, {}, {}, {}, {}, {}};
    for (std::uint64_t context : request.contexts)
      s.points.push_back(point(request, v, context, accel, tech, accel_tech));
    if (!series.empty()) {
      const CrossoverSeries& msa = series.front();
      s.op_energy = find_crossover(request.contexts, metric(msa, &CrossoverPoint::op_energy_pj),
                                   metric(s, &CrossoverPoint::op_energy_pj));
      s.accel_energy = find_crossover(request.contexts, metric(msa, &CrossoverPoint::accel_energy_pj),
                                      metric(s, &CrossoverPoint::accel_energy_pj));
      s.accel_latency = find_crossover(request.contexts, metric(msa, &CrossoverPoint::accel_latency_ms),
                                       metric(s, &CrossoverPoint::accel_latency_ms));
      s.gpu_latency = find_crossover(request.contexts, metric(msa, &CrossoverPoint::gpu_latency_ms),
                                     metric(s, &CrossoverPoint::gpu_latency_ms));
      s.kv_cache = find_crossover(request.contexts, metric(msa, &CrossoverPoint::kv_cache_bytes),
                                  metric(s, &CrossoverPoint::kv_cache_bytes));
    }
    series.push_back(std::move(s));
  }
  return series;
}

nlohmann::ordered_json crossover_json(const CrossoverRequest& request, const std::vector<CrossoverSeries>& series,
                                      const accel::AccelConfig& accel, const TechTable& tech) {
  nlohmann::ordered_json j;
  j["model"] = request.model;
  j["phase"] = request.options.phase.phase == Phase::decode ? "decode" : "prefill";
  j["batch"] = request.options.batch;
  j["contexts"] = request.contexts;
  j["accelerator"] = accel.name;
  j["engine"] = std::string(accel::name(accel::Engine::closed_form));
  j["tech_table"] = tech.name();                             // the op energy's
  j["accel_tech_table"] = TechTable::builtin_45nm().name();  // the accelerator's vector unit's
  j["gpu"] = request.gpu.name + ", modelled, " + std::string(gpu::software_description(gpu::Software::best_library));
  j["per_token"] = "decode: the step that makes the context C tokens; prefill: a pass over C tokens ÷ C";
  for (const CrossoverSeries& s : series) {
    nlohmann::ordered_json v;
    v["variant"] = std::string(name(s.variant));
    for (const CrossoverPoint& p : s.points)
      v["points"].push_back({{"context", p.context},
                             {"op_energy_pj_per_token", p.op_energy_pj},
                             {"accel_energy_pj_per_token", p.accel_energy_pj},
                             {"accel_latency_ms_per_token", p.accel_latency_ms},
                             {"gpu_latency_ms_per_token", p.gpu_latency_ms},
                             {"gpu_fits", p.gpu_fits},
                             {"macs_per_token", p.macs},
                             {"kv_cache_bytes", p.kv_cache_bytes}});
    std::vector<std::string> op_by_op;  // why its GPU times price attention op by op, at any context
    for (const CrossoverPoint& p : s.points)
      for (const std::string& reason : p.gpu_op_by_op)
        if (std::find(op_by_op.begin(), op_by_op.end(), reason) == op_by_op.end()) op_by_op.push_back(reason);
    v["gpu_op_by_op"] = op_by_op;
    if (s.variant != AttentionVariant::msa)
      v["crossover_vs_msa"] = {{"op_energy", crossover_json(s.op_energy)},
                               {"accel_energy", crossover_json(s.accel_energy)},
                               {"accel_latency", crossover_json(s.accel_latency)},
                               {"gpu_latency", crossover_json(s.gpu_latency)},
                               {"kv_cache_bytes", crossover_json(s.kv_cache)}};
    j["variants"].push_back(std::move(v));
  }
  return j;
}

std::string crossover_csv(const nlohmann::ordered_json& report) {
  std::string csv = "variant";
  for (const auto& [key, value] : report["variants"].front()["points"].front().items()) csv += "," + key;
  csv += "\n";
  for (const auto& variant : report["variants"])
    for (const auto& point : variant["points"]) {
      csv += variant["variant"].get<std::string>();
      for (const auto& [key, value] : point.items()) csv += "," + value.dump();
      csv += "\n";
    }
  return csv;
}

void print_crossover_table(std::ostream& out, const CrossoverRequest& request,
                           const std::vector<CrossoverSeries>& series) {
  struct Metric {
    const char* title;
    double CrossoverPoint::*field;
    double scale;
  };
  const Metric metrics[] = {
      {"op energy per token (µJ, tech table)", &CrossoverPoint::op_energy_pj, 1e-6},
      {"accelerator energy per token (µJ, closed form)", &CrossoverPoint::accel_energy_pj, 1e-6},
      {"accelerator latency per token (ms, closed form)", &CrossoverPoint::accel_latency_ms, 1},
      {"GPU time per token (ms, modelled: the best library's kernels)", &CrossoverPoint::gpu_latency_ms, 1}};
  const bool decode = request.options.phase.phase == Phase::decode;
  out << fmt::format("{} {} per token over contexts (decode: the step that makes the context C tokens)\n",
                     request.model, decode ? "decode" : "prefill");
  auto header = [&] {
    out << fmt::format("  {:<16}", "variant");
    for (std::uint64_t c : request.contexts) out << fmt::format(" {:>11}", c);
    out << "\n";
  };
  for (const Metric& m : metrics) {
    out << "\n" << m.title << "\n";
    header();
    for (const CrossoverSeries& s : series) {
      out << fmt::format("  {:<16}", name(s.variant));
      for (const CrossoverPoint& p : s.points) out << fmt::format(" {:>11.4g}", p.*m.field * m.scale);
      out << "\n";
    }
  }
  out << "\nKV cache / recurrent state after the step (MiB)\n";
  header();
  for (const CrossoverSeries& s : series) {
    out << fmt::format("  {:<16}", name(s.variant));
    for (const CrossoverPoint& p : s.points)
      out << fmt::format(" {:>11.4g}", static_cast<double>(p.kv_cache_bytes) / (1024.0 * 1024.0));
    out << "\n";
  }
  out << "\ncontext at which the variant falls below MSA (interpolated between the contexts listed)\n";
  out << fmt::format("  {:<16} {:>14} {:>14} {:>14} {:>14} {:>14}\n", "variant", "op energy", "accel energy",
                     "accel latency", "GPU time", "KV/state");
  const std::uint64_t first = request.contexts.front();
  for (const CrossoverSeries& s : series) {
    if (s.variant == AttentionVariant::msa) continue;
    out << fmt::format("  {:<16} {:>14} {:>14} {:>14} {:>14} {:>14}\n", name(s.variant),
                       crossover_text(s.op_energy, first), crossover_text(s.accel_energy, first),
                       crossover_text(s.accel_latency, first), crossover_text(s.gpu_latency, first),
                       crossover_text(s.kv_cache, first));
  }
  for (const CrossoverSeries& s : series)
    for (const Crossover* c : {&s.op_energy, &s.accel_energy, &s.accel_latency, &s.gpu_latency, &s.kv_cache})
      if (c->below_earlier) {
        out << "  * below MSA at a shorter listed context (from " << c->below_earlier
            << "), then not: the crossing shown is the last (crossover_vs_msa.*.below_earlier in the JSON)\n";
        return;
      }
}

std::string gpu_memory_warning(const std::string& where, const gpu::GpuSpec& gpu,
                               std::optional<std::uint64_t> needed_bytes) {
  return fmt::format(
      "warning: {}: the weights and the KV cache or state{} exceed the {}'s {:.1f} GB; its GPU times (gpu_fits "
      "false) assume memory the GPU does not have\n",
      where, needed_bytes ? fmt::format(" ({:.1f} GB)", double(*needed_bytes) / 1e9) : "", gpu.name,
      double(gpu.memory_bytes) / 1e9);
}

}  // namespace ecosim::cli
