# Embeds templates/*.mustache into a C++ header (builtin_templates.hpp), byte for byte:
#   cmake -DTEMPLATES_DIR=templates -DOUTPUT=include/servestat/report/builtin_templates.hpp -P cmake/embed_templates.cmake
# Each text becomes raw string literals of at most 60000 bytes (cut after a newline where possible),
# with a delimiter that does not occur in the file; a lone carriage return goes in an ordinary "\r"
# literal so the compiler's newline handling cannot change it. Files must use LF line endings.
cmake_minimum_required(VERSION 3.20)

if(NOT DEFINED TEMPLATES_DIR OR NOT DEFINED OUTPUT)
  message(FATAL_ERROR "usage: cmake -DTEMPLATES_DIR=templates -DOUTPUT=include/servestat/report/builtin_templates.hpp -P cmake/embed_templates.cmake")
endif()

# Relative paths are taken from the working directory, as the usage line above expects.
get_filename_component(TEMPLATES_DIR "${TEMPLATES_DIR}" ABSOLUTE)
get_filename_component(OUTPUT "${OUTPUT}" ABSOLUTE)
set(chunk_limit 60000)

# The shortest delimiter `tmplN` whose closing sequence `)tmplN"` is not in the text.
function(pick_delimiter text out_var)
  set(delimiter tmpl)
  set(n 0)
  while(TRUE)
    string(FIND "${text}" ")${delimiter}\"" found)
    if(found EQUAL -1)
      break()
    endif()
    math(EXPR n "${n} + 1")
    set(delimiter tmpl${n})
  endwhile()
  set(${out_var} ${delimiter} PARENT_SCOPE)
endfunction()

# One chunk as raw literals, with each "\r" as an ordinary literal between them.
function(chunk_literal chunk delimiter out_var)
  string(REPLACE "\r" ")${delimiter}\" \"\\r\" R\"${delimiter}(" body "${chunk}")
  set(${out_var} "R\"${delimiter}(${body})${delimiter}\"" PARENT_SCOPE)
endfunction()

# The whole text as adjacent literals, each under the chunk limit, one per line of the header.
function(text_literals text out_var)
  pick_delimiter("${text}" delimiter)
  set(literals "")
  set(rest "${text}")
  string(LENGTH "${rest}" length)
  while(length GREATER chunk_limit)
    string(SUBSTRING "${rest}" 0 ${chunk_limit} head)
    string(FIND "${head}" "\n" newline REVERSE)
    if(newline EQUAL -1)
      set(cut ${chunk_limit})
    else()
      math(EXPR cut "${newline} + 1")
    endif()
    string(SUBSTRING "${rest}" 0 ${cut} chunk)
    string(SUBSTRING "${rest}" ${cut} -1 rest)
    chunk_literal("${chunk}" ${delimiter} literal)
    string(APPEND literals "${literal}\n    ")
    string(LENGTH "${rest}" length)
  endwhile()
  chunk_literal("${rest}" ${delimiter} literal)
  string(APPEND literals "${literal}")
  set(${out_var} "${literals}" PARENT_SCOPE)
endfunction()

# Sorted by name, not file name: "a" comes before "a.b" although "a.b.mustache" sorts first.
file(GLOB template_files LIST_DIRECTORIES false RELATIVE "${TEMPLATES_DIR}" "${TEMPLATES_DIR}/*.mustache")
set(names "")
foreach(file_name IN LISTS template_files)
  string(REGEX REPLACE "\\.mustache$" "" name "${file_name}")
  list(APPEND names "${name}")
endforeach()
list(SORT names COMPARE STRING)
list(LENGTH names count)

# Texts are named arrays so their length is sizeof, not a compile-time strlen (which gcc caps at 262144 steps).
set(texts "")
set(entries "")
set(index 0)
foreach(name IN LISTS names)
  set(path "${TEMPLATES_DIR}/${name}.mustache")
  file(READ "${path}" text)
  # file(READ) turns CRLF into LF and cannot hold NUL: refuse rather than embed different bytes.
  file(SIZE "${path}" size)
  string(LENGTH "${text}" length)
  if(NOT size EQUAL length)
    message(FATAL_ERROR "${path}: CRLF line endings or NUL bytes cannot be embedded byte for byte; save it with LF line endings")
  endif()
  text_literals("${text}" literals)
  string(APPEND texts "// ${name}.mustache\ninline constexpr char builtin_template_${index}[] =\n    ${literals};\n\n")
  string(APPEND entries "    builtin_template{\"${name}\", {detail::builtin_template_${index}, sizeof(detail::builtin_template_${index}) - 1}},\n")
  math(EXPR index "${index} + 1")
endforeach()

set(header "// Built-in report templates, generated from templates/*.mustache by cmake/embed_templates.cmake: edit those, then regenerate.
#pragma once

#include <array>       // std::array
#include <string_view> // std::string_view

namespace servestat {

// One built-in template: its name (the file name without .mustache) and its text.
struct builtin_template {
    std::string_view name;
    std::string_view text;
};

namespace detail {

${texts}} // namespace detail

// Sorted by name.
inline constexpr std::array<builtin_template, ${count}> builtin_templates{{
${entries}}};

// The built-in template called `name`, or nullptr.
constexpr const builtin_template* find_builtin_template(std::string_view name) noexcept {
    for (const auto& t : builtin_templates)
        if (t.name == name) return &t;
    return nullptr;
}

} // namespace servestat
")

# Rewriting an unchanged header would make every including target rebuild.
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
  if(previous STREQUAL header)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${header}")
