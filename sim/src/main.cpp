// The ecosim executable: hands its arguments to the command dispatcher.
#include "ecosim/sim/commands.hpp"

int main(int argc, char** argv) { return ecosim::cli::main(ecosim::cli::Args(argv + 1, argv + argc)); }
