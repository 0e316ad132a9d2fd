// A sweep's inputs recorded beside its rows and checked on --resume (sweep_inputs.hpp).
#include "sweep_inputs.hpp"

#include <array>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>
#include <boost/crc.hpp>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/text_file.hpp"
#include "provenance.hpp"

namespace ecosim::cli {

namespace {

constexpr std::uint64_t kMaxInputsBytes = std::uint64_t{4} << 20;

/// "crc32 XXXXXXXX, N bytes" of a regular file, read in blocks.
std::string file_digest(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw Error(path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot be opened");
  boost::crc_32_type crc;
  std::array<char, 1 << 16> block;
  std::uint64_t bytes = 0;
  while (in.read(block.data(), block.size()) || in.gcount() > 0) {
    crc.process_bytes(block.data(), static_cast<std::size_t>(in.gcount()));
    bytes += static_cast<std::uint64_t>(in.gcount());
  }
  if (in.bad()) throw Error(path + ": read failed");
  return fmt::format("crc32 {:08x}, {} bytes", crc.checksum(), bytes);
}

/// What differs between the recorded inputs and these: the first key whose values differ.
std::string difference(const nlohmann::json& recorded, const nlohmann::json& now) {
  for (const char* key : {"ecosim_version", "spec"})
    if (!recorded.contains(key) || recorded[key] != now[key])
      return std::string(key) == "spec" ? "the spec differs" : "they were computed by another ecosim version";
  const nlohmann::json none = nlohmann::json::object();
  const auto& files = recorded.contains("files") ? recorded["files"] : none;
  for (const auto& [path, digest] : now["files"].items())
    if (!files.contains(path) || files[path] != digest)
      return fmt::format("{} changed since ({} then, {} now)", path,
                         files.contains(path) ? files[path].dump() : "not read", digest.dump());
  return "its inputs differ";
}

}  // namespace

nlohmann::json sweep_inputs(const SweepSpec& spec) {
  nlohmann::json inputs;
  inputs["ecosim_version"] = provenance()["ecosim_version"];
  inputs["spec"] = spec.document;
  inputs["files"] = nlohmann::json::object();
  for (const SweepWorkload& w : spec.workloads)  // a file read once however many batches expand it
    for (const std::string& path : {w.onnx, w.hf_config})
      if (!path.empty() && !inputs["files"].contains(path)) inputs["files"][path] = file_digest(path);
  return inputs;
}

std::string sweep_inputs_path(const std::string& dir) { return dir + "/sweep.inputs.json"; }

void check_sweep_inputs(const std::string& dir, const nlohmann::json& inputs) {
  const std::string path = sweep_inputs_path(dir);
  if (!std::filesystem::exists(path))
    throw Error(
        fmt::format("{}: missing, so the rows of {}/sweep.csv cannot be checked against this spec's inputs "
                    "(written by an older ecosim?); run without --resume or use another --out",
                    path, dir));
  const nlohmann::json recorded = parse_json(read_text_file(path, kMaxInputsBytes), path);
  if (recorded != inputs)
    throw Error(
        fmt::format("{}/sweep.csv was computed from other inputs than this spec's ({}); run without --resume "
                    "or use another --out",
                    dir, difference(recorded, inputs)));
}

}  // namespace ecosim::cli
