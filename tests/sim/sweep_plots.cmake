# `ecosim sweep` draws its two plots with Debian's interpreter (the embedded plot_sweep.py importing the
# embedded plot_compare.py): with python3-matplotlib installed (scripts/setup.sh installs it) both PNGs exist,
# start with the PNG signature and are reported; without it the sweep warns and still writes its CSV.
file(REMOVE_RECURSE ${WORKDIR}/out)
file(WRITE ${WORKDIR}/spec.json [=[{
  "axes": {"array.rows": [8, 16]},
  "workloads": [{"layer": {"seq": [64], "dim": 16}}],
  "variants": [{"name": "msa"}, {"name": "ecoformer"}]
}]=])
execute_process(COMMAND ${EXE} sweep spec.json --out out --jobs 1 RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET
                WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sweep failed: ${err}")
endif()
if(NOT EXISTS ${WORKDIR}/out/sweep.csv)
  message(FATAL_ERROR "sweep.csv missing: ${err}")
endif()
execute_process(COMMAND /usr/bin/python3 -c "import matplotlib" RESULT_VARIABLE no_matplotlib OUTPUT_QUIET ERROR_QUIET)
if(no_matplotlib)
  if(NOT err MATCHES "warning: no plots written")
    message(FATAL_ERROR "without matplotlib the sweep must warn: ${err}")
  endif()
  return()
endif()
foreach(png sweep_latency_energy.png sweep_energy_area.png)
  if(NOT EXISTS ${WORKDIR}/out/${png})
    message(FATAL_ERROR "${png} not written: ${err}")
  endif()
  file(READ ${WORKDIR}/out/${png} head LIMIT 8 HEX)
  if(NOT head STREQUAL "89504e470d0a1a0a")
    message(FATAL_ERROR "${png} is not a PNG (starts ${head})")
  endif()
endforeach()
if(NOT err MATCHES "wrote out/sweep_latency_energy.png and out/sweep_energy_area.png")
  message(FATAL_ERROR "the plots were not reported: ${err}")
endif()
