# cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch> -P check_cmake_function_errors.cmake
#
# kernelgen_add_kernels() refuses misuse at configure time with a message of its own: its arguments, the
# generator, and what one kernelgen run per spec cannot see (names that clash across spec files, two calls
# writing one kernel file, a spec whose "kernels" list is empty). Each case configures a throwaway project and
# expects the configure step to fail with its message; the last cases must configure.
if(NOT SOURCE_DIR OR NOT WORK_DIR)
  message(FATAL_ERROR "SOURCE_DIR and WORK_DIR are required")
endif()

# Configures a throwaway project <case> whose CMakeLists.txt is <body> (after the project() line, with a
# generator that exists and the function included, unless the body changes them), next to spec1.json,
# spec2.json, ... holding the texts given after <body>. Returns the status and the flattened stderr.
function(configure_case case body status_var err_var)
  set(project "${WORK_DIR}/${case}")
  file(REMOVE_RECURSE "${project}")
  file(MAKE_DIRECTORY "${project}")
  math(EXPR last "${ARGC} - 1")
  if(last GREATER_EQUAL 4)
    foreach(i RANGE 4 ${last})
      math(EXPR n "${i} - 3")
      file(WRITE "${project}/spec${n}.json" "${ARGV${i}}")
    endforeach()
  endif()
  file(WRITE "${project}/CMakeLists.txt"
    "cmake_minimum_required(VERSION 3.20)\n"
    "project(kernelgen_function_check LANGUAGES NONE)\n"
    "set(KERNELGEN_EXECUTABLE \"${CMAKE_COMMAND}\")\n"
    "include(\"${SOURCE_DIR}/cmake/KernelGenFunctions.cmake\")\n"
    "${body}\n")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${project}" -B "${project}/build"
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \n]+" " " flat "${err}")
  set(${status_var} "${status}" PARENT_SCOPE)
  set(${err_var} "${flat}" PARENT_SCOPE)
endfunction()

# expect_call_error(<case> <expected regex> <body> [<spec text>...])
function(expect_call_error case expected body)
  configure_case(${case} "${body}" status err ${ARGN})
  if(status EQUAL 0)
    message(SEND_ERROR "${case}: configure succeeded; expected: ${expected}")
  elseif(NOT err MATCHES "${expected}")
    message(SEND_ERROR "${case}: expected the message\n  ${expected}\nbut got\n${err}")
  else()
    message(STATUS "${case}: refused as expected")
  endif()
endfunction()

# expect_configure_error(<case> <expected regex> <spec text>...): one call over every spec given.
function(expect_configure_error case expected)
  set(specs "")
  set(n 0)
  foreach(text IN LISTS ARGN)
    math(EXPR n "${n} + 1")
    string(APPEND specs " spec${n}.json")
  endforeach()
  expect_call_error(${case} "${expected}" "kernelgen_add_kernels(kernels SPECS${specs})" ${ARGN})
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

# --- the call itself ------------------------------------------------------------------------------------
set(me "kernelgen_add_kernels\\(kernels\\)")
set(call_form "\\(allowed: SPECS <spec.json>... \\[OUTPUT_DIR <dir>\\] \\[OPTIONS <kernelgen arguments>...\\]\\)")
expect_call_error(unknown_argument "${me}: unknown arguments: spec1.json spec2.json ${call_form}"
  "kernelgen_add_kernels(kernels spec1.json spec2.json)" "${lookup}" "${foo}")
expect_call_error(misspelt_keyword
  "${me}: spec file [^ ]*/misspelt_keyword/OUTPUTDIR does not exist \\(a misspelt keyword\\? The keywords are SPECS, OUTPUT_DIR and OPTIONS\\)"
  "kernelgen_add_kernels(kernels SPECS spec1.json OUTPUTDIR out)" "${lookup}")
expect_call_error(no_specs "${me}: SPECS <spec.json>... is required"
  "kernelgen_add_kernels(kernels OUTPUT_DIR out)")
