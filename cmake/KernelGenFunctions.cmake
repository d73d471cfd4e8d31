# kernelgen_add_kernels(<target> SPECS <spec.json>... [OUTPUT_DIR <dir>] [OPTIONS <kernelgen arguments>...])
#
# Creates the static library <target> from the kernels the specs describe, with the generated headers on its
# public include path. One custom command per spec file; it reruns when the spec, the generator or a template
# changes. Kernel names are read from the specs at configure time (and a spec edit reconfigures).
#
# The generator is the target kernelgen when it exists (a source build), else KernelGen::kernelgen, else the
# program named by KERNELGEN_EXECUTABLE.
include_guard(GLOBAL)

set(_KERNELGEN_FUNCTIONS_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(kernelgen_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 KG "" "OUTPUT_DIR" "SPECS;OPTIONS")
  if(KG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kernelgen_add_kernels(${target}): unknown arguments: ${KG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT KG_SPECS)
    message(FATAL_ERROR "kernelgen_add_kernels(${target}): SPECS <spec.json>... is required")
  endif()
  if(NOT KG_OUTPUT_DIR)
    set(KG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/${target}_kernels")
  endif()

  if(TARGET kernelgen)
    set(generator "$<TARGET_FILE:kernelgen>")
    set(generator_depends kernelgen)
  elseif(TARGET KernelGen::kernelgen)
    set(generator "$<TARGET_FILE:KernelGen::kernelgen>")
    set(generator_depends KernelGen::kernelgen)
  elseif(KERNELGEN_EXECUTABLE)
    set(generator "${KERNELGEN_EXECUTABLE}")
    set(generator_depends "${KERNELGEN_EXECUTABLE}")
  else()
    message(FATAL_ERROR "kernelgen_add_kernels(${target}): no generator: build kernelgen in this project, "
                        "find_package(KernelGen), or set KERNELGEN_EXECUTABLE")
  endif()

  set(all_sources "")
  set(identifiers "")
  set(owners "")
  foreach(spec IN LISTS KG_SPECS)
    get_filename_component(spec "${spec}" ABSOLUTE)
    if(NOT EXISTS "${spec}")
      message(FATAL_ERROR "kernelgen_add_kernels(${target}): spec file ${spec} does not exist")
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${spec}")
    file(READ "${spec}" text)
    set(names "")
    string(JSON count ERROR_VARIABLE no_list LENGTH "${text}" kernels)
    if(no_list)
      string(JSON name ERROR_VARIABLE bad GET "${text}" name)
      if(bad)
        message(FATAL_ERROR "kernelgen_add_kernels(${target}): ${spec}: no kernel \"name\" found (${bad})")
      endif()
      list(APPEND names "${name}")
    elseif(count EQUAL 0)
      message(FATAL_ERROR "kernelgen_add_kernels(${target}): ${spec}: /kernels is empty (at least one kernel)")
    else()
      math(EXPR last "${count} - 1")
      foreach(i RANGE ${last})
        string(JSON name ERROR_VARIABLE bad GET "${text}" kernels ${i} name)
        if(bad)
          message(FATAL_ERROR "kernelgen_add_kernels(${target}): ${spec}: no name in /kernels/${i} (${bad})")
        endif()
        list(APPEND names "${name}")
      endforeach()
    endif()
    # The run-wide name rule of kernelgen, which one run per spec cannot see: no two kernels of the target
    # may define one identifier (the same name, names equal once upper-cased, or a name that is another
    # kernel's macro). <NAME>_UPDATES_SIZE is counted for every operator, which is stricter only for a kernel
    # literally named like another's macro.
    foreach(name IN LISTS names)
      string(TOUPPER "${name}" upper)
      foreach(suffix "" _H _DATA_SIZE _INDICES_SIZE _UPDATES_SIZE _OUTPUT_SIZE _OK _ERROR_INDEX_OUT_OF_RANGE)
        if(suffix STREQUAL "")
          set(identifier "${name}")
        else()
          set(identifier "${upper}${suffix}")
        endif()
        list(FIND identifiers "${identifier}" at)
        if(NOT at EQUAL -1)
          list(GET owners ${at} owner)
          message(FATAL_ERROR "kernelgen_add_kernels(${target}): kernel \"${name}\" of ${spec} clashes with "
                              "kernel ${owner}: both headers would define ${identifier} (kernel names must be "
                              "unique, also once upper-cased, and no name may be another kernel's macro)")
        endif()
        list(APPEND identifiers "${identifier}")
        list(APPEND owners "\"${name}\" of ${spec}")
      endforeach()
    endforeach()
    set(outputs "")
    foreach(name IN LISTS names)
      list(APPEND outputs "${KG_OUTPUT_DIR}/${name}.h" "${KG_OUTPUT_DIR}/${name}.c")
      list(APPEND all_sources "${KG_OUTPUT_DIR}/${name}.c")
    endforeach()
    file(RELATIVE_PATH shown "${CMAKE_SOURCE_DIR}" "${spec}")
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND ${generator} --out-dir "${KG_OUTPUT_DIR}" ${KG_OPTIONS} "${spec}"
      # kernelgen leaves unchanged files alone; touch them so the build sees the rule as done.
      COMMAND ${CMAKE_COMMAND} -E touch_nocreate ${outputs}
      DEPENDS "${spec}" ${generator_depends} ${KERNELGEN_TEMPLATE_FILES}
      COMMENT "kernelgen: ${shown}"
      VERBATIM)
  endforeach()

  add_library(${target} STATIC ${all_sources})
  target_include_directories(${target} PUBLIC "${KG_OUTPUT_DIR}")
  set_target_properties(${target} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
endfunction()
