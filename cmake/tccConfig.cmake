#===- tccConfig.cmake - find_package(tcc) --------------------------------===#
#
# Installed by `cmake --install` into <prefix>/lib/cmake/tcc. Gives:
#
#   tcc::tcc      the compiler (imported executable); TCC_EXECUTABLE its path
#   tcc::runtime  libtcc_runtime.a and include/tcc/runtime.h: link it once into
#                 a program that links any number of model objects
#   tcc_add_model(<target> <model.pt2> [NAME n] [TARGET cpu|cuda|cpu,cuda]
#                 [PRECISION fp32|tf32|bf16] [OPTIONS <tcc compile options>...])
#                 compiles the model at build time into <n>.o (a custom command
#                 that reruns when the archive or tcc changes, and only then)
#                 and links it and tcc::runtime into <target>. The program
#                 reaches it with TCC_MODEL_DECLARE(n) and
#                 tcc_model_create_from(&tcc_model_<n>) (include/tcc/runtime.h).
#                 NAME defaults to the archive's file name made a C identifier.
#
#===----------------------------------------------------------------------===#
get_filename_component(_tcc_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

set(TCC_EXECUTABLE "${_tcc_prefix}/bin/tcc")
set(TCC_RUNTIME_LIBRARY "${_tcc_prefix}/lib/libtcc_runtime.a")
foreach(_tcc_file IN ITEMS "${TCC_EXECUTABLE}" "${TCC_RUNTIME_LIBRARY}"
                           "${_tcc_prefix}/include/tcc/runtime.h")
  if(NOT EXISTS "${_tcc_file}")
    set(tcc_FOUND FALSE)
    set(tcc_NOT_FOUND_MESSAGE "tcc's installation at ${_tcc_prefix} lacks ${_tcc_file}")
    return()
  endif()
endforeach()

if(NOT TARGET tcc::tcc)
  add_executable(tcc::tcc IMPORTED)
  set_target_properties(tcc::tcc PROPERTIES IMPORTED_LOCATION "${TCC_EXECUTABLE}")
endif()
if(NOT TARGET tcc::runtime)
  # The runtime is C++ behind a C ABI: a C program links libstdc++ for it.
  # CUDA, cuBLASLt, cuDNN and oneDNN are opened with dlopen when a model
  # needs them, so nothing else is linked.
  add_library(tcc::runtime STATIC IMPORTED)
  set_target_properties(tcc::runtime PROPERTIES
    IMPORTED_LOCATION "${TCC_RUNTIME_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${_tcc_prefix}/include"
    INTERFACE_LINK_LIBRARIES "stdc++;m;${CMAKE_DL_LIBS}")
endif()

function(tcc_add_model target model)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "NAME;TARGET;PRECISION" "OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tcc_add_model: unexpected arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tcc_add_model: ${target} is not a target")
  endif()
  get_filename_component(model_path "${model}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(name "${arg_NAME}")
  if(name STREQUAL "")
    get_filename_component(name "${model_path}" NAME_WE)
    string(MAKE_C_IDENTIFIER "${name}" name)
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/tcc_models")
  set(object "${dir}/${name}.o")
  set(args compile "${model_path}" -o "${object}" --name "${name}")
  if(arg_TARGET)
    list(APPEND args --target "${arg_TARGET}")
  endif()
  if(arg_PRECISION)
    list(APPEND args --precision "${arg_PRECISION}")
  endif()
  add_custom_command(
    OUTPUT "${object}"
    BYPRODUCTS "${dir}/${name}.guards.json"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
    COMMAND "${TCC_EXECUTABLE}" ${args} ${arg_OPTIONS}
    DEPENDS "${model_path}" "${TCC_EXECUTABLE}" "${TCC_RUNTIME_LIBRARY}"
    COMMENT "tcc: compiling model ${name} from ${model}"
    VERBATIM)
  target_sources(${target} PRIVATE "${object}")
  set_source_files_properties("${object}" TARGET_DIRECTORY ${target}
                              PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  target_link_libraries(${target} PRIVATE tcc::runtime)
endfunction()
