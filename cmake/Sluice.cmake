# Helper functions shared by every layer's CMakeLists.txt.

# sluice_proto_library(<target> PROTOS <repo-relative .proto files> [DEPS <targets>])
# Generated headers keep the repo-relative path: "proto/calculator.pb.h".
function(sluice_proto_library target)
  cmake_parse_arguments(A "" "" "PROTOS;DEPS" ${ARGN})
  set(srcs)
  set(hdrs)
  foreach(p ${A_PROTOS})
    file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/${p})
    string(REGEX REPLACE "\\.proto$" "" stem ${rel})
    set(cc ${CMAKE_BINARY_DIR}/${stem}.pb.cc)
    set(h ${CMAKE_BINARY_DIR}/${stem}.pb.h)
    add_custom_command(
      OUTPUT ${cc} ${h}
      COMMAND protobuf::protoc --cpp_out=${CMAKE_BINARY_DIR} -I${CMAKE_SOURCE_DIR} ${rel}
      WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${p} protobuf::protoc
      COMMENT "protoc ${rel}")
    list(APPEND srcs ${cc})
    list(APPEND hdrs ${h})
  endforeach()
  add_library(${target} STATIC ${srcs} ${hdrs})
  target_include_directories(${target} PUBLIC ${CMAKE_BINARY_DIR})
  target_link_libraries(${target} PUBLIC protobuf::libprotobuf ${A_DEPS})
  # Generated code is not ours to warn about.
  target_compile_options(${target} PRIVATE -w)
endfunction()

# Sanitized builds run the tests several times slower (TSan up to ~10x: the
# reference backend's model runs), so every test's time limit is scaled.
if(SLUICE_SANITIZE STREQUAL "thread")
  set(SLUICE_TIMEOUT_SCALE 8)
elseif(SLUICE_SANITIZE STREQUAL "address")
  set(SLUICE_TIMEOUT_SCALE 3)
else()
  set(SLUICE_TIMEOUT_SCALE 1)
endif()

# sluice_set_timeout(<seconds> <tests>...): the tests' time limit, scaled as above.
function(sluice_set_timeout seconds)
  math(EXPR scaled "${seconds} * ${SLUICE_TIMEOUT_SCALE}")
  set_tests_properties(${ARGN} PROPERTIES TIMEOUT ${scaled})
endfunction()

# sluice_test(<name> SOURCES <files> [LIBS <targets>] [WHOLE <targets>] [LABELS <labels>])
# One gtest binary = one ctest entry. WHOLE lists libraries whose static registrations
# (calculators, subgraphs) must survive linking.
function(sluice_test name)
  if(NOT SLUICE_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(A "" "" "SOURCES;LIBS;WHOLE;LABELS" ${ARGN})
  add_executable(${name} ${A_SOURCES})
  target_link_libraries(${name} PRIVATE ${A_LIBS} GTest::gtest GTest::gtest_main GTest::gmock)
  sluice_link_whole(${name} ${A_WHOLE})
  add_test(NAME ${name} COMMAND ${name} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "SLUICE_SOURCE_DIR=${CMAKE_SOURCE_DIR};SLUICE_SHARED_DIR=${SLUICE_SHARED_DIR}")
  sluice_set_timeout(300 ${name})
  if(A_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${A_LABELS}")
  endif()
endfunction()

# Links static libraries whole, so that registration objects are not dropped.
# Raw linker flags rather than $<LINK_LIBRARY:WHOLE_ARCHIVE,...>: CMake refuses a
# library that also arrives as a plain dependency (calculator libraries depend on
# each other), while the linker takes the archive whole once and ignores the
# later plain mention. The plain `${lib}` keeps usage requirements and ordering.
function(sluice_link_whole target)
  foreach(lib ${ARGN})
    target_link_libraries(${target} PRIVATE
      -Wl,--whole-archive $<TARGET_FILE:${lib}> -Wl,--no-whole-archive ${lib})
  endforeach()
endfunction()

# Where the read-only shared material lives (models, testdata, graphs).
if(NOT DEFINED SLUICE_SHARED_DIR)
  get_filename_component(SLUICE_SHARED_DIR ${CMAKE_SOURCE_DIR}/../shared ABSOLUTE)
endif()
set(SLUICE_SHARED_DIR ${SLUICE_SHARED_DIR} CACHE PATH "Folder with shared models and test data")
