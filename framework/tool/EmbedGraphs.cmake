# sluice_embed_graphs(<target> FILES <file.pbtxt>[=<RegisterName>] ...)
#
# Embeds graph texts into <target> (which must link sluice_graph_config) and
# registers each in SubgraphRegistry::Get() at static-init time, under the
# explicit name or else the file's top-level `type:` field (read at build
# time; a file with neither fails the build). Link <target> whole
# (sluice_link_whole / sluice_test WHOLE) so the registrations are kept.
# Cached so that sluice_embed_graphs works from any directory.
set(SLUICE_EMBED_GRAPHS_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_graphs_generate.cmake CACHE INTERNAL "")

function(sluice_embed_graphs target)
  cmake_parse_arguments(A "" "" "FILES" ${ARGN})
  set(manifest "")
  set(deps "")
  foreach(entry ${A_FILES})
    if(entry MATCHES "^([^=]+)=(.+)$")
      set(file ${CMAKE_MATCH_1})
      set(name ${CMAKE_MATCH_2})
    else()
      set(file ${entry})
      set(name "")
    endif()
    get_filename_component(file ${file} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    string(APPEND manifest "${file}|${name}\n")
    list(APPEND deps ${file})
  endforeach()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${target}_embedded_graphs)
  set(manifest_file ${dir}/manifest.txt)
  set(out ${dir}/embedded_graphs.cc)
  file(MAKE_DIRECTORY ${dir})
  file(CONFIGURE OUTPUT ${manifest_file} CONTENT "${manifest}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DMANIFEST=${manifest_file} -DOUT=${out}
            -P ${SLUICE_EMBED_GRAPHS_SCRIPT}
    DEPENDS ${deps} ${manifest_file} ${SLUICE_EMBED_GRAPHS_SCRIPT}
    COMMENT "Embedding graphs into ${target}")
  target_sources(${target} PRIVATE ${out})
endfunction()
