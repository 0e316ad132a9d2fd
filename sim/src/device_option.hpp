// Internal: --device auto|cpu|cuda and its resolution against the GPU actually present.
#pragma once
#include <string>

namespace ecosim::cli {

enum class DeviceChoice { cpu, cuda };

/// auto → cuda when a GPU is available, else cpu; cuda without a GPU → ecosim::Error naming the reason.
DeviceChoice resolve_device(const std::string& option);

}  // namespace ecosim::cli
