# Installs the built project into a scratch prefix and builds examples/ against it with find_package,
# as a user would. Arguments: BUILD_DIR, SOURCE_DIR, ARCHS.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${rc}):\n${out}\n${err}")
  endif()
endfunction()
set(prefix ${BUILD_DIR}/install-test/prefix)
set(example_build ${BUILD_DIR}/install-test/examples)
file(REMOVE_RECURSE ${BUILD_DIR}/install-test)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples -B ${example_build} -DCMAKE_PREFIX_PATH=${prefix}
    "-DCMAKE_CUDA_ARCHITECTURES=${ARCHS}")
run(${CMAKE_COMMAND} --build ${example_build})
message(STATUS "examples built against ${prefix}")