expect_call_error(output_dir_without_value "${me}: OUTPUT_DIR needs a folder"
  "kernelgen_add_kernels(kernels SPECS spec1.json OUTPUT_DIR)" "${lookup}")
foreach(character ";" "#" "<" ">")
  string(MAKE_C_IDENTIFIER "${character}" case)
  expect_call_error(output_dir_with${case}
    "${me}: OUTPUT_DIR \"[^\"]*/out${character}dir\" contains '${character}', which CMake does not allow in a generated source file's path \\(spec and data file paths may hold it\\)"
    "kernelgen_add_kernels(kernels SPECS spec1.json OUTPUT_DIR \"out${character}dir\")" "${lookup}")
endforeach()
# Paths CMake cannot carry into its build files: refused by name, before anything is configured (docs/cmake.md).
set(carried "\\(kernelgen_add_kernels\\(\\) takes paths without control characters, '\"', '\\\\', '\\[' or '\\]'; rename the file\\)")
foreach(character "\"" "\\" "[" "]")
  string(MAKE_C_IDENTIFIER "x${character}" case)
  string(REGEX REPLACE "([][\\])" "\\\\\\1" shown "${character}")
  expect_call_error(spec_path_with${case}
    "${me}: spec file \"odd${shown}name.json\" holds '${shown}', which CMake cannot carry into its build files ${carried}"
    "set(name [==[odd${character}name.json]==])\nfile(WRITE \"\${CMAKE_CURRENT_SOURCE_DIR}/\${name}\" [[${lookup}]])\nkernelgen_add_kernels(kernels SPECS \"\${name}\")")
  expect_call_error(output_dir_with${case}
    "${me}: OUTPUT_DIR \"out${shown}dir\" holds '${shown}', which CMake cannot carry into its build files ${carried}"
    "set(dir [==[out${character}dir]==])\nkernelgen_add_kernels(kernels SPECS spec1.json OUTPUT_DIR \"\${dir}\")" "${lookup}")
endforeach()
expect_call_error(spec_path_with_a_newline
  "${me}: spec file \"odd\\?name.json\" holds a control character \\(shown as '\\?'\\), which CMake cannot carry into its build files ${carried}"
  "set(name \"odd\\nname.json\")\nfile(WRITE \"\${CMAKE_CURRENT_SOURCE_DIR}/\${name}\" [[${lookup}]])\nkernelgen_add_kernels(kernels SPECS \"\${name}\")")
# Two data files of one kernel, "q[a.npy" and "s]b.npy", once merged into one dependency: each refused, whether
# the function reads the spec itself (a generator that cannot run at configure time) or asks kernelgen.
set(bracketed [[{"name": "pick", "op": "ScatterND", "dtype": "float32", "data_shape": [2], "indices_shape": [1, 1],
  "data_file": "q[a.npy", "updates_file": "s]b.npy"}]])
expect_call_error(data_files_with_brackets
  "${me}: data file \"[^\"]*/data_files_with_brackets/q\\[a.npy\" holds '\\[', which CMake cannot carry into its build files ${carried}"
  "kernelgen_add_kernels(kernels SPECS spec1.json)" "${bracketed}")
expect_call_error(missing_spec_file "${me}: spec file [^ ]*/missing_spec_file/nothere.json does not exist"
  "kernelgen_add_kernels(kernels SPECS nothere.json)")
expect_call_error(spec_listed_twice "${me}: spec file [^ ]*/spec1.json is listed twice in SPECS"
  "kernelgen_add_kernels(kernels SPECS spec1.json ./spec1.json)" "${lookup}")
expect_call_error(target_exists
  "${me}: a target named \"kernels\" already exists \\(the function creates the library <target>\\)"
  "add_custom_target(kernels)\nkernelgen_add_kernels(kernels SPECS spec1.json)" "${lookup}")

