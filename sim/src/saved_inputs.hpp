// Internal: a folder of one kernel run's inputs, written by `run --save-inputs DIR` and read by
// `validate --params DIR`: q.npy, k.npy, v.npy, one <name>.npy per parameter array the variant's kernel reads
// (ecoformer/kernel_parameters.hpp: Performer's omega, Linformer's length_projection, Reformer's rotations, the
// hashed variants' anchors and projection), and manifest.json naming the variant, its parameters, the seed and
// each file with its role, shape, dtype and meaning (format: README.md, "Checking your own kernel").
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "ecosim/ecoformer/kernel_parameters.hpp"
#include "ecosim/ecoformer/npy.hpp"
#include "report_folder.hpp"

namespace ecosim::cli {

/// The manifest's file name inside the folder.
inline constexpr const char* kManifestFile = "manifest.json";

/// Writes a folder of inputs. The constructor checks, before any work, that `dir` is a directory or can be
/// made, and that each file it will write is absent or a regular file (not a link, folder or device).
class SavedInputsWriter {
 public:
  SavedInputsWriter(const std::string& dir, const AttentionConfig& config);
  /// Writes every file atomically, manifest.json last; on an error the files already written are removed.
  void write(const ecoformer::AttentionInputs& inputs, const ecoformer::KernelParameters& parameters,
             std::uint64_t seed);

 private:
  ReportFolder folder_;
  AttentionConfig config_;
};

struct SavedInputs {
  AttentionConfig config;  // variant, shape and parameters from the manifest; projections off
  std::uint64_t seed = 0;  // the seed they were drawn from (informative)
  ecoformer::AttentionInputs inputs;
  ecoformer::KernelParameters parameters;
  /// What the manifest says of each array, by name ("q", "omega"): its file and dtype.
  struct File {
    std::string file;
    ecoformer::NpyDtype dtype;
  };
  std::map<std::string, File> files;
};

/// Reads manifest.json of `dir` into the config and seed (no arrays): every error names the manifest and the
/// key at fault.
SavedInputs read_saved_manifest(const std::string& dir);
/// Reads the arrays the manifest names into `saved`: each file must hold its expected shape and the dtype the
/// manifest says; an error names the file and the shape expected.
void read_saved_arrays(const std::string& dir, SavedInputs& saved);

}  // namespace ecosim::cli
