# `ecosim compare --out` with hostile folder names: a name with quotes and shell syntax is just a name (no
# shell runs it), a folder below a regular file fails before any kernel runs and leaves nothing, a leading
# dash is a name (given as --out=-dash), and a report that cannot be written removes the traces already written.
set(small --variants msa,ecoformer --batch 1 --seq 64 --dim 8)
# The folder is one quoted argument: a list would split the hostile name at its ';'.
function(compare_into folder out_var rc_var)
  execute_process(COMMAND ${EXE} compare ${small} "--out=${folder}" RESULT_VARIABLE rc ERROR_VARIABLE err
                  OUTPUT_VARIABLE stdout WORKING_DIRECTORY ${WORKDIR})
  set(${out_var} "${err}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
  set(stdout "${stdout}" PARENT_SCOPE)
endfunction()
function(require_reports dir)
  foreach(name msa.jsonl ecoformer.jsonl compare.csv compare.json)
    if(NOT EXISTS "${WORKDIR}/${dir}/${name}")
      message(FATAL_ERROR "'${dir}/${name}' was not written")
    endif()
  endforeach()
endfunction()

set(hostile [=[q'x; touch PWNED; echo ']=])
file(REMOVE_RECURSE "${WORKDIR}/${hostile}" ${WORKDIR}/PWNED)
compare_into("${hostile}" err rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compare --out '${hostile}' failed: ${err}")
endif()
if(EXISTS ${WORKDIR}/PWNED)
  message(FATAL_ERROR "a shell ran the folder name: PWNED exists")
endif()
require_reports("${hostile}")
# The report's last line points to the folder, naming compare.png only when it exists (the chart needs Debian's
# python3-matplotlib).
string(FIND "${stdout}" "reports in ${hostile}/: " said_folder)
string(FIND "${stdout}" "compare.png" said_png)
if(said_folder EQUAL -1)
  message(FATAL_ERROR "the reports' folder was not named: ${stdout}")
elseif(EXISTS "${WORKDIR}/${hostile}/compare.png" AND said_png EQUAL -1)
  message(FATAL_ERROR "compare.png was written but not reported: ${stdout}")
elseif(NOT EXISTS "${WORKDIR}/${hostile}/compare.png" AND NOT said_png EQUAL -1)
  message(FATAL_ERROR "compare.png was reported but does not exist: ${stdout}")
endif()

file(REMOVE_RECURSE ${WORKDIR}/afile)
file(WRITE ${WORKDIR}/afile "a regular file")
compare_into(afile/reports err rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "error: cannot create output directory 'afile/reports': 'afile' is not a dir")
  message(FATAL_ERROR "expected a not-a-directory error; rc=${rc}, stderr: ${err}")
endif()
if(err MATCHES "running kernel")
  message(FATAL_ERROR "a kernel ran before the output folder was checked: ${err}")
endif()
file(READ ${WORKDIR}/afile kept)
if(NOT kept STREQUAL "a regular file")
  message(FATAL_ERROR "afile was changed")
endif()

file(REMOVE_RECURSE ${WORKDIR}/-dash)
compare_into(-dash err rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compare --out=-dash failed: ${err}")
endif()
require_reports(-dash)

# compare.csv cannot be written (a folder has its name): the traces written before it are removed again,
# the existing folder and what was in it stay.
file(REMOVE_RECURSE ${WORKDIR}/existing)
file(MAKE_DIRECTORY ${WORKDIR}/existing/compare.csv)
compare_into(existing err rc)
file(GLOB left RELATIVE ${WORKDIR}/existing ${WORKDIR}/existing/* ${WORKDIR}/existing/.*)
if(NOT rc EQUAL 2 OR NOT err MATCHES "cannot write 'existing/compare.csv': Is a directory" OR
   NOT left STREQUAL "compare.csv")
  message(FATAL_ERROR "expected the failed run to leave only compare.csv/; rc=${rc}, left: ${left}, stderr: ${err}")
endif()
