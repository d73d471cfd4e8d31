# Every generated header is valid C++ too: one translation unit includes them all.
# cmake -DCOMPILER=<c++> -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch> -P check_cxx_headers.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(GLOB headers RELATIVE "${SOURCE_DIR}/generated" "${SOURCE_DIR}/generated/*.h")
set(text "")
foreach(header IN LISTS headers)
  string(APPEND text "#include \"${header}\"\n")
endforeach()
string(APPEND text "int main() { return 0; }\n")
file(WRITE "${WORK_DIR}/all_headers.cpp" "${text}")
execute_process(COMMAND "${COMPILER}" -std=c++11 -Wall -Wextra -Wpedantic -Werror -I "${SOURCE_DIR}/generated"
                        -c "${WORK_DIR}/all_headers.cpp" -o "${WORK_DIR}/all_headers.o"
                RESULT_VARIABLE status ERROR_VARIABLE errors)
if(NOT status EQUAL 0 OR NOT errors STREQUAL "")
  message(FATAL_ERROR "generated headers are not clean C++:\n${errors}")
endif()
