# The cases every on-target test runs, exported once (the ctest fixture on_target_cases):
#
#  1. The host tests export the cases they check (KERNELGEN_EXPORT_CASES / KERNELGEN_DUMP_CASES): every ONNX
#     doc example and hand-worked case, ONNX's node tests, and RANDOM_CASES random kernels per operator
#     across all element types (some with a run-time count), with the expected results the host computed (by
#     hand, from ONNX's .pb files, or with tests/reference.cpp), into WORK_DIR/cases/.
#  2. target_make_program generates the kernels those cases call into WORK_DIR/kernels/.
#
# cmake -DDOC_TEST=... [-DNODE_TEST=...] -DRANDOM_TEST=... -DMAKE_PROGRAM=... -DSOURCE_DIR=... -DWORK_DIR=...
#       [-DRANDOM_CASES=40] -P export_cases.cmake
include("${CMAKE_CURRENT_LIST_DIR}/steps.cmake")
if(NOT RANDOM_CASES)
  set(RANDOM_CASES 40)
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/cases/random")

run_step("exporting the doc examples"
  ${CMAKE_COMMAND} -E env "KERNELGEN_EXPORT_CASES=${WORK_DIR}/cases/doc_examples.json" "${DOC_TEST}")
if(NODE_TEST)
  run_step("exporting the ONNX node tests"
    ${CMAKE_COMMAND} -E env "KERNELGEN_EXPORT_CASES=${WORK_DIR}/cases/node_tests.json" "${NODE_TEST}")
endif()
run_step("exporting random cases"
  ${CMAKE_COMMAND} -E env "KERNELGEN_DUMP_CASES=${WORK_DIR}/cases/random" "KERNELGEN_RANDOM_CASES=${RANDOM_CASES}"
  KERNELGEN_CASES_ONLY=1 "${RANDOM_TEST}" --gtest_filter=RandomKernels.*)

file(GLOB_RECURSE case_files "${WORK_DIR}/cases/*.json")
file(GLOB specs "${SOURCE_DIR}/specs/*.json")
run_step("generating the kernels" "${MAKE_PROGRAM}" kernels --out "${WORK_DIR}/kernels" --specs ${specs} --cases ${case_files})
