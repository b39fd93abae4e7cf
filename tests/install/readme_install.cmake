# cmake -P script: the README's install section in a scratch folder laid out as the README says:
#   WORK_DIR/triax   the source tree as a clone has it (only the tracked top-level parts the
#                    library's build reads, not this checkout's build folders)
#   WORK_DIR/app     the README's first program and its CMakeLists.txt
# then the README's shell block, run by bash -e from WORK_DIR/triax.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/triax)
foreach(part CMakeLists.txt CMakePresets.json README.md cmake include src)
  file(COPY ${SOURCE_DIR}/${part} DESTINATION ${WORK_DIR}/triax)
endforeach()
file(COPY ${FILES_DIR}/app DESTINATION ${WORK_DIR})
execute_process(COMMAND bash -euo pipefail ${FILES_DIR}/install.sh
  WORKING_DIRECTORY ${WORK_DIR}/triax RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README's install commands failed (${rc})")
endif()
