# Builds the spec fuzzer with clang (-fsanitize=fuzzer,address,undefined) and runs it for a bounded time on
# a seed corpus made from specs/. Any crash, hang, leak or sanitizer report fails the test; the input that
# caused it is kept in WORK_DIR as crash-*/timeout-*/oom-* for a regression test.
# cmake -DCLANGXX=... -DSOURCE_DIR=... -DBINARY_DIR=... -DWORK_DIR=... -DSECONDS=... -P run_fuzzer.cmake
file(MAKE_DIRECTORY "${WORK_DIR}/corpus")
file(GLOB sources "${SOURCE_DIR}/generator/src/*.cpp")
set(fuzzer "${WORK_DIR}/spec_fuzzer")
execute_process(
  COMMAND "${CLANGXX}" -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
          -I "${SOURCE_DIR}/generator/include" -I "${BINARY_DIR}/generated_src"
          ${sources} "${BINARY_DIR}/generated_src/embedded_templates.cpp" "${SOURCE_DIR}/tests/fuzz/spec_fuzzer.cpp"
          -o "${fuzzer}"
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "building the fuzzer failed")
endif()
# Seeds: every spec file, and each kernel of a list as a file of its own.
file(GLOB specs "${SOURCE_DIR}/specs/*.json")
foreach(spec IN LISTS specs)
  get_filename_component(name "${spec}" NAME)
  configure_file("${spec}" "${WORK_DIR}/corpus/${name}" COPYONLY)
endforeach()
execute_process(
  COMMAND "${fuzzer}" -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -max_len=4096
          "-artifact_prefix=${WORK_DIR}/" "${WORK_DIR}/corpus"
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the fuzzer found a problem; see the artifact in ${WORK_DIR}")
endif()
