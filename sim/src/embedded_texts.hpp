// Internal: the texts compiled into the ecosim command (sim/CMakeLists.txt, ecosim_embed_text), so an
// installed binary needs no source tree: the plot scripts, the PyTorch step measurement, and sim's data files.
#pragma once
#include <string_view>

namespace ecosim::embedded {
std::string_view plot_compare_py();        // scripts/plot_compare.py
std::string_view plot_sweep_py();          // scripts/plot_sweep.py
std::string_view plot_crossover_py();      // scripts/plot_crossover.py
std::string_view plot_train_py();          // scripts/plot_train.py
std::string_view step_time_py();           // python/ecosim/torch/step_time.py
std::string_view zoo_networks_py();        // python/ecosim/torch/zoo_networks.py
std::string_view files_py();               // python/ecosim/files.py
std::string_view work_estimates();         // sim/data/work_estimates.json
std::string_view default_sweep();          // sim/data/default_sweep.json
std::string_view published_accelerator();  // sim/data/published_accelerator.json
}  // namespace ecosim::embedded
