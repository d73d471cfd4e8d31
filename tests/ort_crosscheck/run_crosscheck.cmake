# The ort_crosscheck test, run as: cmake -DRANDOM_KERNELS_TEST=... -DPYTHON=... -DNODE=... -DORT_DIR=...
#                                        -DSCRIPT_DIR=... -DWORK_DIR=... -P run_crosscheck.cmake
# 1. random_kernels_test writes its cases to WORK_DIR/ort_cases (KERNELGEN_DUMP_CASES, with KERNELGEN_CASES_ONLY:
#    the kernels are compiled and run by random_kernels_test's own tests, not again here;
#    KERNELGEN_RANDOM_SEED/_CASES from the environment apply),
# 2. make_models.py writes one ONNX model per case to WORK_DIR/ort_models,
# 3. run_ort.js runs them with ONNX Runtime and compares; its exit code is the test's result.
foreach(variable RANDOM_KERNELS_TEST PYTHON NODE ORT_DIR SCRIPT_DIR WORK_DIR)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "run_crosscheck.cmake: -D${variable}=... is missing")
  endif()
endforeach()

set(cases_dir "${WORK_DIR}/ort_cases")
set(models_dir "${WORK_DIR}/ort_models")
file(REMOVE_RECURSE "${cases_dir}" "${models_dir}")  # nothing left over from an earlier run

# 1. The cases, computed by tests/reference.cpp.
message(STATUS "ort_crosscheck: dumping the random cases to ${cases_dir}")
set(ENV{KERNELGEN_DUMP_CASES} "${cases_dir}")
set(ENV{KERNELGEN_CASES_ONLY} 1)
execute_process(COMMAND "${RANDOM_KERNELS_TEST}" --gtest_brief=1 --gtest_filter=RandomKernels.* RESULT_VARIABLE result)
unset(ENV{KERNELGEN_DUMP_CASES})
unset(ENV{KERNELGEN_CASES_ONLY})
if(NOT result EQUAL 0)
  message(WARNING "random_kernels_test exited with ${result} (its own tests report why); cross-checking what it dumped")
endif()
foreach(op Gather GatherElements GatherND ScatterND ScatterElements TensorScatter)
  if(NOT EXISTS "${cases_dir}/${op}.json")
    message(FATAL_ERROR "random_kernels_test wrote no ${cases_dir}/${op}.json")
  endif()
endforeach()

# 2. The models.
execute_process(COMMAND "${PYTHON}" "${SCRIPT_DIR}/make_models.py" "${cases_dir}" "${models_dir}"
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "make_models.py failed (${result})")
endif()

# 3. ONNX Runtime against the expected results.
# The cases as ONNX sees them (make_models.py cuts those with a run-time count to their first count rows).
execute_process(COMMAND "${NODE}" "${SCRIPT_DIR}/run_ort.js" "${models_dir}" "${models_dir}" "${ORT_DIR}"
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "run_ort.js: ONNX Runtime disagrees with the expected results (exit code ${result})")
endif()
