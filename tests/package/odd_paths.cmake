# cmake -DSOURCE_DIR=<repo> -DKERNELGEN=<kernelgen> -DWORK_DIR=<scratch> -P odd_paths.cmake
#
# kernelgen_add_kernels() with spec paths that hold every character a file name may and CMake or Make treat
# specially (a space, ';' given as "a;b" and as "a\;b", ':', '#', '$', quotes) and an OUTPUT_DIR with a space,
# with Ninja and with Makefiles: each builds, links into a program that calls every kernel, regenerates only the
# edited spec's kernel, and a second build does nothing.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
file(REMOVE_RECURSE "${WORK_DIR}")
set(src "${WORK_DIR}/src")
set(specs_dir "${src}/spec files")
set(names semi colon hash dollar quote plain)
set(files "semi\;colon.json" "co:lon.json" "ha#sh.json" "dol$lar.json" "it's \"quoted\".json" "plain.json")
foreach(name file IN ZIP_LISTS names files)
  file(WRITE "${specs_dir}/${file}"
       "{\"name\": \"${name}\", \"op\": \"Gather\", \"dtype\": \"float32\", \"data_shape\": [4, 3], \"indices_shape\": [2]}\n")
endforeach()
file(WRITE "${src}/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.19)
project(odd_paths C)
include("@SOURCE_DIR@/cmake/KernelGenFunctions.cmake")
set(KERNELGEN_EXECUTABLE "@KERNELGEN@")
set(more "spec files/co:lon.json" "spec files/ha#sh.json")
kernelgen_add_kernels(kernels
  SPECS "spec files/semi\;colon.json" ${more} "spec files/dol$lar.json" [[spec files/it's "quoted".json]]
  OUTPUT_DIR "generated kernels")
kernelgen_add_kernels(more_kernels SPECS "spec files/plain.json" OPTIONS --unroll none)
add_executable(use main.c)
target_link_libraries(use PRIVATE kernels more_kernels)
]=])
file(READ "${src}/CMakeLists.txt" text)
string(CONFIGURE "${text}" text @ONLY)
file(WRITE "${src}/CMakeLists.txt" "${text}")
set(main "#include <stdio.h>\n")
foreach(name IN LISTS names)
  string(APPEND main "#include \"${name}.h\"\n")
endforeach()
string(APPEND main "int main(void)\n{\n    const float data[12] = {0};\n    const int64_t indices[2] = {1, -1};\n"
                   "    float output[6];\n    int failed = 0;\n")
foreach(name IN LISTS names)
  string(APPEND main "    failed |= ${name}(data, indices, output);\n")
endforeach()
string(APPEND main "    return failed;\n}\n")
file(WRITE "${src}/main.c" "${main}")

foreach(generator "Ninja" "Unix Makefiles")
  set(build "${WORK_DIR}/build ${generator}")
  kg_run(log "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G "${generator}")
  kg_build(log "${build}")
  foreach(file IN LISTS files)
    string(REGEX REPLACE "[\\\\$.*+?()^]" "." pattern "kernelgen: spec files/${file}")
    kg_expect("${log}" MATCHES "${pattern}" "${generator}: first build")
  endforeach()
  kg_run(log "${build}/use")
  # An edit of one spec regenerates its kernel only (Makefiles: through the copy the function depends on).
  file(READ "${specs_dir}/semi;colon.json" spec)
  string(REPLACE "[2]" "[2], \"unroll\": \"none\"" edited "${spec}")
  file(WRITE "${specs_dir}/semi;colon.json" "${edited}")
  kg_build(log "${build}")
  kg_expect("${log}" MATCHES "kernelgen: spec files/semi;colon.json" "${generator}: after editing semi;colon.json")
  kg_expect("${log}" NOT_MATCHES "kernelgen: spec files/co:lon.json" "${generator}: after editing semi;colon.json")
  file(WRITE "${specs_dir}/semi;colon.json" "${spec}")
  kg_build(log "${build}")
  kg_run(log "${CMAKE_COMMAND}" --build "${build}")
  kg_expect("${log}" NOT_MATCHES "kernelgen:" "${generator}: a second build with nothing changed")
  message(STATUS "${generator}: every odd spec path builds and regenerates on edit")
endforeach()
