# cmake -DSOURCE_DIR=<repo> -DKERNELGEN=<kernelgen> -DWORK_DIR=<scratch> -P odd_paths.cmake
#
# kernelgen_add_kernels() with spec and data file paths that hold the characters a file name may and CMake, Make
# or Ninja treat specially (a space, ';' given as "a;b" and as "a\;b", ':', '#', '$', a quote, a generator
# expression's "$<...>") and an OUTPUT_DIR with a space, with Ninja and with Makefiles, and with a generator that
# lists each spec's kernels at configure time (kernelgen list) and one that cannot (the function then reads the
# specs itself): each builds, links into a program that calls every kernel, regenerates only the kernel of the
# edited spec or data file, and a second build does nothing.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
file(REMOVE_RECURSE "${WORK_DIR}")
set(src "${WORK_DIR}/src")
set(specs_dir "${src}/spec files")
set(names semi colon hash dollar quote plain)
set(files "semi\;colon.json" "co:lon.json" "ha#sh.json" "dol$lar.json" "it's.json" "plain.json")
foreach(name file IN ZIP_LISTS names files)
  file(WRITE "${specs_dir}/${file}"
       "{\"name\": \"${name}\", \"op\": \"Gather\", \"dtype\": \"float32\", \"data_shape\": [4, 3], \"indices_shape\": [2]}\n")
endforeach()
# A kernel holding its table, from a data file whose name holds them all, in a spec named like a generator
# expression. The table: a NumPy 1.0 file of four float32 values 1, 2, 3, 4 (then 5, 6, 7, 8 after the edit).
set(genex_spec "gen$<1:x>ex.json")
set(data_file "da ta;$<1:y>:#(1).npy")
function(write_table values)
  set(header "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }")
  string(LENGTH "${header}" length)
  math(EXPR pad "117 - ${length}")  # magic, version and length (10 bytes), the header padded to 128 bytes in all
  string(REPEAT " " ${pad} spaces)
  string(REGEX REPLACE "(..)" "\\\\x\\1" escaped "${values}")
  execute_process(COMMAND printf "\\x93NUMPY\\x01\\x00\\x76\\x00${header}${spaces}\\n${escaped}"
                  OUTPUT_FILE "${specs_dir}/${data_file}" RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "cannot write ${data_file}")
  endif()
endfunction()
set(one_to_four 0000803f000000400000404000008040)
set(five_to_eight 0000a0400000c0400000e04000000041)
write_table("${one_to_four}")
file(WRITE "${specs_dir}/${genex_spec}" "{\"name\": \"genex\", \"op\": \"Gather\", \"dtype\": \"float32\", "
     "\"data_shape\": [4], \"indices_shape\": [2], \"data_file\": \"${data_file}\"}\n")
file(WRITE "${src}/CMakeLists.txt.in" [=[
cmake_minimum_required(VERSION 3.19)
project(odd_paths C)
include("@SOURCE_DIR@/cmake/KernelGenFunctions.cmake")
set(KERNELGEN_EXECUTABLE "@generator_program@")
set(more "spec files/co:lon.json" "spec files/ha#sh.json")
kernelgen_add_kernels(kernels
  SPECS "spec files/semi\;colon.json" ${more} "spec files/dol$lar.json" "spec files/it's.json"
        "spec files/gen$<1:x>ex.json"
  OUTPUT_DIR "generated kernels")
kernelgen_add_kernels(more_kernels SPECS "spec files/plain.json" OPTIONS --unroll none)
add_executable(use main.c)
target_link_libraries(use PRIVATE kernels more_kernels)
]=])
# A generator that cannot list the kernels of a spec (as an older kernelgen): the function reads the specs itself.
set(unlisting "${WORK_DIR}/kernelgen-without-list.sh")
file(WRITE "${unlisting}" "#!/bin/sh\nif [ \"$1\" = list ]; then exit 2; fi\nexec \"${KERNELGEN}\" \"$@\"\n")
execute_process(COMMAND chmod +x "${unlisting}")
set(main "#include <stdio.h>\n#include <stdlib.h>\n#include \"genex.h\"\n")
foreach(name IN LISTS names)
  string(APPEND main "#include \"${name}.h\"\n")
endforeach()
string(APPEND main "int main(int argc, char **argv)\n{\n    const float data[12] = {0};\n    const int64_t indices[2] = {1, -1};\n"
                   "    float output[6];\n    int failed = 0;\n")
foreach(name IN LISTS names)
  string(APPEND main "    failed |= ${name}(data, indices, output);\n")
endforeach()
string(APPEND main "    failed |= genex(indices, output);\n"
                   "    if (argc != 3 || output[0] != strtof(argv[1], NULL) || output[1] != strtof(argv[2], NULL)) {\n"
                   "        printf(\"genex gathered %g %g\\n\", output[0], output[1]);\n        failed = 1;\n    }\n"
                   "    return failed;\n}\n")
file(WRITE "${src}/main.c" "${main}")

foreach(generator_program IN ITEMS "${KERNELGEN}" "${unlisting}")
  configure_file("${src}/CMakeLists.txt.in" "${src}/CMakeLists.txt" @ONLY)
  get_filename_component(route "${generator_program}" NAME)
  foreach(generator "Ninja" "Unix Makefiles")
    set(build "${WORK_DIR}/build ${generator} ${route}")
    set(case "${generator}, ${route}")
    kg_run(log "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G "${generator}")
    kg_build(log "${build}")
    foreach(file IN LISTS files genex_spec)
      string(REGEX REPLACE "[\\\\$.*+?()^]" "." pattern "kernelgen: spec files/${file}")
      kg_expect("${log}" MATCHES "${pattern}" "${case}: first build")
    endforeach()
    kg_run(log "${build}/use" 2 4)
    # An edit of one spec regenerates its kernel only (Makefiles: through the copy the function depends on).
    file(READ "${specs_dir}/semi;colon.json" spec)
    string(REPLACE "[2]" "[2], \"unroll\": \"none\"" edited "${spec}")
    file(WRITE "${specs_dir}/semi;colon.json" "${edited}")
    kg_build(log "${build}")
    kg_expect("${log}" MATCHES "kernelgen: spec files/semi;colon.json" "${case}: after editing semi;colon.json")
    kg_expect("${log}" NOT_MATCHES "kernelgen: spec files/co:lon.json" "${case}: after editing semi;colon.json")
    file(WRITE "${specs_dir}/semi;colon.json" "${spec}")
    kg_build(log "${build}")
    # An edit of the data file regenerates the kernel that holds it, and only that one.
    execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1)  # a newer timestamp for Make
    write_table("${five_to_eight}")
    kg_build(log "${build}")
    kg_expect("${log}" MATCHES "kernelgen: spec files/gen.<1:x>ex.json" "${case}: after editing the data file")
    kg_expect("${log}" NOT_MATCHES "kernelgen: spec files/co:lon.json" "${case}: after editing the data file")
    kg_run(log "${build}/use" 6 8)
    write_table("${one_to_four}")
    kg_build(log "${build}")
    kg_run(log "${build}/use" 2 4)
    kg_run(log "${CMAKE_COMMAND}" --build "${build}")
    kg_expect("${log}" NOT_MATCHES "kernelgen:" "${case}: a second build with nothing changed")
    # Nor does it configure again: a path with ';' among CMake's configure dependencies would split in Makefiles.
    kg_expect("${log}" NOT_MATCHES "Configuring done" "${case}: a second build with nothing changed configured again")
    message(STATUS "${case}: every odd spec and data file path builds and regenerates on edit")
  endforeach()
endforeach()
