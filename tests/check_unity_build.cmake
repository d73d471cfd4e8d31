# Every kernel of specs/, together with tests/unity/clashing_names.json (kernels named like the helpers of others:
# k, k_wrap, k_combine, k_prefetch, k_sources, ...), generated in one run and compiled as ONE translation unit
# (an amalgamation, as CMake's UNITY_BUILD makes) with the strict flags: no two kernels' definitions may clash.
# cmake -DKERNELGEN=<kernelgen> -DCOMPILER=<cc> -DFLAGS=<flags> [-DTARGET_FLAGS=<flags>] -DSOURCE_DIR=<repo>
#       -DWORK_DIR=<scratch> -P check_unity_build.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(GLOB specs "${SOURCE_DIR}/specs/*.json")
execute_process(COMMAND "${KERNELGEN}" --out-dir "${WORK_DIR}/kernels" ${specs} "${SOURCE_DIR}/tests/unity/clashing_names.json"
                RESULT_VARIABLE status ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "kernelgen refused the run (the names must pass the run-wide rule):\n${errors}")
endif()
file(GLOB sources RELATIVE "${WORK_DIR}/kernels" "${WORK_DIR}/kernels/*.c")
list(SORT sources)
set(text "/* Every kernel in one translation unit. */\n")
foreach(source IN LISTS sources)
  string(APPEND text "#include \"${source}\"\n")
endforeach()
file(WRITE "${WORK_DIR}/all_kernels.c" "${text}")
if(NOT DEFINED TARGET_FLAGS)
  set(TARGET_FLAGS -O1)
endif()
execute_process(COMMAND "${COMPILER}" ${FLAGS} ${TARGET_FLAGS} -I "${WORK_DIR}/kernels" -c "${WORK_DIR}/all_kernels.c"
                        -o "${WORK_DIR}/all_kernels.o"
                RESULT_VARIABLE status ERROR_VARIABLE errors)
list(LENGTH sources count)
get_filename_component(name "${COMPILER}" NAME)
if(NOT status EQUAL 0 OR NOT errors STREQUAL "")
  message(FATAL_ERROR "${name}: the ${count} kernels do not compile as one translation unit:\n${errors}")
endif()
message(STATUS "${name}: ${count} kernels compile as one translation unit, warning-free")
