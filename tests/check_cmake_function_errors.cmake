# cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch> -P check_cmake_function_errors.cmake
#
# kernelgen_add_kernels() refuses at configure time what one kernelgen run per spec cannot see, with a
# message naming the spec: names that clash across spec files, and a spec whose "kernels" list is empty.
# Each case configures a throwaway project and expects the configure step to fail with its message.
if(NOT SOURCE_DIR OR NOT WORK_DIR)
  message(FATAL_ERROR "SOURCE_DIR and WORK_DIR are required")
endif()

function(expect_configure_error case expected)
  set(project "${WORK_DIR}/${case}")
  file(REMOVE_RECURSE "${project}")
  file(MAKE_DIRECTORY "${project}")
  set(spec_args "")
  math(EXPR last "${ARGC} - 1")
  foreach(i RANGE 2 ${last})
    math(EXPR n "${i} - 1")
    file(WRITE "${project}/spec${n}.json" "${ARGV${i}}")
    string(APPEND spec_args " spec${n}.json")
  endforeach()
  file(WRITE "${project}/CMakeLists.txt"
    "cmake_minimum_required(VERSION 3.20)\n"
    "project(kernelgen_function_check LANGUAGES NONE)\n"
    "set(KERNELGEN_EXECUTABLE \"${CMAKE_COMMAND}\")\n"
    "include(\"${SOURCE_DIR}/cmake/KernelGenFunctions.cmake\")\n"
    "kernelgen_add_kernels(kernels SPECS${spec_args})\n")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${project}" -B "${project}/build"
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \n]+" " " flat "${err}")
  if(status EQUAL 0)
    message(SEND_ERROR "${case}: configure succeeded; expected: ${expected}")
  elseif(NOT flat MATCHES "${expected}")
    message(SEND_ERROR "${case}: expected the message\n  ${expected}\nbut got\n${err}")
  else()
    message(STATUS "${case}: refused as expected")
  endif()
endfunction()

set(gather [[{"name": "NAME", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]}]])
string(REPLACE NAME lookup lookup "${gather}")
string(REPLACE NAME Lookup upper_lookup "${gather}")
string(REPLACE NAME foo foo "${gather}")
string(REPLACE NAME FOO_OK foo_ok "${gather}")

expect_configure_error(same_name_two_files
  "kernel \"lookup\" of [^ ]*spec2.json clashes with kernel \"lookup\" of [^ ]*spec1.json: both headers would define lookup"
  "${lookup}" "${lookup}")
expect_configure_error(names_equal_upper_cased
  "kernel \"Lookup\" of [^ ]*spec2.json clashes with kernel \"lookup\" of [^ ]*spec1.json: both headers would define LOOKUP_H"
  "${lookup}" "{\"kernels\": [${upper_lookup}]}")
expect_configure_error(name_is_another_kernels_macro
  "kernel \"FOO_OK\" of [^ ]*spec2.json clashes with kernel \"foo\" of [^ ]*spec1.json: both headers would define FOO_OK"
  "${foo}" "${foo_ok}")
expect_configure_error(empty_kernel_list
  "[^ ]*spec1.json: /kernels is empty \\(at least one kernel\\)"
  [[{"kernels": []}]])