# --- OPTIONS: the function owns the output folder and the list of specs ------------------------------------
set(options_rule "is not a kernelgen option the function passes on \\(allowed: --unroll MODE, --prefetch MODE\\)")
foreach(option --out-dir -o --out-dir=elsewhere)
  expect_call_error(options_${option}
    "${me}: OPTIONS may not hold ${option}: the function sets the output folder \\(use OUTPUT_DIR\\)"
    "kernelgen_add_kernels(kernels SPECS spec1.json OPTIONS ${option} out)" "${lookup}")
endforeach()
expect_call_error(options_extra_spec "${me}: OPTIONS: \"spec2.json\" ${options_rule}"
  "kernelgen_add_kernels(kernels SPECS spec1.json OPTIONS spec2.json)" "${lookup}" "${foo}")
expect_call_error(options_help "${me}: OPTIONS: \"--help\" ${options_rule}"
  "kernelgen_add_kernels(kernels SPECS spec1.json OPTIONS --help)" "${lookup}")
expect_call_error(options_unknown_unroll
  "${me}: OPTIONS: unknown --unroll mode \"65\" \\(auto, full, none or a factor 1..64\\)"
  "kernelgen_add_kernels(kernels SPECS spec1.json OPTIONS --unroll 65)" "${lookup}")
expect_call_error(options_unroll_equals_unknown
  "${me}: OPTIONS: unknown --unroll mode \"fast\" \\(auto, full, none or a factor 1..64\\)"
  "kernelgen_add_kernels(kernels SPECS spec1.json OPTIONS --unroll=fast)" "${lookup}")
expect_call_error(options_unroll_without_mode
  "${me}: OPTIONS: --unroll needs a mode \\(auto, full, none or a factor 1..64\\)"
  "kernelgen_add_kernels(kernels SPECS spec1.json OPTIONS --unroll)" "${lookup}")
expect_call_error(options_unknown_prefetch
  "${me}: OPTIONS: unknown --prefetch mode \"1025\" \\(auto, none or a distance 1..1024\\)"
  "kernelgen_add_kernels(kernels SPECS spec1.json OPTIONS --prefetch 1025)" "${lookup}")
expect_call_error(options_prefetch_equals_unknown
  "${me}: OPTIONS: unknown --prefetch mode \"full\" \\(auto, none or a distance 1..1024\\)"
  "kernelgen_add_kernels(kernels SPECS spec1.json OPTIONS --unroll none --prefetch=full)" "${lookup}")
expect_call_error(options_prefetch_without_mode
  "${me}: OPTIONS: --prefetch needs a mode \\(auto, none or a distance 1..1024\\)"
  "kernelgen_add_kernels(kernels SPECS spec1.json OPTIONS --unroll 4 --prefetch)" "${lookup}")

# --- two calls: one file each --------------------------------------------------------------------------------
expect_call_error(two_calls_one_output_dir
  "kernelgen_add_kernels\\(second\\): kernel \"lookup\" of [^ ]*/spec2.json would write [^ ]*/out/lookup.c, which kernelgen_add_kernels\\(first\\) for [^ ]*/spec1.json already writes \\(give each call its own OUTPUT_DIR, or list the spec in one call only\\)"
  "kernelgen_add_kernels(first SPECS spec1.json OUTPUT_DIR out)\nkernelgen_add_kernels(second SPECS spec2.json OUTPUT_DIR out)"
  "${lookup}" "${lookup}")
expect_call_error(one_spec_two_calls_one_output_dir
  "kernelgen_add_kernels\\(second\\): kernel \"lookup\" of [^ ]*/spec1.json would write [^ ]*/out/lookup.c, which kernelgen_add_kernels\\(first\\) for [^ ]*/spec1.json already writes"
  "kernelgen_add_kernels(first SPECS spec1.json OUTPUT_DIR out)\nkernelgen_add_kernels(second SPECS spec1.json OUTPUT_DIR \${CMAKE_BINARY_DIR}/out)"
  "${lookup}")

