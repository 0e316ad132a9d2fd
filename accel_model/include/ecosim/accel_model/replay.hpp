// Replaying a trace on the accelerator: the ops' plans pulled one at a time (plan_source.hpp) and timed
// either with the SystemC model (transactions per tile transfer or computation) or with the closed-form
// pipeline model. Memory stays constant: each op's row goes to a RowSink when the op finishes. A replay tells
// its caller how far it has got (ReplayProgress); it prints nothing itself.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/plan_source.hpp"
#include "ecosim/accel_model/result.hpp"
#include "ecosim/accel_model/timeline.hpp"

namespace ecosim::accel {

/// An amount of replay work: ops and their tiles, and of those the tiles the SystemC engine walks one by one
/// (the others it fast-forwards; the closed form walks none).
struct ReplayWork {
  std::uint64_t ops = 0, tiles = 0, walked_tiles = 0;
  bool operator==(const ReplayWork&) const = default;
};
/// Told how far a replay has got: the ops finished and the tiles started (of those ops and the running one).
/// Called after each op, and within an op every kProgressTiles tiles it starts (SystemC; the closed form costs
/// an op at once). It runs on the replaying thread and must not throw.
using ReplayProgress = std::function<void(const ReplayWork& done)>;
/// Tiles between two progress calls within one SystemC op (about 30 ms of simulation at 0.47 µs per tile).
inline constexpr std::uint64_t kProgressTiles = std::uint64_t{1} << 16;
/// The tiles of `plan` the SystemC engine walks one by one under `config`, passing over the steady runs of
/// alike tiles it fast-forwards (with the same cycles; systemc.fast_forward): all of them without fast-forward.
std::uint64_t walked_tiles(const OpPlan& plan, const AccelConfig& config);
/// walked_tiles() remembered for plans alike in kind, mapping, tensors, tiles, DRAM bits and closed-form cycles (a
/// model repeats its layers' ops, and each untimed walk costs about what the tiles it walks cost to make).
class WalkedTilesMemo {
 public:
  std::uint64_t operator()(const OpPlan& plan, const AccelConfig& config);

 private:
  static constexpr std::size_t kCapacity = 1024;  // forgotten all at once beyond this: memory stays bounded
  std::map<std::string, std::uint64_t> known_;
};
/// The work a SystemC replay of `plans` does, found by planning every op without timing any (the source's
/// checks run) and walking its tiles as the engine does, passing over what it would fast-forward.
ReplayWork plan_work(PlanSource& plans);

/// How the closed form sums an op's tiles: class by class (TileRun::visit_classes; an op of several runs, or
/// with tiles beside the previous one, is walked), or tile by tile (the reference the classes must equal, and
/// the order SystemC is fed in).
enum class ClosedForm : std::uint8_t { by_class, tile_by_tile };
/// One op's row in the closed form (leakage included); `weights_prefetched`: its first weight tile is on chip
/// (an op after the first with config.prefetch_weights, see pipeline.hpp).
OpRow closed_form_row(const OpPlan& plan, const AccelConfig& config, bool weights_prefetched = false,
                      ClosedForm method = ClosedForm::by_class);

/// Closed form: per op, the cycles of the tile pipeline as the recurrence of pipeline.hpp gives them. The
/// SystemC model simulates the same pipeline: the same cycles with config.prefetch_weights off, no fewer with it
/// on (the closed form assumes a prefetch wherever it may fit). Ops run one after another; each op's row goes to `rows`
/// when not null, and `progress` is told after each op when given.
ReplayResult replay_closed_form(PlanSource& plans, const AccelConfig& config, RowSink* rows = nullptr,
                                const ReplayProgress& progress = {});

/// The SystemC model (in ecosim::accel_systemc, a library of its own: see Engine below): controller, DMA, memory, three
/// SRAM buffers, fusion-unit array and vector unit as SystemC modules connected by TLM-2.0 sockets (loosely timed),
/// built from `config` in a SystemC kernel of their own for this replay (replays run one at a time per process). Each
/// op's row goes to `rows`, and the units' busy intervals to `timeline`, when not null (the caller finishes the
/// timeline); `progress` is told per op and every kProgressTiles tiles when given. Errors of the plan source are passed
/// on once the ops already started have finished.
ReplayResult replay_systemc(PlanSource& plans, const AccelConfig& config, RowSink* rows = nullptr,
                            TimelineWriter* timeline = nullptr, const ReplayProgress& progress = {});

/// The timing engine a replay runs on (identical cycles without the dynamic effects of pipeline.hpp). The
/// closed form is always linked; the SystemC engine only in programs that link ecosim::accel_systemc (the ecosim
/// command line, the tests), which registers it as the program loads. The Python module leaves it out, and with
/// it libsystemc, whose load-time initialisers set up a SystemC kernel inside the importing process.
enum class Engine : std::uint8_t { systemc, closed_form };
/// "systemc" or "closed-form" (the name ReplayResult::engine and every report carry).
std::string_view name(Engine e);
/// Parses an engine name; throws ecosim::Error listing the valid names, or naming the engine this program lacks.
Engine parse_engine(std::string_view text);

/// How an engine replays (replay_systemc's signature).
using EngineReplay = ReplayResult (*)(PlanSource&, const AccelConfig&, RowSink*, TimelineWriter*,
                                      const ReplayProgress&);
/// Makes `engine` run through `run` (ecosim::accel_systemc registers the SystemC engine this way).
void register_engine(Engine engine, EngineReplay run);
/// Whether `engine` is linked into this program.
bool engine_available(Engine engine);
/// The engine a replay runs on unless told: systemc where this program links it, else closed-form.
Engine default_engine();
/// Replays on `engine`; a timeline is drawn by the SystemC engine only (throws ecosim::Error for the closed form, and
/// for an engine this program lacks).
ReplayResult replay(Engine engine, PlanSource& plans, const AccelConfig& config, RowSink* rows = nullptr,
                    TimelineWriter* timeline = nullptr, const ReplayProgress& progress = {});

}  // namespace ecosim::accel
