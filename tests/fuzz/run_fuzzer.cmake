# Builds the spec fuzzer with clang (-fsanitize=fuzzer,address,undefined), replays every input of
# tests/fuzz/regressions/ once, then fuzzes for a bounded time on a seed corpus made from specs/ and the
# regressions. Any crash, hang, leak or sanitizer report fails the test; the input that caused it is kept in
# WORK_DIR as crash-*/timeout-*/oom-*: copy it into tests/fuzz/regressions/ with the fix.
# cmake -DCLANGXX=... -DSOURCE_DIR=... -DBINARY_DIR=... -DWORK_DIR=... -DSECONDS=... -P run_fuzzer.cmake
file(MAKE_DIRECTORY "${WORK_DIR}/corpus")
file(GLOB sources "${SOURCE_DIR}/generator/src/*.cpp")
# The importer reads ONNX models, not specs, and needs ONNX's libraries: it is fuzzed in import_test instead.
list(FILTER sources EXCLUDE REGEX "/import\\.cpp$")
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
# Regressions: inputs that once broke kernelgen or probe its limits (deep nesting, huge numbers, invalid
# UTF-8, ...), each run once, whatever its size.
file(GLOB regressions "${SOURCE_DIR}/tests/fuzz/regressions/*")
execute_process(COMMAND "${fuzzer}" -timeout=10 -rss_limit_mb=2048 ${regressions} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "a regression input of tests/fuzz/regressions fails again")
endif()
foreach(input IN LISTS regressions)
  get_filename_component(name "${input}" NAME)
  configure_file("${input}" "${WORK_DIR}/corpus/regression_${name}" COPYONLY)
endforeach()
execute_process(
  COMMAND "${fuzzer}" -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -max_len=4096
          "-artifact_prefix=${WORK_DIR}/" "${WORK_DIR}/corpus"
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the fuzzer found a problem; see the artifact in ${WORK_DIR}")
endif()
