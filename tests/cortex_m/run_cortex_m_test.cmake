# The Cortex-M test: the checks of the host tests, run bare-metal on an emulated Cortex-M4F.
#
#  1. The host tests export the cases they check (KERNELGEN_EXPORT_CASES / KERNELGEN_DUMP_CASES): every ONNX
#     doc example and hand-worked case, ONNX's node tests, and RANDOM_CASES random kernels per operator
#     across all element types, with the expected results the host computed (by hand, from ONNX's .pb
#     files, or with tests/reference.cpp).
#  2. cortex_m_make_program generates the kernels those cases call and the self-checking driver.
#  3. arm-none-eabi-gcc builds them for Cortex-M4F (the kernels with the strict flag set, at -Os), with
#     boards/cortex-m/startup.c and boards/mps2-an386/mps2_an386.ld, against newlib with semihosting.
#  4. qemu-system-arm runs the program on an mps2-an386 board; it must print "N cases, 0 failed" and exit 0.
#
# cmake -DDOC_TEST=... [-DNODE_TEST=...] -DRANDOM_TEST=... -DMAKE_PROGRAM=... -DARM_GCC=... -DCPU_FLAGS=... -DQEMU=...
#       -DSTRICT_FLAGS=... -DSOURCE_DIR=... -DWORK_DIR=... [-DRANDOM_CASES=40] -P run_cortex_m_test.cmake
if(NOT RANDOM_CASES)
  set(RANDOM_CASES 40)
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/random")

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${out}\n${err}")
  endif()
endfunction()

# 1. The cases.
set(case_files "${WORK_DIR}/doc_examples.json")
run_step("exporting the doc examples"
  ${CMAKE_COMMAND} -E env "KERNELGEN_EXPORT_CASES=${WORK_DIR}/doc_examples.json" "${DOC_TEST}")
if(NODE_TEST)
  list(APPEND case_files "${WORK_DIR}/node_tests.json")
  run_step("exporting the ONNX node tests"
    ${CMAKE_COMMAND} -E env "KERNELGEN_EXPORT_CASES=${WORK_DIR}/node_tests.json" "${NODE_TEST}")
endif()
run_step("exporting random cases"
  ${CMAKE_COMMAND} -E env "KERNELGEN_DUMP_CASES=${WORK_DIR}/random" "KERNELGEN_RANDOM_CASES=${RANDOM_CASES}" KERNELGEN_CASES_ONLY=1
  "${RANDOM_TEST}" --gtest_filter=RandomKernels.*)
file(GLOB random_files "${WORK_DIR}/random/*.json")
list(APPEND case_files ${random_files})

# 2. Kernels and driver.
file(GLOB specs "${SOURCE_DIR}/specs/*.json")
run_step("generating the program" "${MAKE_PROGRAM}" --out "${WORK_DIR}/program" --specs ${specs} --cases ${case_files})

# 3. The Cortex-M4F build.
set(cpu ${CPU_FLAGS})
separate_arguments(strict UNIX_COMMAND "${STRICT_FLAGS}")
file(GLOB kernel_sources "${WORK_DIR}/program/*.c")
list(REMOVE_ITEM kernel_sources "${WORK_DIR}/program/driver.c")
set(objects "")
foreach(source IN LISTS kernel_sources)
  get_filename_component(base "${source}" NAME_WE)
  execute_process(COMMAND "${ARM_GCC}" ${cpu} ${strict} -Os -c "${source}" -o "${WORK_DIR}/program/${base}.o"
                  RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(NOT status EQUAL 0 OR NOT errors STREQUAL "")
    message(FATAL_ERROR "arm-none-eabi-gcc on ${source}:\n${errors}")
  endif()
  list(APPEND objects "${WORK_DIR}/program/${base}.o")
endforeach()
run_step("linking the Cortex-M4F program"
  "${ARM_GCC}" ${cpu} -std=c99 -O1 -I "${WORK_DIR}/program" --specs=rdimon.specs -nostartfiles
  -L "${SOURCE_DIR}/boards/cortex-m" -T "${SOURCE_DIR}/boards/mps2-an386/mps2_an386.ld"
  "${SOURCE_DIR}/boards/cortex-m/startup.c"
  "${WORK_DIR}/program/driver.c" ${objects} -o "${WORK_DIR}/cortex_m_test.elf")

# 4. Run it.
execute_process(COMMAND "${QEMU}" -M mps2-an386 -cpu cortex-m4 -nographic -monitor none
                        -semihosting-config enable=on,target=native -kernel "${WORK_DIR}/cortex_m_test.elf"
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
message("${out}${err}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the program failed on the emulated Cortex-M4F (exit status ${status})")
endif()
if(NOT out MATCHES "([0-9]+) cases, 0 failed")
  message(FATAL_ERROR "the program did not report its cases as passed")
endif()
message(STATUS "Cortex-M4F (qemu mps2-an386): ${CMAKE_MATCH_1} cases passed")