# --- the generator ---------------------------------------------------------------------------------------
expect_call_error(no_generator
  "${me}: no kernelgen generator: call find_package\\(KernelGen\\) or add_subdirectory\\(\\) a kernelgen checkout first, or set KERNELGEN_EXECUTABLE to a kernelgen program"
  "unset(KERNELGEN_EXECUTABLE)\nkernelgen_add_kernels(kernels SPECS spec1.json)" "${lookup}")
set(not_a_program "which is not an existing program \\(an absolute path to a kernelgen built for this machine\\)")
expect_call_error(generator_missing "${me}: KERNELGEN_EXECUTABLE is \"/nonexistent/kernelgen\", ${not_a_program}"
  "set(KERNELGEN_EXECUTABLE /nonexistent/kernelgen)\nkernelgen_add_kernels(kernels SPECS spec1.json)" "${lookup}")
expect_call_error(generator_relative "${me}: KERNELGEN_EXECUTABLE is \"bin/kernelgen\", ${not_a_program}"
  "set(KERNELGEN_EXECUTABLE bin/kernelgen)\nkernelgen_add_kernels(kernels SPECS spec1.json)" "${lookup}")

# --- what configures: relative paths, every OPTIONS form ---------------------------------------------------
function(expect_configure_success case body)
  configure_case(${case} "${body}" status err ${ARGN})
  if(NOT status EQUAL 0)
    message(SEND_ERROR "${case}: expected to configure, got\n${err}")
  else()
    message(STATUS "${case}: configured as expected")
  endif()
endfunction()
expect_configure_success(relative_output_dir [[
enable_language(C)
kernelgen_add_kernels(kernels SPECS spec1.json OUTPUT_DIR generated/here OPTIONS --unroll none)
get_target_property(dirs kernels INTERFACE_INCLUDE_DIRECTORIES)
if(NOT dirs STREQUAL "${CMAKE_CURRENT_BINARY_DIR}/generated/here")
  message(FATAL_ERROR "OUTPUT_DIR generated/here became ${dirs}")
endif()
kernelgen_add_kernels(more_kernels SPECS spec2.json OPTIONS --unroll=8 --prefetch 1024)
get_target_property(dirs more_kernels INTERFACE_INCLUDE_DIRECTORIES)
if(NOT dirs STREQUAL "${CMAKE_CURRENT_BINARY_DIR}/more_kernels_kernels")
  message(FATAL_ERROR "the default OUTPUT_DIR became ${dirs}")
endif()]] "${lookup}" "${foo}")
expect_configure_success(one_spec_two_calls_two_output_dirs [[
enable_language(C)
kernelgen_add_kernels(host_kernels SPECS spec1.json)
kernelgen_add_kernels(small_kernels SPECS spec1.json OPTIONS --unroll none --prefetch=none)]] "${lookup}")

