# `mpirun -np 2 ecosim sweep` writes the same sweep.csv bytes as the local run (--jobs 2): rank 0 hands the
# points of a small spec to rank 1, replays points itself between its requests and gathers the rows. Run by CTest when ecosim was built with MPI.
file(REMOVE_RECURSE ${WORKDIR}/local ${WORKDIR}/mpi)
file(WRITE ${WORKDIR}/spec.json [=[{
  "axes": {"array.rows": [8, 16], "array.cols": [8, 16, 32]},
  "workloads": [{"layer": {"seq": [16, 64], "dim": 16}}, {"model": "pvt_v2_b0"}],
  "variants": [{"name": "msa"}, {"name": "ecoformer", "bits": [8, 16]}]
}]=])
execute_process(COMMAND ${EXE} sweep spec.json --out local --jobs 2 RESULT_VARIABLE rc ERROR_VARIABLE err
                OUTPUT_QUIET WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "local sweep failed: ${err}")
endif()
set(root_flag "")
execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(uid STREQUAL "0")
  set(root_flag --allow-run-as-root)  # OpenMPI refuses root without it
endif()
execute_process(COMMAND ${MPIEXEC} -np 2 --oversubscribe ${root_flag} ${EXE} sweep spec.json --out mpi
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mpirun sweep failed (${rc}): ${err}")
endif()
if(NOT err MATCHES "on 2 MPI ranks")
  message(FATAL_ERROR "the sweep did not run over MPI ranks: ${err}")
endif()
file(READ ${WORKDIR}/local/sweep.csv local)
file(READ ${WORKDIR}/mpi/sweep.csv mpi)
if(NOT local STREQUAL mpi)
  message(FATAL_ERROR "sweep.csv differs between the local run and mpirun -np 2")
endif()
string(REGEX MATCHALL "\n" lines "${local}")
list(LENGTH lines count)
if(NOT count EQUAL 55)  # header + (2 layers + 1 model) × 3 variants × 6 configurations
  message(FATAL_ERROR "sweep.csv has ${count} lines, not 55")
endif()
