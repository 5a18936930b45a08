# The e2e.installed_package test, in script mode: installs the build BUILD_DIR into
# WORK_DIR/prefix, then configures, builds and runs the consumer project CONSUMER_DIR against it
# with find_package(TileKit) (the source tree is not on any of its paths).
foreach(var BUILD_DIR CONSUMER_DIR WORK_DIR GENERATOR CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "installed_package.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${step} failed (${rc}):\n${out}")
  endif()
  message(STATUS "${step}: ok")
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
run("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
foreach(f bin/ttgen lib/cmake/TileKit/TileKitConfig.cmake lib/cmake/TileKit/TileKit.cmake
          include/tilekit/runtime.hpp include/tilekit/emulator/tt-metalium/host_api.hpp)
  if(NOT EXISTS "${WORK_DIR}/prefix/${f}")
    message(FATAL_ERROR "the install lacks ${f}")
  endif()
endforeach()
run("configure" ${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" "-DCMAKE_CXX_COMPILER=${CXX}" -DCMAKE_BUILD_TYPE=Release)
run("build" ${CMAKE_COMMAND} --build "${WORK_DIR}/build")
# KERNEL_PATH (optional): the program's relative kernel paths resolve there ($TT_METAL_KERNEL_PATH).
if(DEFINED KERNEL_PATH)
  run("run" ${CMAKE_COMMAND} -E env "TT_METAL_KERNEL_PATH=${KERNEL_PATH}" "${WORK_DIR}/build/consumer")
else()
  run("run" "${WORK_DIR}/build/consumer")
endif()
message(STATUS "${last_output}")
