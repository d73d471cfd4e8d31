# cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch> -P subdirectory_example.cmake
#
# examples/firmware with add_subdirectory() of this checkout (KERNELGEN_SOURCE_DIR): the generator is built
# in the firmware's build, kernelgen's tests and its own kernels are not; the program runs; a second build
# does nothing; a rebuilt generator regenerates every kernel, and recompiles none it leaves as it was.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
kg_copy_example("${WORK_DIR}")
set(build "${WORK_DIR}/build")
kg_run(log "${CMAKE_COMMAND}" -S "${WORK_DIR}/src" -B "${build}" -G Ninja "-DKERNELGEN_SOURCE_DIR=${SOURCE_DIR}")
kg_run(targets "${CMAKE_COMMAND}" --build "${build}" --target help)
kg_expect("${targets}" MATCHES "kernelgen:" "the firmware's build has the generator")
foreach(absent generator_test doc_examples_test kernelgen_spec_kernels update-generated)
  kg_expect("${targets}" NOT_MATCHES "(^|\n)${absent}:" "a sub-project builds no tests nor kernelgen's own kernels")
endforeach()
kg_build(log "${build}")
kg_expect("${log}" MATCHES "Linking CXX executable kernelgen/kernelgen" "first build")
kg_expect("${log}" MATCHES "kernelgen: specs/embed_tokens.json" "first build")
kg_run_firmware("${build}/firmware")
kg_expect_no_work("${build}" "after the first build")

# A sub-project installs nothing of kernelgen into the firmware's install.
kg_run(log "${CMAKE_COMMAND}" --install "${build}" --prefix "${WORK_DIR}/install")
if(EXISTS "${WORK_DIR}/install/bin/kernelgen" OR EXISTS "${WORK_DIR}/install/lib/cmake/KernelGen")
  message(FATAL_ERROR "add_subdirectory(kernelgen) installed kernelgen with the firmware")
endif()

# The generator relinked (a new binary): every kernel is regenerated.
file(REMOVE "${build}/kernelgen/kernelgen")
kg_build(log "${build}")
kg_expect("${log}" MATCHES "Linking CXX executable kernelgen/kernelgen" "after removing the generator")
kg_expect("${log}" MATCHES "kernelgen: specs/embed_tokens.json" "after relinking the generator")
kg_expect("${log}" MATCHES "kernelgen: specs/kv_cache_write.json" "after relinking the generator")
kg_expect("${log}" NOT_MATCHES "Building C object" "after relinking a generator that changes no kernel")
kg_run_firmware("${build}/firmware")
kg_expect_no_work("${build}" "after relinking the generator")
