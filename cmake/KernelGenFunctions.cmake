# kernelgen_add_kernels(<target> SPECS <spec.json>... [OUTPUT_DIR <dir>] [OPTIONS <kernelgen arguments>...])
#
# Creates the static library <target> from the kernels the specs describe, with the generated headers on its
# public include path (C99, no extensions). One custom command per spec file, rerun when the spec, a data file
# it names ("data_file": a kernel's constant data) or the generator changes (and, in a source build, a template),
# and only then. Kernel names and data files are read from the specs at configure time (and a spec edit
# reconfigures); a kernel with constant data also writes <name>_data.inc, its table, which its .c includes.
#
#   SPECS       spec files; relative paths are relative to CMAKE_CURRENT_SOURCE_DIR.
#   OUTPUT_DIR  where the .h/.c go; relative paths are relative to CMAKE_CURRENT_BINARY_DIR
#               (default: ${CMAKE_CURRENT_BINARY_DIR}/<target>_kernels).
#   OPTIONS     more kernelgen arguments: --unroll MODE, --prefetch MODE (or NAME=MODE). --out-dir belongs to
#               the function.
#
# The kernels share support code (kernelgen_support.h and .c: the index wrap, the complex types, the float16
# conversions). The first call creates the static library kernelgen_support (alias KernelGen::support) from
# ${CMAKE_BINARY_DIR}/kernelgen_support, where one custom command writes both files; every kernel library
# links it, so its code is compiled, and counted in flash, once per program.
#
# Both libraries are compiled with -Os when the project chose no build type (CMAKE_BUILD_TYPE empty, and no -O
# flag in CMAKE_C_FLAGS), which would otherwise compile them unoptimized.
#
# The generator: the program named by KERNELGEN_EXECUTABLE when it is set (a host kernelgen for a cross
# build), else the target KernelGen::kernelgen (imported by find_package(KernelGen), or built by
# add_subdirectory() of a kernelgen checkout).
include_guard(GLOBAL)
if(CMAKE_VERSION VERSION_LESS 3.19)
  message(FATAL_ERROR "kernelgen_add_kernels() needs CMake 3.19 or newer (this is ${CMAKE_VERSION})")
endif()
cmake_policy(VERSION 3.19)  # for this file and the function, whatever the including project's policies

# Claims <key> for <owner> in the claim table <table> (a global property per key, so that a claim costs the same
# however many there are), or stops the configure step with <refusal> when another owner claimed <key> first:
# @FIRST@ in it names that owner.
function(_kernelgen_claim table key owner refusal)
  string(SHA1 hash "${key}")
  get_property(first GLOBAL PROPERTY "_KERNELGEN_${table}_${hash}")
  if(NOT "${first}" STREQUAL "")
    string(REPLACE "@FIRST@" "${first}" refusal "${refusal}")
    message(FATAL_ERROR "${refusal}")
  endif()
  set_property(GLOBAL PROPERTY "_KERNELGEN_${table}_${hash}" "${owner}")
endfunction()

# Stops the configure step when <path> (<what>: a spec file, a data file) holds a character the function cannot
# carry into CMake's build files: a control character (a newline ends a line of build.ninja), '"' (CMake's
# Makefile generators write it unescaped into their own files), '\' (CMake reads it as a path separator), '[' or
# ']' (they join the items of a CMake list). Every other character is carried (see docs/cmake.md).
function(_kernelgen_check_path me what path)
  string(ASCII 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 127 controls)
  if(path MATCHES "[${controls}]")
    set(character "a control character (shown as '?')")
    string(REGEX REPLACE "[${controls}]" "?" path "${path}")
  elseif(path MATCHES "([\"\\]|\\[|\\])")
    set(character "'${CMAKE_MATCH_1}'")
  else()
    return()
  endif()
  message(FATAL_ERROR "${me}: ${what} \"${path}\" holds ${character}, which CMake cannot carry into its build files "
                      "(kernelgen_add_kernels() takes paths without control characters, '\"', '\\', '[' or ']'; "
                      "rename the file)")
