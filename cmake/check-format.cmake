# Fails when a tracked C++ file is not as clang-format (.clang-format) leaves it:
#   cmake -DSOURCE=<source dir> -DCLANG_FORMAT=<clang-format> -DGIT=<git> -P cmake/check-format.cmake
# The message names each file; `make format` mends them.
cmake_minimum_required(VERSION 3.25)

execute_process(COMMAND ${GIT} ls-files -- *.cpp *.hpp WORKING_DIRECTORY ${SOURCE}
                OUTPUT_VARIABLE files RESULT_VARIABLE listed OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT listed EQUAL 0)
  message(STATUS "not a git checkout: the format check has no file list and passes")
  return()
endif()
string(REPLACE "\n" ";" files "${files}")
list(LENGTH files count)
if(count EQUAL 0)
  message(FATAL_ERROR "git lists no C++ file in ${SOURCE}: the format check would check nothing")
endif()

execute_process(COMMAND ${CLANG_FORMAT} --dry-run ${files} WORKING_DIRECTORY ${SOURCE}
                ERROR_VARIABLE report RESULT_VARIABLE status)
string(REGEX MATCHALL "[^\n:]+:[0-9]+:[0-9]+: warning" places "${report}")
set(bad "")
foreach(place IN LISTS places)
  string(REGEX REPLACE ":[0-9]+:[0-9]+: warning$" "" file "${place}")
  list(APPEND bad ${file})
endforeach()
list(REMOVE_DUPLICATES bad)
if(bad OR NOT status EQUAL 0)
  list(JOIN bad "\n  " shown)
  message(FATAL_ERROR "these files are not clang-formatted (run 'make format'):\n  ${shown}")
endif()
message(STATUS "${count} C++ files are clang-formatted")
