# Proves that the link check of cmake/families.cmake can fail: builds a small
# project in WORK whose filter family calls a placement function without
# using the placement family, expects the link check to fail naming the
# function; then lets filter use placement and expects the build to pass.
#   cmake -DROOT=<source dir> -DWORK=<scratch dir> -P cmake/test-family-links.cmake
cmake_minimum_required(VERSION 3.25)

file(REMOVE_RECURSE ${WORK})
file(WRITE ${WORK}/io.cpp "int io_answer() { return 1; }\n")
file(WRITE ${WORK}/placement.cpp "int io_answer();\nint placement_answer() { return io_answer(); }\n")
file(WRITE ${WORK}/filter.cpp
     "int io_answer();\nint placement_answer();\n"
     "int filter_answer() { return io_answer() + placement_answer(); }\n")
function(write_project filter_uses)
  file(WRITE ${WORK}/CMakeLists.txt
       "cmake_minimum_required(VERSION 3.25)\nproject(family_links LANGUAGES CXX)\n"
       "include(${ROOT}/cmake/families.cmake)\n"
       "ringbloom_add_family(io io.cpp)\n"
       "ringbloom_add_family(placement placement.cpp USES io)\n"
       "ringbloom_add_family(filter filter.cpp USES ${filter_uses})\n"
       "ringbloom_check_family_links()\n")
endfunction()

write_project(io)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK} -B ${WORK}/build RESULT_VARIABLE status
                OUTPUT_QUIET)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the test project did not configure")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE status
                OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(status EQUAL 0)
  message(FATAL_ERROR "the link check accepted filter calling placement without using it")
endif()
if(NOT output MATCHES "placement_answer")
  message(FATAL_ERROR "the link check failed without naming the symbol:\n${output}")
endif()

write_project("io placement")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK} -B ${WORK}/build OUTPUT_QUIET)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE status
                OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the link check refused an allowed call:\n${output}")
endif()
file(REMOVE_RECURSE ${WORK})
