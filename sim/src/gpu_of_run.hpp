// Internal: the built-in GPU file of the GPU a command ran on, where the user left --gpu to its default.
#pragma once
#include <boost/program_options.hpp>
#include <optional>
#include <string>

namespace ecosim::cli {

/// The built-in GPU file listing `device_name` (as CUDA names the card) when --gpu was not given and a name is
/// known (not empty); none otherwise (--gpu given, no device, or a card no built-in file lists).
std::optional<std::string> gpu_of_run(const boost::program_options::variables_map& vm, const std::string& device_name);

}  // namespace ecosim::cli
