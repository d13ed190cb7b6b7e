# Proves that cmake/check-layout.cmake can fail: builds a small tree in WORK
# where the filter family includes a placement header, runs the check on it
# and expects a refusal naming the file; then removes the offending include
# and expects success.
#   cmake -DROOT=<source dir> -DWORK=<scratch dir> -P cmake/test-check-layout.cmake
cmake_minimum_required(VERSION 3.25)

file(REMOVE_RECURSE ${WORK})
file(WRITE ${WORK}/include/ringbloom/hash.hpp "#pragma once\n")
file(WRITE ${WORK}/include/ringbloom/placement/ring.hpp "#pragma once\n#include \"ringbloom/hash.hpp\"\n")
file(WRITE ${WORK}/src/filter/bad.cpp
     "#include \"ringbloom/io/file_io.hpp\"\n#include \"ringbloom/placement/ring.hpp\"\n")

execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${WORK} -P ${ROOT}/cmake/check-layout.cmake
                RESULT_VARIABLE status ERROR_VARIABLE errors)
if(status EQUAL 0)
  message(FATAL_ERROR "the layout check accepted src/filter/bad.cpp including a placement header")
endif()
if(NOT errors MATCHES "src/filter/bad.cpp: #include \"ringbloom/placement/ring.hpp\" \\(family 'placement' is not allowed here\\)")
  message(FATAL_ERROR "the layout check failed without naming the file and include:\n${errors}")
endif()

file(WRITE ${WORK}/src/filter/bad.cpp "#include \"ringbloom/io/file_io.hpp\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${WORK} -P ${ROOT}/cmake/check-layout.cmake
                RESULT_VARIABLE status ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the layout check refused an allowed include:\n${errors}")
endif()
file(REMOVE_RECURSE ${WORK})
