# The fuzz targets, shared by fuzz/CMakeLists.txt (libFuzzer binaries, GRAFT_FUZZ=ON) and
# tests/fuzz_regressions/CMakeLists.txt (replay binaries in the default build). Each target is
# fuzz/<name>_fuzzer.cpp, which defines LLVMFuzzerTestOneInput, plus fuzz/fuzz_support.cpp and
# the files of GRAFT_FUZZ_SOURCES_<name> (paths relative to fuzz/).
set(GRAFT_FUZZ_TARGETS rules model_json safetensors rewrite npy compile)
set(GRAFT_FUZZ_LIBS_rules graft::dsl graft::eval)          # the reference folder runs fuzzed rules
set(GRAFT_FUZZ_LIBS_model_json graft::engine)
set(GRAFT_FUZZ_LIBS_safetensors graft::engine)
set(GRAFT_FUZZ_LIBS_rewrite graft::dsl graft::runtime)       # compares the graphs on oneDNN
set(GRAFT_FUZZ_SOURCES_rewrite graph_recipe.cpp numeric_oracle.cpp)  # recipe bytes -> graph
set(GRAFT_FUZZ_LIBS_npy graft::eval)
set(GRAFT_FUZZ_LIBS_compile graft::runtime)
# Recipes, and the CLI's binding of a model's inputs (as `rewrite run` compiles).
set(GRAFT_FUZZ_SOURCES_compile graph_recipe.cpp numeric_oracle.cpp ../tools/rewrite/run_util.cpp)

# graft_fuzz_executable(EXE NAME [extra sources...]): EXE runs target NAME's entry point.
function(graft_fuzz_executable exe name)
  set(dir ${PROJECT_SOURCE_DIR}/fuzz)
  set(extra)
  foreach(source IN LISTS GRAFT_FUZZ_SOURCES_${name})
    list(APPEND extra ${dir}/${source})
  endforeach()
  add_executable(${exe} ${dir}/${name}_fuzzer.cpp ${dir}/fuzz_support.cpp ${extra} ${ARGN})
  target_link_libraries(${exe} PRIVATE ${GRAFT_FUZZ_LIBS_${name}} graft_warnings)
  # The harnesses read rules/ and examples/ from the source tree at start-up.
  target_compile_definitions(${exe} PRIVATE GRAFT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endfunction()
