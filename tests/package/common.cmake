# Helpers of the package tests (included by the scripts beside it).
cmake_minimum_required(VERSION 3.19)

# kg_run(<output variable> <command>...): runs the command, fails the test with its output unless it exits 0,
# and returns stdout and stderr together.
function(kg_run out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT status EQUAL 0)
    string(JOIN " " shown ${ARGN})
    message(FATAL_ERROR "failed (${status}): ${shown}\n${stdout}${stderr}")
  endif()
  set(${out} "${stdout}${stderr}" PARENT_SCOPE)
endfunction()

# kg_expect(<text> MATCHES|NOT_MATCHES <regex> <why>)
function(kg_expect text how regex why)
  if(how STREQUAL "MATCHES" AND NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${why}: expected to find \"${regex}\" in:\n${text}")
  elseif(how STREQUAL "NOT_MATCHES" AND text MATCHES "${regex}")
    message(FATAL_ERROR "${why}: did not expect \"${regex}\" in:\n${text}")
  endif()
endfunction()

# A fresh copy of examples/firmware in <dir>/src: the tests edit specs there, never in the source tree.
function(kg_copy_example dir)
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
  file(COPY "${SOURCE_DIR}/examples/firmware/" DESTINATION "${dir}/src")
endfunction()

# Builds <build dir>; returns what the build printed.
function(kg_build out build)
  kg_run(log "${CMAKE_COMMAND}" --build "${build}")
  set(${out} "${log}" PARENT_SCOPE)
endfunction()

# A second build with nothing changed must do nothing (ninja's dry run, explaining any work it would do).
function(kg_expect_no_work build why)
  kg_run(log "${CMAKE_COMMAND}" --build "${build}" -- -n -d explain)
  kg_expect("${log}" MATCHES "ninja: no work to do" "${why}: a build with nothing changed does work")
endfunction()

# Runs the example program; it exits with the number of the first check that failed.
function(kg_run_firmware program)
  execute_process(COMMAND "${program}" RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${program} failed check ${status} (see examples/firmware/main.c)\n${stdout}${stderr}")
  endif()
endfunction()
