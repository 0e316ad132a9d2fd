// Error type for bad user input (shapes, names, files): the CLI prints its message and exits non-zero.
#pragma once
#include <stdexcept>
#include <string>

namespace ecosim {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace ecosim