# --- a spec whose kernel names CMake cannot read: kernelgen's own messages, when the build runs it -----------------
# CMake needs the names for the kernel files; without them (a misspelt "name", malformed JSON, a name that is not a
# string) the configure step passes and the spec's command runs kernelgen, whose messages stop the build: the very
# lines kernelgen prints for that spec when run by hand. Fixing the spec reconfigures, and the build then passes.
if(KERNELGEN)
  # expect_build_error(<case> <generator> <expected regex> <spec text>)
  function(expect_build_error case generator expected text)
    configure_case(${case} "enable_language(C)\nset(KERNELGEN_EXECUTABLE \"${generator}\")\nkernelgen_add_kernels(kernels SPECS spec1.json)"
                   status err "${text}")
    if(NOT status EQUAL 0)
      message(SEND_ERROR "${case}: expected to configure, got\n${err}")
      return()
    endif()
    set(project "${WORK_DIR}/${case}")
    execute_process(COMMAND "${CMAKE_COMMAND}" --build "${project}/build" RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
    execute_process(COMMAND "${generator}" --out-dir "${project}/by_hand" --no-support "${project}/spec1.json"
                    OUTPUT_VARIABLE by_hand ERROR_VARIABLE by_hand)
    string(FIND "${out}" "${by_hand}" at)
    if(status EQUAL 0)
      message(SEND_ERROR "${case}: the build succeeded")
    elseif(NOT out MATCHES "${expected}")
      message(SEND_ERROR "${case}: expected the build to say\n  ${expected}\nbut got\n${out}")
    elseif(at EQUAL -1)
      message(SEND_ERROR "${case}: the build does not show what kernelgen says of the spec by hand:\n${by_hand}\nbut\n${out}")
    else()
      message(STATUS "${case}: the build stops with kernelgen's message")
    endif()
  endfunction()
  string(REPLACE "\"name\"" "\"nmae\"" misspelt "${lookup}")
  expect_build_error(misspelt_name "${KERNELGEN}"
    "spec1.json: /nmae: unknown key \"nmae\" \\(allowed: [^)]*\\); did you mean \"name\"\\?.*spec1.json: /name: required key \"name\" is missing.*kernelgen: 2 problems; nothing was written"
    "${misspelt}")
  expect_build_error(malformed_json "${KERNELGEN}"
    "spec1.json: /: malformed JSON: at line 1, column 8: syntax error while parsing value - unexpected '}'"
    [[{"op": }]])
  string(REPLACE "\"lookup\"" "7" numbered "${lookup}")
  expect_build_error(name_not_a_string "${KERNELGEN}" "spec1.json: /kernels/1/name: expected a string, got integer"
    "{\"kernels\": [${foo}, ${numbered}]}")
  # Should kernelgen accept a spec CMake cannot read (here a stand-in that accepts every spec), the build says so.
  set(stand_in "${WORK_DIR}/accepts_every_spec.sh")
  file(WRITE "${stand_in}" "#!/bin/sh\nif [ \"$1\" = support ]; then exec \"${KERNELGEN}\" \"$@\"; fi\nexit 0\n")
  execute_process(COMMAND chmod +x "${stand_in}")
  expect_build_error(accepted_but_unreadable "${stand_in}"
    "kernelgen_add_kernels\\(kernels\\): kernelgen accepts [^ ]*spec1.json, but CMake cannot read its kernel names \\(member 'name' not found\\)"
    "${misspelt}")
  # The same refusal when kernelgen lists the spec's files at configure time (it accepts the spec).
  set(two_tables [[{"kernels": [
    {"name": "a", "op": "Gather", "dtype": "float32", "data_shape": [128, 16], "indices_shape": [1], "data_file": "q[a.npy"},
    {"name": "b", "op": "Gather", "dtype": "float32", "data_shape": [128, 16], "indices_shape": [1], "data_file": "s]b.npy"}]}]])
  expect_call_error(listed_data_files_with_brackets
    "${me}: data file \"[^\"]*/listed_data_files_with_brackets/q\\[a.npy\" holds '\\[', which CMake cannot carry into its build files ${carried}"
    "set(KERNELGEN_EXECUTABLE \"${KERNELGEN}\")\nforeach(name q[a.npy s]b.npy)\n  file(COPY_FILE \"${SOURCE_DIR}/specs/token_table.npy\" \"\${CMAKE_CURRENT_SOURCE_DIR}/\${name}\")\nendforeach()\nkernelgen_add_kernels(kernels SPECS spec1.json)"
    "${two_tables}")
  # The spec fixed: the build reconfigures and makes the kernel.
  file(WRITE "${WORK_DIR}/misspelt_name/spec1.json" "${lookup}")
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/misspelt_name/build" RESULT_VARIABLE status
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0 OR NOT EXISTS "${WORK_DIR}/misspelt_name/build/kernels_kernels/lookup.c")
    message(SEND_ERROR "misspelt_name: once fixed, the spec does not build:\n${out}")
  else()
    message(STATUS "misspelt_name: once fixed, the spec builds")
  endif()
endif()
