# cmake -DSAMPLE=<multiworker_hello> -DWORK_DIR=<scratch dir> -P sample_test.cmake
#
# Runs the chief and both workers of job.yaml in turn (the sample does no
# networking, so they need not overlap) with CLUSTER_SPEC, TF_CONFIG and
# AIP_MODEL_DIR as Vertex sets them, and checks that only the chief's
# model.json survives; then the keep and error paths.
file(REMOVE_RECURSE "${WORK_DIR}")
set(model_dir "${WORK_DIR}/out/model/")
set(tf_cluster [=["cluster":{"chief":["localhost:2222"],"worker":["localhost:2223","localhost:2224"]}]=])
set(spec_cluster [=["cluster":{"workerpool0":["localhost:2222"],"workerpool1":["localhost:2223","localhost:2224"]}]=])

# run(<name> <expected exit code> <stdout var> [VAR=value...] [-- args...])
function(run name expected out_var)
  cmake_parse_arguments(R "" "" "ARGS" ${ARGN})
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env --unset=TF_CONFIG --unset=CLUSTER_SPEC --unset=RANK
            --unset=SLURM_PROCID --unset=AIP_MODEL_DIR --unset=TRAINPKG_KEEP_WORKER_TEMP
            ${R_UNPARSED_ARGUMENTS} "${SAMPLE}" ${R_ARGS}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expected)
    message(FATAL_ERROR "${name}: exit ${rc}, expected ${expected}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect_contains name text needle)
  string(FIND "${text}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${name}: output lacks \"${needle}\":\n${text}")
  endif()
endfunction()

foreach(replica "chief;workerpool0;0;0" "worker;workerpool1;0;1" "worker;workerpool1;1;2")
  list(GET replica 0 type)
  list(GET replica 1 pool)
  list(GET replica 2 index)
  list(GET replica 3 rank)
  set(task "\"task\":{\"type\":\"${type}\",\"index\":${index}}")
  set(spec_task "\"task\":{\"type\":\"${pool}\",\"index\":${index}}")
  run(${type}${index} 0 out
    "TF_CONFIG={${tf_cluster},${task},\"environment\":\"cloud\"}"
    "CLUSTER_SPEC={${spec_cluster},\"environment\":\"cloud\",${spec_task}}"
    "AIP_MODEL_DIR=${model_dir}")
  expect_contains(${type}${index} "${out}" "source=TF_CONFIG task=${type}:${index} rank=${rank} world_size=3")
  expect_contains(${type}${index} "${out}" "TF_CONFIG={${tf_cluster}")
  expect_contains(${type}${index} "${out}" "CLUSTER_SPEC={${spec_cluster}")
endforeach()
file(READ "${model_dir}/model.json" model)
expect_contains(model.json "${model}" [=["task_type":"chief","task_index":0,"rank":0,"world_size":3]=])
file(GLOB leftovers "${model_dir}/workertemp_*")
if(leftovers)
  message(FATAL_ERROR "worker temp dirs left behind: ${leftovers}")
endif()

# A worker asked to keep its temp dir; a single process with --model_dir.
run(keep 0 out "TF_CONFIG={${tf_cluster},\"task\":{\"type\":\"worker\",\"index\":1}}"
    "AIP_MODEL_DIR=${model_dir}" ARGS --keep_worker_temp)
expect_contains(keep "${out}" "kept ")
if(NOT EXISTS "${model_dir}/workertemp_1/model.json")
  message(FATAL_ERROR "--keep_worker_temp did not keep workertemp_1")
endif()
run(single 0 out ARGS "--model_dir=${WORK_DIR}/single")
expect_contains(single "${out}" "source=single task=chief:0 rank=0 world_size=1")
expect_contains(single "${out}" "TF_CONFIG not set")
if(NOT EXISTS "${WORK_DIR}/single/model.json")
  message(FATAL_ERROR "single process wrote no model.json")
endif()

# No model directory, a bad flag, a malformed TF_CONFIG.
run(no_dir 2 out)
expect_contains(no_dir "${out}" "no model directory")
run(bad_flag 2 out ARGS --exit_code=3)
run(bad_tf_config 1 out "TF_CONFIG={\"cluster\":{}}")
expect_contains(bad_tf_config "${out}" "TF_CONFIG: task: missing")
file(REMOVE_RECURSE "${WORK_DIR}")
