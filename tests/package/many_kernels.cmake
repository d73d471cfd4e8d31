# cmake -DSOURCE_DIR=<repo> -DKERNELGEN=<kernelgen> -DWORK_DIR=<scratch> -P many_kernels.cmake
#
# kernelgen_add_kernels() configures in time linear in the kernels of one spec file: 250 and 2,000 kernels in one
# spec, listed by kernelgen at configure time and read by the function itself (a generator that cannot list), each
# timed around the call alone, the least of three runs. Eight times the kernels may take at most 16 times as long
# (each kernel once re-read the whole spec about ten times: 2,000 kernels took 95 s, 38 times 250's 2.5 s; the
# function's lists once grew by list(APPEND), 14 times), and every kernel is a source of the library.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
file(REMOVE_RECURSE "${WORK_DIR}")
set(unlisting "${WORK_DIR}/kernelgen-without-list.sh")
file(WRITE "${unlisting}" "#!/bin/sh\nif [ \"$1\" = list ]; then exit 2; fi\nexec \"${KERNELGEN}\" \"$@\"\n")
execute_process(COMMAND chmod +x "${unlisting}")

# Configures a project of <count> kernels in one spec with the generator <program>; sets <out_var> to the
# microseconds the call took.
function(time_call out_var count program)
  set(project "${WORK_DIR}/${count}_${out_var}")
  set(kernels "")
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    list(APPEND kernels "{\"name\": \"k${i}\", \"op\": \"Gather\", \"dtype\": \"float32\", \"data_shape\": [4, 3], \"indices_shape\": [2]}")
  endforeach()
  string(JOIN ",\n  " kernels ${kernels})
  file(WRITE "${project}/many.json" "{\"kernels\": [\n  ${kernels}]}\n")
  file(WRITE "${project}/CMakeLists.txt" "cmake_minimum_required(VERSION 3.23)
project(many C)
include(\"${SOURCE_DIR}/cmake/KernelGenFunctions.cmake\")
set(KERNELGEN_EXECUTABLE \"${program}\")
string(TIMESTAMP start \"%s%f\")
kernelgen_add_kernels(kernels SPECS many.json)
string(TIMESTAMP end \"%s%f\")
math(EXPR took \"\${end} - \${start}\")
get_target_property(sources kernels SOURCES)
list(LENGTH sources sources)
message(STATUS \"took \${took} us for \${sources} sources\")
")
  # The least of three configures (the second and third run the function again, the compiler's checks cached): a
  # busy machine slows one run now and then. Beside the other tests, one run's ratio came to 20.7 where three
  # configures alone gave 7.7, 9.0 and 12.7.
  set(best "")
  foreach(run RANGE 1 3)
    kg_run(log "${CMAKE_COMMAND}" -S "${project}" -B "${project}/build" -G Ninja)
    if(NOT log MATCHES "took ([0-9]+) us for ([0-9]+) sources")
      message(FATAL_ERROR "${project}: no timing in\n${log}")
    endif()
    if(NOT CMAKE_MATCH_2 EQUAL count)
      message(FATAL_ERROR "${project}: ${CMAKE_MATCH_2} sources for ${count} kernels")
    endif()
    if(best STREQUAL "" OR CMAKE_MATCH_1 LESS best)
      set(best "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(${out_var} "${best}" PARENT_SCOPE)
endfunction()

foreach(route IN ITEMS listed read)
  set(program "${KERNELGEN}")
  if(route STREQUAL "read")
    set(program "${unlisting}")
  endif()
  time_call(few 250 "${program}")
  time_call(many 2000 "${program}")
  math(EXPR ratio_x10 "${many} * 10 / ${few}")
  message(STATUS "${route}: 250 kernels ${few} us, 2000 kernels ${many} us (ratio ${ratio_x10}/10)")
  if(ratio_x10 GREATER 160)
    message(FATAL_ERROR "${route}: 2000 kernels took ${many} us, more than 16 times the ${few} us of 250")
  endif()
endforeach()