endfunction()

# Sets <out_var> to <text> with every generator expression's "$<" written so that CMake leaves it as it is.
function(_kernelgen_no_genex out_var text)
  string(REPLACE "$<" "$<1:$><" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Makes an edit of <file> reconfigure: <file> joins CMAKE_CONFIGURE_DEPENDS, or, where the path holds ';' and the
# generator writes Makefiles (CMake writes that list into its Makefile.cmake unescaped, so the path would split into
# two files that do not exist and every build would configure again), a symbolic link to it in <copies_dir>, whose
# timestamp as CMake reads it is the file's. Where the link cannot be made, the file itself (a configure at every
# build, but no edit missed).
function(_kernelgen_configure_dependency file copies_dir)
  string(REPLACE ";" "\\;" item "${file}")
  if(file MATCHES ";" AND NOT CMAKE_GENERATOR MATCHES "Ninja")
    string(SHA1 hash "${file}")
    file(MAKE_DIRECTORY "${copies_dir}")
    file(CREATE_LINK "${file}" "${copies_dir}/${hash}.link" RESULT linked SYMBOLIC)
    if(linked EQUAL 0)
      set(item "${copies_dir}/${hash}.link")
    endif()
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${item}")
endfunction()

# Removes the files an earlier configure of the call listed in <manifest> and <outputs> no longer holds (a kernel
# renamed or taken out of a spec), then lists <outputs> there: a stale header left on the library's include path
# would let code that still calls the old kernel compile, and fail only at link time. Only files the call itself
# listed go (the output folder may hold others); a configure whose list is unchanged compares one text.
function(_kernelgen_remove_stale_outputs manifest outputs)
  list(REMOVE_ITEM outputs "")
  list(SORT outputs)
  list(REMOVE_DUPLICATES outputs)
  string(REPLACE ";" "\n" listed "${outputs}")
  if(EXISTS "${manifest}")
    file(READ "${manifest}" previous)
    if(previous STREQUAL "${listed}\n")
      return()
    endif()
    # (a variable per listed file: list(REMOVE_ITEM) would take time in the product of the two lengths)
    foreach(output IN LISTS outputs)
      set("_kernelgen_listed_${output}" TRUE)
    endforeach()
    string(REPLACE "\n" ";" previous "${previous}")
    set(stale "")
    foreach(file IN LISTS previous)
      if(NOT file STREQUAL "" AND NOT DEFINED "_kernelgen_listed_${file}")
        list(APPEND stale "${file}")
      endif()
    endforeach()
    if(stale)
      file(REMOVE ${stale})
    endif()
  endif()
  file(WRITE "${manifest}" "${listed}\n")
endfunction()

# Sets <out_var> to the file a custom command depends on to follow <file>: the file itself, or, when a list, Make
# or a generator expression cannot name it (';' in the path, '$<', ':' for Makefile generators), a copy in
# <copies_dir> that the configure an edit of the file triggers refreshes. With RECONFIGURE (a spec, which CMake
# reads for its kernel names) an edit of the file configures whatever its path.
function(_kernelgen_dependency out_var file copies_dir)
  string(REPLACE ";" "\\;" item "${file}")
  set(copied FALSE)
  if(file MATCHES ";" OR file MATCHES "[$]<" OR (NOT CMAKE_GENERATOR MATCHES "Ninja" AND file MATCHES ":"))
    set(copied TRUE)
  endif()
  if(copied OR "${ARGN}" STREQUAL "RECONFIGURE")
    _kernelgen_configure_dependency("${file}" "${copies_dir}")
  endif()
  if(copied)
    string(SHA1 hash "${file}")
    get_filename_component(extension "${file}" LAST_EXT)
    string(MAKE_C_IDENTIFIER "${extension}" extension)
    set(item "${copies_dir}/${hash}${extension}")
    if(EXISTS "${file}" AND NOT IS_DIRECTORY "${file}")
      # (not configure_file(), which would make the file itself a configure dependency: see above)
      execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${file}" "${item}")
    endif()
  endif()
  set(${out_var} "${item}" PARENT_SCOPE)
endfunction()

# Sets <out_var> to what a kernelgen command adds to touch <files>. kernelgen leaves a file whose content would
# not change alone. Ninja restats a custom command's outputs and keeps the run in its log, so a run that changes
# nothing (a newer generator, a spec edit that leaves the code as it was) recompiles nothing: nothing to add.
# Other generators compare timestamps only: there the command touches the files so that the build sees it as
# done, and what includes them recompiles.
function(_kernelgen_touch out_var)
  set(touch "")
  if(NOT CMAKE_GENERATOR MATCHES "Ninja")
    set(touch COMMAND ${CMAKE_COMMAND} -E touch_nocreate ${ARGN})
  endif()
  set(${out_var} "${touch}" PARENT_SCOPE)
endfunction()

# Asks the generator which kernels <spec> holds, and which files they write and read (kernelgen list): sets
# <names_var> to the kernel names, <tables_var> to those with constant data (whose tables go into <name>_data.inc),
# <inputs_var> to the files the run reads besides the spec, and <listed_var> to whether the generator answered (a
# kernelgen of this version that accepts the spec; else the caller reads the spec itself). One run, whatever the
# number of kernels.
function(_kernelgen_list_kernels me generator spec names_var tables_var inputs_var listed_var)
  set(${listed_var} FALSE PARENT_SCOPE)
  execute_process(COMMAND "${generator}" list "${spec}" RESULT_VARIABLE status OUTPUT_VARIABLE text ERROR_QUIET)
  if(NOT status EQUAL 0 OR NOT text MATCHES "^# kernelgen list, format 1\n")
    return()
  endif()
  # A line with '[' or ']' would join the items of the list below: refused first (as it would be after).
  if(text MATCHES "\ninput ([^\n]*[][][^\n]*)")
    _kernelgen_check_path("${me}" "data file" "${CMAKE_MATCH_1}")
  endif()
  string(REPLACE ";" "\\;" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(names "")
  set(tables "")
  set(inputs "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^kernel ([^ ]+) [^ ]+ [^ ]+( [^ ]+)?$")
      list(APPEND names "${CMAKE_MATCH_1}")
      if(CMAKE_MATCH_2)
        list(APPEND tables "${CMAKE_MATCH_1}")
      endif()
    elseif(line MATCHES "^input (.*)$" AND NOT CMAKE_MATCH_1 STREQUAL spec)  # the files besides the spec
      string(REPLACE ";" "\\;" input "${CMAKE_MATCH_1}")
      list(APPEND inputs "${input}")
    endif()
  endforeach()
  set(${names_var} "${names}" PARENT_SCOPE)
  set(${tables_var} "${tables}" PARENT_SCOPE)
  set(${inputs_var} "${inputs}" PARENT_SCOPE)
  set(${listed_var} TRUE PARENT_SCOPE)
endfunction()

# Reads the kernel whose JSON object is ${object} (at ${where} in its spec) for _kernelgen_read_kernels(): appends
# its name to ${names}, to ${tables} when it holds constant data, and its files to ${inputs}; or sets ${problem}.
macro(_kernelgen_read_kernel)
  string(JSON type ERROR_VARIABLE problem TYPE "${object}" name)
  if(NOT problem AND NOT type STREQUAL "STRING")
    set(problem "/${where}name is ${type}, not a string")
  endif()
  if(NOT problem)
    string(JSON name GET "${object}" name)
    list(APPEND names "${name}")
    foreach(key IN ITEMS data data_file updates updates_file)
      string(JSON key_type ERROR_VARIABLE no_key TYPE "${object}" ${key})
      if(NOT no_key)
        list(APPEND tables "${name}")
        break()
      endif()
    endforeach()
    # The data file, a quantized table's files of scales and zero points, and the updates file.
    foreach(path IN ITEMS "data_file" "quantization;scales_file" "quantization;zero_points_file" "updates_file")
      string(JSON path_type ERROR_VARIABLE no_path TYPE "${object}" ${path})
      if(no_path OR NOT path_type STREQUAL "STRING")
        continue()
      endif()
      string(JSON file GET "${object}" ${path})
      if(file STREQUAL "")
        continue()
      elseif(NOT IS_ABSOLUTE "${file}")
        set(file "${spec_dir}/${file}")
      endif()
      _kernelgen_check_path("${me}" "data file" "${file}")
      string(REPLACE ";" "\\;" file "${file}")
      list(APPEND inputs "${file}")
    endforeach()
  endif()
endmacro()

# Reads the kernels of a spec's <text> itself, for a generator that cannot run at configure time (one this build
# makes): sets <names_var>, <tables_var> and <inputs_var> as _kernelgen_list_kernels() does (the files resolved
# relative to the spec's folder <spec_dir>, as kernelgen resolves them), or <problem_var> to why CMake cannot read a
# kernel name (a missing key, another JSON type, malformed JSON). Each kernel's object is taken out of the text once,
# and read on its own.
function(_kernelgen_read_kernels me spec text spec_dir names_var tables_var inputs_var problem_var)
  set(names "")
  set(tables "")
  set(inputs "")
  set(problem "")
  string(JSON count ERROR_VARIABLE no_list LENGTH "${text}" kernels)
  set(objects "")
  if(no_list)
    set(last 0)
  elseif(count EQUAL 0)
    message(FATAL_ERROR "${me}: ${spec}: /kernels is empty (at least one kernel)")
  else()
    string(JSON kernels GET "${text}" kernels)
    math(EXPR last "${count} - 1")
    # CMake writes the list back with its items at an indentation of two spaces: split there once, rather than
    # parse the whole list again for each item. Kept only when it gives every item (a '[' in a string would join
    # items of the CMake list; another CMake may write otherwise); else each item is taken out of the list.
    string(REPLACE ";" "\\;" split "${kernels}")
    string(REPLACE "\n  },\n  {" "\n  };\n  {" split "${split}")
    string(LENGTH "${split}" length)
    if(length GREATER 4)
      math(EXPR length "${length} - 4")
      string(SUBSTRING "${split}" 2 ${length} split)
      list(LENGTH split items)
      if(items EQUAL count)
        set(objects "${split}")
      endif()
    endif()
  endif()
  if(no_list)
    set(object "${text}")
    set(where "")
    _kernelgen_read_kernel()
  elseif(objects)
    set(i 0)
    foreach(object IN LISTS objects)
      set(where "kernels/${i}/")
      _kernelgen_read_kernel()
      if(problem)
        break()
      endif()
      math(EXPR i "${i} + 1")
    endforeach()
  else()
    foreach(i RANGE ${last})
      string(JSON object GET "${kernels}" ${i})
      set(where "kernels/${i}/")
      _kernelgen_read_kernel()
      if(problem)
        break()
      endif()
    endforeach()
  endif()
  set(${names_var} "${names}" PARENT_SCOPE)
  set(${tables_var} "${tables}" PARENT_SCOPE)
  set(${inputs_var} "${inputs}" PARENT_SCOPE)
  set(${problem_var} "${problem}" PARENT_SCOPE)
endfunction()

# A project that chose no build type (single-configuration generators leave CMAKE_BUILD_TYPE empty unless told)
# would compile the kernels without optimization (docs/cmake.md's Cortex-M4F lookup: 1,044 bytes of code, 180 at
# -Os). Such a
# build compiles them with -Os, the size the documentation measures, unless CMAKE_C_FLAGS holds an -O flag of its
# own; a build type (Release, MinSizeRel, Debug, ...) keeps its flags. For gcc and clang.
function(_kernelgen_optimize_without_build_type me target)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND NOT CMAKE_C_FLAGS MATCHES "(^| )-O")
    target_compile_options(${target} PRIVATE $<$<CONFIG:>:-Os>)
    get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
    get_property(said GLOBAL PROPERTY KERNELGEN_SAID_OS)
    if(NOT CMAKE_BUILD_TYPE AND NOT multi_config AND NOT said)
      set_property(GLOBAL PROPERTY KERNELGEN_SAID_OS ON)
      message(STATUS "${me}: no CMAKE_BUILD_TYPE, so the kernels are compiled with -Os (set a build type, or an "
                     "-O flag in CMAKE_C_FLAGS, to choose otherwise)")
    endif()
  endif()
endfunction()

# Creates the library kernelgen_support once per build tree (see above), with the generator of the first call.
function(_kernelgen_support_library me generator generator_depends)
  if(TARGET kernelgen_support)
    get_target_property(ours kernelgen_support KERNELGEN_SUPPORT_LIBRARY)
    if(NOT ours)
      message(FATAL_ERROR "${me}: the project already has a target called kernelgen_support; kernelgen's "
                          "support library needs the name (rename that target)")
    endif()
    return()
  endif()
  set(dir "${CMAKE_BINARY_DIR}/kernelgen_support")
  set(files "${dir}/kernelgen_support.h" "${dir}/kernelgen_support.c")
  _kernelgen_touch(touch ${files})
  add_custom_command(
    OUTPUT ${files}
    COMMAND ${generator} support --out-dir "${dir}"
    ${touch}
    DEPENDS ${generator_depends}
    COMMENT "kernelgen: support code"
    VERBATIM)
  add_library(kernelgen_support STATIC ${files})
  add_library(KernelGen::support ALIAS kernelgen_support)
  target_include_directories(kernelgen_support PUBLIC "${dir}")
  set_target_properties(kernelgen_support PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF
                                                     KERNELGEN_SUPPORT_LIBRARY ON)
  _kernelgen_optimize_without_build_type("${me}" kernelgen_support)
endfunction()

function(kernelgen_add_kernels target)
  set(me "kernelgen_add_kernels(${target})")
  cmake_parse_arguments(PARSE_ARGV 1 KG "" "OUTPUT_DIR" "SPECS;OPTIONS")
  if(KG_UNPARSED_ARGUMENTS)
    string(JOIN " " unknown ${KG_UNPARSED_ARGUMENTS})
    message(FATAL_ERROR "${me}: unknown arguments: ${unknown} "
                        "(allowed: SPECS <spec.json>... [OUTPUT_DIR <dir>] [OPTIONS <kernelgen arguments>...])")
  endif()
  if("OUTPUT_DIR" IN_LIST KG_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${me}: OUTPUT_DIR needs a folder")
  endif()
  if(NOT KG_SPECS)
    message(FATAL_ERROR "${me}: SPECS <spec.json>... is required")
  endif()
  if(TARGET "${target}")
    message(FATAL_ERROR "${me}: a target named \"${target}\" already exists (the function creates the library <target>)")
  endif()
  if(NOT KG_OUTPUT_DIR)
    set(KG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/${target}_kernels")
  endif()
  _kernelgen_check_path("${me}" "OUTPUT_DIR" "${KG_OUTPUT_DIR}")
  get_filename_component(KG_OUTPUT_DIR "${KG_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  if(KG_OUTPUT_DIR MATCHES "([;#<>])")
    # The generated .c files are the library's sources, which CMake keeps in a ';'-list, and the outputs of a
    # custom command, where CMake refuses '#', '<' and '>'.
    message(FATAL_ERROR "${me}: OUTPUT_DIR \"${KG_OUTPUT_DIR}\" contains '${CMAKE_MATCH_1}', which CMake does not "
                        "allow in a generated source file's path (spec and data file paths may hold it)")
  endif()

  # OPTIONS: only what leaves the function's outputs as it declares them: --unroll and --prefetch, each
  # "NAME MODE" or "NAME=MODE", with the mode checked here as kernelgen checks it.
  set(unroll_modes "^(auto|full|none|[1-9]|[1-5][0-9]|6[0-4])$")
  set(unroll_rule "auto, full, none or a factor 1..64")
  set(prefetch_modes "^(auto|none|[1-9]|[1-9][0-9]|[1-9][0-9][0-9]|10[01][0-9]|102[0-4])$")
  set(prefetch_rule "auto, none or a distance 1..1024")
  set(expect_mode "")
  foreach(option IN LISTS KG_OPTIONS)
    if(expect_mode)
      set(name "${expect_mode}")
      set(mode "${option}")
      set(expect_mode "")
    elseif(option MATCHES "^--(unroll|prefetch)$")
      set(expect_mode "${CMAKE_MATCH_1}")
      continue()
    elseif(option MATCHES "^--(unroll|prefetch)=(.*)$")
      set(name "${CMAKE_MATCH_1}")
      set(mode "${CMAKE_MATCH_2}")
    elseif(option MATCHES "^(-o|--out-dir)(=.*)?$")
      message(FATAL_ERROR "${me}: OPTIONS may not hold ${option}: the function sets the output folder (use OUTPUT_DIR)")
    else()
      message(FATAL_ERROR "${me}: OPTIONS: \"${option}\" is not a kernelgen option the function passes on "
                          "(allowed: --unroll MODE, --prefetch MODE)")
    endif()
    if(NOT mode MATCHES "${${name}_modes}")
      message(FATAL_ERROR "${me}: OPTIONS: unknown --${name} mode \"${mode}\" (${${name}_rule})")
    endif()
  endforeach()
  if(expect_mode)
    message(FATAL_ERROR "${me}: OPTIONS: --${expect_mode} needs a mode (${${expect_mode}_rule})")
  endif()

  # The generator, and what its custom commands depend on: the target (a target-level dependency, and a
  # file-level one on the program it builds or imports), plus in a source build the templates compiled into it.
  if(DEFINED KERNELGEN_EXECUTABLE AND NOT KERNELGEN_EXECUTABLE STREQUAL "")
    if(NOT IS_ABSOLUTE "${KERNELGEN_EXECUTABLE}" OR IS_DIRECTORY "${KERNELGEN_EXECUTABLE}"
       OR NOT EXISTS "${KERNELGEN_EXECUTABLE}")
      message(FATAL_ERROR "${me}: KERNELGEN_EXECUTABLE is \"${KERNELGEN_EXECUTABLE}\", which is not an existing "
                          "program (an absolute path to a kernelgen built for this machine)")
    endif()
    set(generator "${KERNELGEN_EXECUTABLE}")
    set(generator_depends "${KERNELGEN_EXECUTABLE}")
  elseif(TARGET KernelGen::kernelgen)
    set(generator "$<TARGET_FILE:KernelGen::kernelgen>")
    set(generator_depends KernelGen::kernelgen "$<TARGET_FILE:KernelGen::kernelgen>")
    get_target_property(templates KernelGen::kernelgen KERNELGEN_TEMPLATE_FILES)
    if(templates)
      list(APPEND generator_depends ${templates})
    endif()
  else()
    message(FATAL_ERROR "${me}: no kernelgen generator: call find_package(KernelGen) or add_subdirectory() a "
                        "kernelgen checkout first, or set KERNELGEN_EXECUTABLE to a kernelgen program")
  endif()

  # The command line in a file rewritten only when it changes, and a dependency of every command: Ninja reruns a
  # command whose text changed by itself, Makefile generators only when a dependency is newer.
  set(command_stamp "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}_kernelgen_command.txt")
  file(CONFIGURE OUTPUT "${command_stamp}" CONTENT "${generator}\n${KG_OUTPUT_DIR}\n${KG_OPTIONS}\n" @ONLY)

  _kernelgen_support_library("${me}" "${generator}" "${generator_depends}")

  # Whether the generator can run now, to list each spec's kernels (a program that exists: KERNELGEN_EXECUTABLE, or
  # an installed kernelgen); one this build makes cannot, and the spec is then read here.
  set(lister "")
  if(DEFINED KERNELGEN_EXECUTABLE AND NOT KERNELGEN_EXECUTABLE STREQUAL "")
    set(lister "${KERNELGEN_EXECUTABLE}")
  else()
    get_target_property(imported KernelGen::kernelgen IMPORTED)
    if(imported)
      get_target_property(lister KernelGen::kernelgen LOCATION)
    endif()
  endif()

  set(all_sources "")
  set(call_outputs "")
  set(seen_specs "")
  set(data_copies "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}_kernelgen_data")
  foreach(spec IN LISTS KG_SPECS)
    string(REPLACE "\\;" ";" spec "${spec}")  # "semi\;colon.json" names semi;colon.json, as "semi;colon.json" does
    _kernelgen_check_path("${me}" "spec file" "${spec}")
    get_filename_component(spec "${spec}" ABSOLUTE)
    string(REPLACE ";" "\\;" spec_item "${spec}")
    if(NOT EXISTS "${spec}" OR IS_DIRECTORY "${spec}")
      set(hint "")
      get_filename_component(base "${spec}" NAME)
      if(base MATCHES "^[A-Z_]+$")
        set(hint " (a misspelt keyword? The keywords are SPECS, OUTPUT_DIR and OPTIONS)")
      endif()
      message(FATAL_ERROR "${me}: spec file ${spec} does not exist${hint}")
    endif()
    list(FIND seen_specs "${spec}" seen)
    if(NOT seen EQUAL -1)
      message(FATAL_ERROR "${me}: spec file ${spec} is listed twice in SPECS")
    endif()
    list(APPEND seen_specs "${spec_item}")
    _kernelgen_no_genex(spec_argument "${spec}")
    file(RELATIVE_PATH shown "${CMAKE_SOURCE_DIR}" "${spec}")
    if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.26)
      _kernelgen_no_genex(shown "${shown}")  # COMMENT reads generator expressions from CMake 3.26
    endif()
    # The spec: Make cannot name a prerequisite with ';' or ':' in it (CMake writes them unescaped), nor a list one
    # with ';', nor a custom command one with "$<": there the command depends on a copy of the spec, and still
    # reads the spec itself, so that kernelgen's messages name it. An edit of the spec reconfigures.
    _kernelgen_dependency(spec_dependency "${spec}" "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}_kernelgen_specs"
                          RECONFIGURE)
    file(READ "${spec}" text)
    string(JSON report_version ERROR_VARIABLE not_report GET "${text}" kernelgen_import_report)
    if(NOT not_report)
      continue()  # an import report (kernelgen import's <model>.import.json) holds no kernels
    endif()
    set(listed FALSE)
    set(unreadable "")
    if(lister)
      _kernelgen_list_kernels("${me}" "${lister}" "${spec}" names tables inputs listed)
    endif()
    if(NOT listed)
      get_filename_component(spec_dir "${spec}" DIRECTORY)
      _kernelgen_read_kernels("${me}" "${spec}" "${text}" "${spec_dir}" names tables inputs unreadable)
    endif()
    if(unreadable)
      # CMake cannot read a kernel name (a misspelt "name", malformed JSON), so it cannot name the kernel files:
      # the spec's command runs kernelgen, which stops the build with its own messages, and the edit that fixes the
      # spec reconfigures. Should kernelgen accept the spec, the command says why CMake could not read it.
      string(SHA1 spec_hash "${spec}")
      set(refused "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}_kernelgen_refused/${spec_hash}")
      string(STRIP "${unreadable}" unreadable)
      string(REGEX REPLACE "[ \n]+" " " unreadable "${unreadable}")
      _kernelgen_no_genex(said "${me}: kernelgen accepts ${spec}, but CMake cannot read its kernel names (${unreadable})")
      add_custom_command(
        OUTPUT "${refused}.stamp"
        COMMAND ${generator} --out-dir "${refused}" --no-support ${KG_OPTIONS} "${spec_argument}"
        COMMAND ${CMAKE_COMMAND} -E echo "${said}"
        COMMAND ${CMAKE_COMMAND} -E false
        DEPENDS "${spec_dependency}" ${generator_depends} "${command_stamp}"
        COMMENT "kernelgen: ${shown}"
        VERBATIM)
      string(APPEND all_sources ";${refused}.stamp")
      continue()
    endif()
    # The files the kernels read: each carried as it is or through a copy (see _kernelgen_dependency).
    set(data_files "")
    foreach(input IN LISTS inputs)
      _kernelgen_check_path("${me}" "data file" "${input}")
      _kernelgen_dependency(dependency "${input}" "${data_copies}")
      list(APPEND data_files "${dependency}")
    endforeach()
    # The run-wide name rule of kernelgen, which one run per spec cannot see: no two kernels of the target
    # may define one identifier (the same name, names equal once upper-cased, or a name that is another
    # kernel's macro). <NAME>_UPDATES_SIZE is counted for every operator, which is stricter only for a kernel
    # literally named like another's macro.
    set(outputs "")
    foreach(name IN LISTS names)
      string(TOUPPER "${name}" upper)
      foreach(suffix "" _H _DATA_SIZE _INDICES_SIZE _UPDATES_SIZE _OUTPUT_SIZE _OK _ERROR_INDEX_OUT_OF_RANGE)
        if(suffix STREQUAL "")
          set(identifier "${name}")
        else()
          set(identifier "${upper}${suffix}")
        endif()
        string(CONCAT refusal "${me}: kernel \"${name}\" of ${spec} clashes with kernel @FIRST@: both headers "
          "would define ${identifier} (kernel names must be unique, also once upper-cased, and no name may be "
          "another kernel's macro)")
        _kernelgen_claim("IDENTIFIERS_${target}" "${identifier}" "\"${name}\" of ${spec}" "${refusal}")
      endforeach()
      # Another call's files: two rules would write one file (the later spec silently winning), and two
      # libraries would define one function. Calls anywhere in the build are seen (a global claim).
      string(CONCAT refusal "${me}: kernel \"${name}\" of ${spec} would write ${KG_OUTPUT_DIR}/${name}.c, which "
        "@FIRST@ already writes (give each call its own OUTPUT_DIR, or list the spec in one call only)")
      _kernelgen_claim(FILES "${KG_OUTPUT_DIR}/${name}.c" "${me} for ${spec}" "${refusal}")
      # string(APPEND), not list(APPEND): CMake 3.25's list(APPEND) takes time in the list's length (4,000 paths
      # one at a time: 2.4 s, against 0.04 s), which made a configure of thousands of kernels quadratic. The
      # leading ';' leaves an empty item, which the unquoted expansions below drop.
      string(APPEND outputs ";${KG_OUTPUT_DIR}/${name}.h;${KG_OUTPUT_DIR}/${name}.c")
      string(APPEND all_sources ";${KG_OUTPUT_DIR}/${name}.c")
    endforeach()
    foreach(name IN LISTS tables)
      string(APPEND outputs ";${KG_OUTPUT_DIR}/${name}_data.inc")
    endforeach()
    string(APPEND call_outputs "${outputs}")
    _kernelgen_touch(touch ${outputs})
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND ${generator} --out-dir "${KG_OUTPUT_DIR}" --no-support ${KG_OPTIONS} "${spec_argument}"
      ${touch}
      DEPENDS "${spec_dependency}" ${data_files} ${generator_depends} "${command_stamp}"
      COMMENT "kernelgen: ${shown}"
      VERBATIM)
  endforeach()

  _kernelgen_remove_stale_outputs("${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}_kernelgen_outputs.txt" "${call_outputs}")
  add_library(${target} STATIC ${all_sources})
  target_include_directories(${target} PUBLIC "${KG_OUTPUT_DIR}")
  target_link_libraries(${target} PUBLIC kernelgen_support)
  # LINKER_LANGUAGE: a library whose only spec kernelgen must first refuse (above) has no C source yet.
  set_target_properties(${target} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF LINKER_LANGUAGE C)
  _kernelgen_optimize_without_build_type("${me}" ${target})
endfunction()
