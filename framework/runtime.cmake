# The graph runtime (sluice_framework): packets, calculators, stream handlers,
# scheduler, CalculatorGraph, tracer. Included from framework/CMakeLists.txt.
set(_fw ${CMAKE_CURRENT_SOURCE_DIR})
add_library(sluice_framework STATIC
  ${_fw}/timestamp.cc
  ${_fw}/packet.cc
  ${_fw}/port_map.cc
  ${_fw}/packet_type.cc
  ${_fw}/node_options.cc
  ${_fw}/calculator_contract.cc
  ${_fw}/calculator_context.cc
  ${_fw}/calculator_base.cc
  ${_fw}/calculator_registry.cc
  ${_fw}/executor.cc
  ${_fw}/input_stream_handler.cc
  ${_fw}/stream_handler/builtin_handlers.cc
  ${_fw}/stream_handler/default_input_stream_handler.cc
  ${_fw}/stream_handler/immediate_input_stream_handler.cc
  ${_fw}/stream_handler/mux_input_stream_handler.cc
  ${_fw}/calculator_node.cc
  ${_fw}/output_stream_manager.cc
  ${_fw}/scheduler.cc
  ${_fw}/graph_builder.cc
  ${_fw}/graph_runner.cc
  ${_fw}/calculator_graph.cc
  ${_fw}/tracer.cc
)
target_include_directories(sluice_framework PUBLIC ${CMAKE_SOURCE_DIR})
target_link_libraries(sluice_framework PUBLIC
  sluice_graph_config sluice_framework_proto sluice_util protobuf::libprotobuf
  absl::status absl::statusor absl::strings Threads::Threads)

# Test calculators (Test... names), linked whole by the tests.
add_library(sluice_framework_testing STATIC
  ${_fw}/testing/test_calculators.cc
)
target_link_libraries(sluice_framework_testing PUBLIC sluice_framework)

# Adds a test only once all of its sources exist (they land one by one).
function(_sluice_runtime_test name)
  cmake_parse_arguments(A "" "" "SOURCES;WHOLE" ${ARGN})
  foreach(src ${A_SOURCES})
    if(NOT EXISTS ${src})
      return()
    endif()
  endforeach()
  sluice_test(${name} SOURCES ${A_SOURCES} LIBS sluice_framework WHOLE ${A_WHOLE}
    LABELS framework)
endfunction()

if(SLUICE_BUILD_TESTS)
  _sluice_runtime_test(timestamp_test SOURCES ${_fw}/timestamp_test.cc ${_fw}/packet_test.cc)
  _sluice_runtime_test(stream_handler_test SOURCES ${_fw}/stream_handler/stream_handler_test.cc
    WHOLE sluice_framework_testing)
  _sluice_runtime_test(calculator_graph_test SOURCES ${_fw}/calculator_graph_test.cc
    WHOLE sluice_framework_testing)
  _sluice_runtime_test(graph_validation_test SOURCES ${_fw}/graph_validation_test.cc
    WHOLE sluice_framework_testing)
  _sluice_runtime_test(scheduler_test SOURCES ${_fw}/scheduler_test.cc
    WHOLE sluice_framework_testing)
endif()
