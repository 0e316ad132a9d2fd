# `ecosim fewbit --format json` reports the grid the solver used: an odd --grid is rounded up so that x = 0 is a
# grid point, and every border lies on that grid (cell width 2·range/grid), which the report names as "grid"
# beside the count asked for. Cells coarser than 0.02 are refused, naming the --grid that would do: --range 1e4
# at 3 bits printed an error 11x the optimum's, as optimal.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_helpers.cmake)
ecosim_run(out rc fewbit --activation gelu --bits 2 --grid 1001 --range 10 --format json)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fewbit --grid 1001 failed: ${out}")
endif()
string(JSON grid GET "${out}" grid)
string(JSON asked GET "${out}" grid_asked)
if(NOT grid EQUAL 1002 OR NOT asked EQUAL 1001)
  message(FATAL_ERROR "fewbit --grid 1001: grid ${grid}, grid_asked ${asked} (expected 1002 and 1001)")
endif()
string(JSON border GET "${out}" borders 0)
# border · grid / (2 · range) must be a whole number of cells
execute_process(COMMAND /usr/bin/python3 -c "b=${border}; c=b*${grid}/20; print(abs(c-round(c))<1e-6)"
                OUTPUT_VARIABLE on_grid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT on_grid STREQUAL "True")
  message(FATAL_ERROR "fewbit --grid 1001: border ${border} is not on the 1002-cell grid")
endif()
ecosim_run(out rc fewbit --activation gelu --bits 3 --range 10000)
if(NOT rc EQUAL 2 OR NOT out MATCHES "makes cells 2 wide, coarser than the 0.02" OR NOT out MATCHES "give --range 1000 or less \\(at --grid 100000\\)")
  message(FATAL_ERROR "fewbit --range 10000 on 10,000 cells: expected a refusal naming the grid (exit ${rc}): ${out}")
endif()
ecosim_run(out rc fewbit --activation gelu --bits 2 --range 100 --grid 1000)
if(NOT rc EQUAL 2 OR NOT out MATCHES "give --grid 10000 or more")
  message(FATAL_ERROR "fewbit --range 100 on 1,000 cells: expected a refusal naming --grid 10000 (exit ${rc}): ${out}")
endif()
