// `ecosim train --measure-gpu` (train_measure.hpp): the embedded step_time.py run in a temporary folder that holds
// the model's zoo entry and receives the JSON report, removed afterwards.
#include "train_measure.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <filesystem>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/text_file.hpp"
#include "ecosim/traces/atomic_file.hpp"
#include "embedded_texts.hpp"
#include "plot_script.hpp"

namespace ecosim::cli {

namespace {

namespace fs = std::filesystem;

/// A fresh folder under the system's temporary directory, removed with everything in it when this goes.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern = (fs::temp_directory_path() / "ecosim-train-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw Error("cannot make a temporary folder for the GPU measurement");
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  fs::path file(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

}  // namespace

bool measurable(const kernels::schemes::Scheme& scheme) { return scheme.kind != kernels::schemes::SchemeKind::actnn; }

std::string measured_label(const StepMeasurement& m, const kernels::schemes::Scheme& scheme) {
  using kernels::schemes::SchemeKind;
  if (scheme.kind == SchemeKind::none || scheme.kind == SchemeKind::amp) return m.label;
  return m.label +
         "; through ecosim.torch's hooks, which take each saved tensor through host memory to the kernels and back "
         "(the hooks' time, not the scheme's own device kernels')";
}

StepMeasurement measure_step_on_gpu(const std::string& python, const ModelZoo& zoo, const std::string& model,
                                    const ModelOptions& options, const std::vector<kernels::schemes::Scheme>& schemes,
                                    Optimizer optimizer) {
  if (!fs::path(python).is_absolute())
    throw Error("--measure-gpu: give the interpreter's absolute path (e.g. /usr/bin/python3), not '" + python + "'");
  StepMeasurement m;
  std::string names;
  for (const kernels::schemes::Scheme& s : schemes)
    if (measurable(s)) names += (names.empty() ? "" : ",") + s.name();
  if (names.empty()) {
    m.why_not = "no scheme it measures (ActNN's levels are not: the hooks take bits)";
    return m;
  }
  const TemporaryFolder folder;
  const std::string zoo_file = folder.file("zoo.json").string(), report = folder.file("step.json").string();
  nlohmann::json entry = zoo.resolved(model);
  if (options.seq_len) entry["seq_len"] = options.seq_len;  // the network built at the length train prices
  write_file_atomically(zoo_file, nlohmann::json{{model, entry}}.dump());
  std::vector<std::string> args{"--model",    model,  "--batch",     std::to_string(options.batch),
                                "--schemes",  names,  "--optimizer", std::string(name(optimizer)),
                                "--device",   "cuda", "--zoo",       zoo_file,
                                "--json-out", report};
  if (options.resolution) args.insert(args.end(), {"--resolution", std::to_string(options.resolution)});
  const ProgramRun run = run_embedded_python(python, {{"zoo_networks", embedded::zoo_networks_py()}}, "step_time.py",
                                             embedded::step_time_py(), args);
  if (!run.succeeded || !fs::is_regular_file(report)) {
    m.why_not = "step_time.py failed: " + (run.succeeded ? std::string("it wrote no report") : run.failure) +
                " (its message above)";
    return m;
  }
  try {  // bounded reads: the report is another program's output
    const nlohmann::json j = parse_json(read_text_file(report, kMaxJsonDocumentBytes), "step_time.py's report");
    for (const nlohmann::json& row : j.at("schemes"))
      m.schemes[row.at("scheme").get<std::string>()] = {
          row.at("step_ms").get<double>(),
          row.at("peak_bytes").is_null() ? 0 : row.at("peak_bytes").get<std::uint64_t>()};
    m.saved_activation_bytes = j.at("saved_activation_bytes").get<std::uint64_t>();
    m.device_name = j.at("device_name").get<std::string>();
    m.label = fmt::format("measured: PyTorch {} on {}, median step of 10 after 3 (CUDA events)",
                          j.at("torch").get<std::string>(), m.device_name);
  } catch (const std::exception& e) {
    m.schemes.clear();
    m.device_name.clear();
    m.why_not = std::string("step_time.py's report: ") + e.what();
  }
  return m;
}

}  // namespace ecosim::cli
