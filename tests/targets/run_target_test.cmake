# An on-target test: the cases the host tests check (exported once by export_cases.cmake), run bare-metal on one
# emulated microcontroller.
#
#  1. The kernels, compiled for the target as one translation unit with the strict flag set, warning-free. A
#     kernel that refuses the target with its own #error (REFUSALS, a regular expression of such messages: on
#     AVR, tensors beyond a 16-bit size_t or 64-bit doubles) is left out, and its cases count as refused.
#  2. target_make_program splits the cases into programs that fit the target (FLASH bytes of kernels, case data
#     and CASE_CODE bytes of code a case; on AVR also PROGMEM bytes of case data and tables read from program
#     memory; RAM bytes of heap a case), each with a self-checking driver (tests/c_program.cpp).
#  3. Each program is linked with the kernels (unused ones dropped) and the board's files (LINK), then run
#     (RUN, a command in which @ELF@ stands for the program); it must print "N cases, 0 failed" for its N
#     cases, and exit with status 0 unless the emulator's status says nothing (IGNORE_EXIT_STATUS).
#  4. The same for ../copy_routine_test.c, the row copy of kernelgen_support.h alone at every length and offset.
#  5. The same for ../index_check_test.c, the checks of an index (by words on AVR and the 32-bit cores, the sign word
#     on Cortex-M0) against the plain compare.
#
# The compiler and CPU flags come from the target's toolchain file (TOOLCHAIN, as installed with kernelgen).
# cmake -DNAME=... -DTOOLCHAIN=... -DCASES_DIR=... -DMAKE_PROGRAM=... -DSTRICT_FLAGS=... "-DLINK=..." "-DRUN=..."
#       -DFLASH=... -DRAM=... [-DPROGMEM=...] [-DCASE_CODE=...] [-DREFUSALS=...] [-DIGNORE_EXIT_STATUS=ON]
#       -DWORK_DIR=... -P run_target_test.cmake
cmake_minimum_required(VERSION 3.19)
include("${CMAKE_CURRENT_LIST_DIR}/steps.cmake")
include("${TOOLCHAIN}")  # CMAKE_C_COMPILER and KERNELGEN_TARGET_CPU_FLAGS
find_program(compiler "${CMAKE_C_COMPILER}" REQUIRED)
string(REGEX REPLACE "gcc$" "size" size_tool "${compiler}")
set(cpu ${KERNELGEN_TARGET_CPU_FLAGS})
separate_arguments(strict UNIX_COMMAND "${STRICT_FLAGS}")
if(NOT CASE_CODE)
  set(CASE_CODE 200)
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(kernels_dir "${CASES_DIR}/kernels")

