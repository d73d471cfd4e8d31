# Runs one of kernelgen's libFuzzer targets (built by tests/fuzz/CMakeLists.txt): replays every input of its
# regressions folder once, then fuzzes for a bounded time on a seed corpus. Any crash, hang, leak or sanitizer
# report fails the test; the input that caused it is kept in WORK_DIR as crash-*/timeout-*/oom-*: copy it into
# the regressions folder with the fix.
#
# cmake -DFUZZER=spec_fuzzer|import_fuzzer|graph_fuzzer -DPROGRAM=<fuzzer> -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch>
#       -DSECONDS=<fuzzing time> [-DNODE_DIR=<ONNX node tests>] [-DSEEDS=all] -P run_fuzzer.cmake
#
#   spec_fuzzer    any bytes as a spec file; seeds: specs/*.json. Regressions: tests/fuzz/regressions/.
#   import_fuzzer  any bytes as an ONNX model; seeds: the models of tests/import/ and the model.onnx of ONNX's
#                  node tests of the operators import reads or folds (about 130; with -DSEEDS=all every one of
#                  them, 932, which takes a minute to load: for long runs). Regressions:
#                  tests/fuzz/import_regressions/*.onnx and tests/import/hostile/.
#   graph_fuzzer   bytes that it decodes into an ONNX graph; seeds: 32 random inputs of 1 KB. Regressions:
#                  tests/fuzz/graph_regressions/*.input (its own inputs; the model each one makes, written with
#                  KERNELGEN_GRAPH_FUZZER_MODEL, goes into import_regressions/, which keeps it whatever the decoder).
# A fresh corpus each time: libFuzzer adds what it finds to it, and a corpus grown over many runs would make each
# later run slower (every input is executed before fuzzing starts).
file(REMOVE_RECURSE "${WORK_DIR}/corpus")
file(MAKE_DIRECTORY "${WORK_DIR}/corpus")
if(FUZZER STREQUAL "spec_fuzzer")
  set(regressions_dir "${SOURCE_DIR}/tests/fuzz/regressions")
  file(GLOB seeds "${SOURCE_DIR}/specs/*.json")
  set(max_len 4096)
elseif(FUZZER STREQUAL "import_fuzzer")
  set(regressions_dir "${SOURCE_DIR}/tests/fuzz/import_regressions")
  # The crafted models of tests/import/hostile/ are regressions too.
  file(GLOB hostile "${SOURCE_DIR}/tests/import/hostile/*.onnx")
  file(GLOB seeds "${SOURCE_DIR}/tests/import/*.onnx" "${SOURCE_DIR}/tests/import/*/*.onnx")
  if(SEEDS STREQUAL "all")
    file(GLOB node_seeds "${NODE_DIR}/*/model.onnx")
  else()
    set(node_seeds "")
    foreach(family IN ITEMS gather scatter shape reshape slice concat unsqueeze squeeze range expand tile
                            constantofshape nonzero top_k where compress unique nonmaxsuppression if loop size
                            flatten transpose)
      file(GLOB family_seeds "${NODE_DIR}/test_${family}*/model.onnx")
      list(APPEND node_seeds ${family_seeds})
    endforeach()
  endif()
  list(APPEND seeds ${node_seeds})
  set(max_len 16384)
elseif(FUZZER STREQUAL "graph_fuzzer")
  set(regressions_dir "${SOURCE_DIR}/tests/fuzz/graph_regressions")
  set(seeds "")
  set(max_len 4096)
  # Seeds: 32 random inputs of 1 KB (new ones each run: letters and digits, which decode as well as any bytes),
  # each a graph of about seven nodes, so that a short run starts from graphs of that size rather than from nothing.
  foreach(k RANGE 1 32)
    string(RANDOM LENGTH 1024 random_input)
    file(WRITE "${WORK_DIR}/corpus/random_${k}" "${random_input}")
  endforeach()
  # Inputs of any length from the start: a few bytes decode to a graph of a node or two, and libFuzzer's slow
  # growth of the length would spend most of a short run on those.
  set(extra_options -len_control=0)
else()
  message(FATAL_ERROR "FUZZER must be spec_fuzzer, import_fuzzer or graph_fuzzer")
endif()
if(NOT DEFINED extra_options)
  set(extra_options "")
endif()
set(fuzzer "${PROGRAM}")
set(n 0)
foreach(seed IN LISTS seeds)
  math(EXPR n "${n} + 1")
  get_filename_component(name "${seed}" NAME)
  configure_file("${seed}" "${WORK_DIR}/corpus/seed_${n}_${name}" COPYONLY)
endforeach()
# A failed allocation returns null (new throws std::bad_alloc, which the importer's child reports) rather than
# aborting the process.
set(ENV{ASAN_OPTIONS} "allocator_may_return_null=1")
# Regressions: inputs that once broke kernelgen or probe its limits, each run once, whatever its size.
file(GLOB regressions "${regressions_dir}/*.json" "${regressions_dir}/*.onnx" "${regressions_dir}/*.input")
list(APPEND regressions ${hostile})
if(regressions)
  execute_process(COMMAND "${fuzzer}" -timeout=20 -rss_limit_mb=2048 ${regressions} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "a regression input of ${regressions_dir} fails again")
  endif()
endif()
# The regressions found by fuzzing seed the corpus too; the crafted hostile models do not (some take seconds each
# under the sanitizers, and every input of the corpus runs before fuzzing starts).
file(GLOB found "${regressions_dir}/*.json" "${regressions_dir}/*.onnx" "${regressions_dir}/*.input")
foreach(input IN LISTS found)
  get_filename_component(name "${input}" NAME)
  configure_file("${input}" "${WORK_DIR}/corpus/regression_${name}" COPYONLY)
endforeach()
execute_process(
  COMMAND "${fuzzer}" -max_total_time=${SECONDS} -timeout=20 -rss_limit_mb=2048 -max_len=${max_len} ${extra_options}
          "-artifact_prefix=${WORK_DIR}/" "${WORK_DIR}/corpus"
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${FUZZER} found a problem; see the artifact in ${WORK_DIR}")
endif()