# 1. The kernels as one translation unit (their names are distinct across the run).
file(GLOB kernel_sources RELATIVE "${kernels_dir}" "${kernels_dir}/*.c")
set(refused "")
foreach(attempt 1 2)
  set(unity "")
  foreach(source IN LISTS kernel_sources)
    get_filename_component(kernel "${source}" NAME_WE)
    if(NOT kernel IN_LIST refused)
      string(APPEND unity "#include \"${source}\"\n")
    endif()
  endforeach()
  file(WRITE "${WORK_DIR}/kernels.c" "${unity}")
  execute_process(COMMAND "${compiler}" ${cpu} ${strict} -Os -ffunction-sections -fdata-sections -I "${kernels_dir}"
                          -c "${WORK_DIR}/kernels.c" -o "${WORK_DIR}/kernels.o"
                  RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(status EQUAL 0 AND errors STREQUAL "")
    break()
  endif()
  # A kernel whose file holds a refusal is refused, with any error that follows from it; any other diagnostic fails.
  string(REGEX MATCHALL "[^\n/]+\\.c:[0-9]+:[0-9]+: error: [^\n]*" diagnostics "${errors}")
  set(refusing "")
  foreach(line IN LISTS diagnostics)
    if(REFUSALS AND line MATCHES "^([^:]+)\\.c:.*(${REFUSALS})")
      list(APPEND refusing "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  if(attempt EQUAL 2 OR NOT refusing)
    message(FATAL_ERROR "${compiler} on the kernels:\n${errors}")
  endif()
  list(REMOVE_DUPLICATES refusing)
  list(APPEND refused ${refusing})
endforeach()
execute_process(COMMAND "${size_tool}" -A "${WORK_DIR}/kernels.o" OUTPUT_FILE "${WORK_DIR}/sizes.txt" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${size_tool} failed on the kernels' object")
endif()

# 2. The programs.
file(GLOB_RECURSE case_files "${CASES_DIR}/cases/*.json")
set(budgets --flash ${FLASH} --ram ${RAM} --case-code ${CASE_CODE})
if(PROGMEM)
  list(APPEND budgets --progmem ${PROGMEM})
endif()
execute_process(COMMAND "${MAKE_PROGRAM}" programs --out "${WORK_DIR}/programs" --cases ${case_files}
                        --sizes "${WORK_DIR}/sizes.txt" ${budgets} --refused ${refused}
                RESULT_VARIABLE status OUTPUT_VARIABLE plan ERROR_VARIABLE err)
message("${plan}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "target_make_program failed:\n${err}")
endif()
include("${WORK_DIR}/programs/programs.cmake")

# Builds a self-checking program (`what` in messages; the sources after `elf`) with the kernels' include folder and
# the board's files, runs it, and expects "N cases, 0 failed" with N = `cases` (any N when empty), and exit status
# 0 unless the emulator's status says nothing. Sets `passed` to N.
function(build_and_run what cases elf)
  execute_process(COMMAND "${compiler}" ${cpu} ${strict} -Os -I "${kernels_dir}" ${ARGN} ${LINK} -Wl,--gc-sections
                          -o "${elf}"
                  RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(NOT status EQUAL 0 OR NOT errors STREQUAL "")
    message(FATAL_ERROR "building ${what} for ${NAME}:\n${errors}")
  endif()
  string(REPLACE "@ELF@" "${elf}" command "${RUN}")
  execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
  string(ASCII 27 escape)
  string(REGEX REPLACE "${escape}\\[[0-9;]*m" "" out "${out}${err}")  # simavr colours what UART0 printed
  set(counted "")
  set(failed "")
  if(out MATCHES "([0-9]+) cases, ([0-9]+) failed")  # (apart: a parenthesized test would run before the match)
    set(counted "${CMAKE_MATCH_1}")
    set(failed "${CMAKE_MATCH_2}")
  endif()
  if(NOT failed STREQUAL "0" OR (NOT cases STREQUAL "" AND NOT counted STREQUAL cases)
     OR (NOT IGNORE_EXIT_STATUS AND NOT status EQUAL 0))
    message(FATAL_ERROR "${what} failed on ${NAME} (exit status ${status}):\n${out}")
  endif()
  set(passed "${counted}" PARENT_SCOPE)
endfunction()

# 3. Build and run each program.
math(EXPR last "${program_count} - 1")
foreach(n RANGE ${last})
  build_and_run("program ${n} (${program${n}_cases} cases)" "${program${n}_cases}" "${WORK_DIR}/program${n}.elf"
                "${WORK_DIR}/programs/program${n}.c" "${WORK_DIR}/kernels.o")
endforeach()
# 4. kernelgen_copy, the kernels' row copy, on its own: every length 0..257 at every offset (copy_routine_test.c).
build_and_run(copy_routine_test.c "" "${WORK_DIR}/copy_routine.elf" "${CMAKE_CURRENT_LIST_DIR}/../copy_routine_test.c")
set(copies "${passed}")
# 5. The checks of an index (kernelgen_outside_i64 and its siblings) on their own (index_check_test.c).
build_and_run(index_check_test.c "" "${WORK_DIR}/index_check.elf" "${CMAKE_CURRENT_LIST_DIR}/../index_check_test.c")

message(STATUS "${NAME}: ${cases_run} cases passed in ${program_count} programs, ${cases_refused} refused by the "
               "target, ${cases_skipped} skipped (too large for its RAM); kernelgen_copy: ${copies} copies; "
               "kernelgen_outside_i64: ${passed} checks")
