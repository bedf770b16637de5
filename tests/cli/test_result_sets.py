"""Result sets laid out as people publish them: a folder of runs becomes the right sweeps, named by
what sets the runs apart (issue 37). Built from ../shared/data and from small files written here.
Usage: test_result_sets.py SERVESTAT SHARED_DATA_DIR TEST_DATA_DIR WORK_DIR"""
import json
import os
import shutil
import subprocess
import sys

from checks import check, run_tests

SERVESTAT, SHARED, TEST_DATA, WORK = sys.argv[1:5]


def servestat(*args):
    return subprocess.run([SERVESTAT, *args], capture_output=True, text=True)


def stats_json(*inputs):
    r = servestat("stats", "--json", *inputs)
    check(r.returncode == 0, f"stats {inputs}: exit {r.returncode}: {r.stderr.strip()}")
    return (json.loads(r.stdout) if r.returncode == 0 else {"runs": [], "sweeps": [], "grids": []}), r.stderr


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def vllm_result(**fields):
    """A vLLM benchmark_serving result line (summary keys only, as --save-result writes them)."""
    base = {"date": "20250302-090000", "backend": "vllm", "model_id": "m/Model", "tokenizer_id": "m/Model",
            "request_rate": "inf", "burstiness": 1.0, "duration": 10.0, "completed": 10, "failed": 0,
            "total_input_tokens": 1000, "total_output_tokens": 500, "request_throughput": 1.0,
            "output_throughput": 50.0, "total_token_throughput": 150.0,
            "mean_ttft_ms": 100.0, "median_ttft_ms": 90.0, "std_ttft_ms": 10.0, "p99_ttft_ms": 200.0,
            "mean_e2el_ms": 1000.0, "median_e2el_ms": 900.0, "std_e2el_ms": 100.0, "p99_e2el_ms": 2000.0}
    base.update(fields)
    return json.dumps(base)


def test_aiperf_sweep_folder_is_one_concurrency_sweep():
    # SOURCE.md: ten levels run by the InferenceX harness, each in …_conc<C>_…/aiperf_artifacts/.
    data, stderr = stats_json(os.path.join(SHARED, "aiperf-inferencex-sweep-b200"))
    runs = data["runs"]
    check(len(runs) == 10, f"ten runs, one per level: {[r['label'] for r in runs]}")
    levels = [1, 2, 4, 8, 16, 32, 40, 48, 56, 64]
    check(sorted(r["label"] for r in runs) == sorted(f"c={c}" for c in levels),
          f"runs named by concurrency: {[r['label'] for r in runs]}")
    check(all(r["params"].get("concurrency") in levels for r in runs), "each run has its concurrency")
    sweeps = data["sweeps"]
    check(len(sweeps) == 1, f"one sweep: {[s['group'] for s in sweeps]}")
    if sweeps:
        check(sweeps[0]["param"] == "concurrency", f"swept: {sweeps[0]['param']}")
        check([p["load"] for p in sweeps[0]["points"]] == levels, "levels in load order, not file order")
    check(not data.get("grids"), "no phantom grid")
    # Output tok/s over the span (SOURCE.md's table), exact to its printed digits.
    want = {1: 40.2805, 8: 198.5665, 16: 199.4689, 64: 243.3890}
    for r in runs:
        c = r["params"].get("concurrency")
        if c in want:
            check(abs(r["output_tps"] - want[c]) < 5e-5, f"c={c}: output tok/s {r['output_tps']} against {want[c]}")
    check("SOURCE.md (no format recognises it)" in stderr, f"the note lists what was passed over: {stderr!r}")
    # The report's summary: SOURCE.md's reading — output tok/s flat from C=8 to 16 while TTFT climbs to
    # minutes, and the runs that ended well before their 1800 s.
    out = os.path.join(WORK, "aiperf-report")
    r = servestat("report", "-o", out, os.path.join(SHARED, "aiperf-inferencex-sweep-b200"))
    check(r.returncode == 0, f"report: {r.stderr}")
    if r.returncode == 0:
        summary = open(os.path.join(out, "report.md"), encoding="utf-8").read().split("## Summary")[1].split("\n|")[0]
        check("stops growing between c=8 and c=16 (199 → 199 tok/s)" in summary, f"where growth stops: {summary}")
        check("TTFT p50 climbs from 3.44 s to 48.68 s (261 s at c=64)" in summary, f"TTFT climbs to minutes: {summary}")
        check("c=16 after 1235 s, c=32 after 934 s, c=40 after 402 s and c=48 after 1309 s of the configured 1800 s"
              in summary, f"runs that ended early: {summary}")
        check("aiperf\\_artifacts" not in summary and "aiperf_artifacts" not in summary, "no run named after the tool's folder")


def test_appended_vllm_diagonal_is_a_sweep_not_a_grid():
    # max_concurrency 1 … 500 with num_prompts = 10 × C, one run per level, appended to one file.
    levels = [1, 5, 10, 50, 100, 200, 500]
    lines = [vllm_result(max_concurrency=c, num_prompts=10 * c, completed=10 * c, request_throughput=min(c, 50) * 0.5)
             for c in levels]
    path = os.path.join(WORK, "diagonal", "vllm_appended.json")
    write(path, "\n".join(lines) + "\n")
    data, _ = stats_json(path)
    check(len(data["runs"]) == 7, "seven runs")
    check(not data.get("grids"), f"no num_prompts × max_concurrency grid: {data.get('grids')}")
    check(len(data["sweeps"]) == 1, f"one sweep: {data['sweeps']}")
    if data["sweeps"]:
        s = data["sweeps"][0]
        check(s["param"] == "max_concurrency" and [p["load"] for p in s["points"]] == levels, f"over max_concurrency: {s}")
        check(s["covarying"] == ["num_prompts"], f"num_prompts follows the load: {s['covarying']}")
    check([r["label"] for r in data["runs"]] == [f"c={c}" for c in levels], f"names: {[r['label'] for r in data['runs']]}")


def test_result_files_named_by_tp_and_concurrency_in_model_folders():
    # InferenceX-style names: <model>_fp8_tp<T>_conc<C>_isl1024_osl1024.json, one model per folder.
    root = os.path.join(WORK, "inferencex")
    for folder, model, tps in (("dsr1", "deepseek-ai/DeepSeek-R1", (4, 8)), ("llama70b", "meta-llama/Llama-3.3-70B", (8,))):
        for tp in tps:
            for c in (4, 8, 16, 32):
                write(os.path.join(root, folder, f"{folder}_fp8_tp{tp}_conc{c}_isl1024_osl1024_b200.json"),
                      vllm_result(model_id=model, max_concurrency=None, num_prompts=10 * c,
                                  request_throughput=c / tp))
    data, _ = stats_json(root)
    check(len(data["runs"]) == 12, f"twelve runs: {len(data['runs'])}")
    groups = sorted(s["group"] for s in data["sweeps"])
    check(len(groups) == 3, f"three curves (two TP of one model, one of the other): {groups}")
    for s in data["sweeps"]:
        check(s["param"] == "concurrency" and [p["load"] for p in s["points"]] == [4, 8, 16, 32], f"sweep {s['group']}")
    labels = {r["label"] for r in data["runs"]}
    check("DeepSeek-R1 · tp4 · c=16" in labels and "Llama-3.3-70B · tp8 · c=32" in labels,
          f"runs named by model, TP and concurrency: {sorted(labels)}")
    check(all(len(label) <= 40 for label in labels), "no file name as a label")


def test_inference_perf_configurations_in_folders():
    # inference-perf's demo: <config>/results/stage_N_lifecycle_metrics.json, one folder per configuration.
    root = os.path.join(WORK, "inference-perf-demo")
    for config in ("vllm-baseline", "vllm-prefix-cache"):
        shutil.copytree(os.path.join(TEST_DATA, "inference_perf", "sweep"), os.path.join(root, config, "results"))
    def slower(v):  # the second configuration measured other numbers at the same rates
        if isinstance(v, dict):
            return {k: x if "rate" in k else slower(x) for k, x in v.items()}
        if isinstance(v, list):
            return [slower(x) for x in v]
        return v * 1.25 if isinstance(v, float) and v > 0 else v
    for name in os.listdir(os.path.join(root, "vllm-prefix-cache", "results")):
        path = os.path.join(root, "vllm-prefix-cache", "results", name)
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(slower(doc), f)
    data, stderr = stats_json(root)
    check(len(data["runs"]) >= 10, f"the stages of both configurations: {len(data['runs'])} runs, {stderr!r}")
    labels = [r["label"] for r in data["runs"]]
    check(len(set(labels)) == len(labels), f"every run named apart: {labels}")
    check(any("vllm-baseline" in label for label in labels) and any("vllm-prefix-cache" in label for label in labels),
          f"the configuration folders name the runs: {labels}")
    groups = [s["group"] for s in data["sweeps"]]
    check(groups == ["vllm-baseline/", "vllm-prefix-cache/"], f"one curve per configuration folder: {groups}")


def test_phases_and_copies_are_one_run_and_warmup_is_never_data():
    # AIPerf ≥ 0.12: the export at the top, its copy under phases/profiling, the warm-up under phases/warmup.
    real = os.path.join(SHARED, "aiperf-inferencex-sweep-b200")
    level = next(d for d in sorted(os.listdir(real)) if "_conc2_" in d)
    src = os.path.join(real, level, "aiperf_artifacts", "profile_export.jsonl")
    root = os.path.join(WORK, "phases-run")
    for sub in ("", "phases/profiling", "phases/warmup"):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
        shutil.copy(src, os.path.join(root, sub, "profile_export.jsonl"))
    shutil.copy(src, os.path.join(root, "copy-of-export.jsonl"))
    # A v2 report beside them: recognised, not read, and no reason to refuse the folder.
    write(os.path.join(root, "aiperf_report.json"),
          '{"schema_version": "2.0", "aiperf_version": "0.13.0", "metrics": {"ttft": {"series": []}}}\n')
    data, stderr = stats_json(root)
    check(len(data["runs"]) == 1, f"one run: {[r['source']['path'] for r in data['runs']]}")
    check("warm-up" in stderr and "profiling phase's copy" in stderr and "same bytes" in stderr,
          f"each passed over with its reason: {stderr!r}")
    check("aiperf_report.json (AIPerf's v2 native report" in stderr, f"the v2 report passed over with why: {stderr!r}")
    alone = servestat("stats", os.path.join(root, "aiperf_report.json"))
    check(alone.returncode == 3 and "v2 native report" in alone.stderr, f"named alone it is an error: {alone.stderr!r}")


def test_inferencex_summary_beside_its_aiperf_run_is_one_run():
    # InferenceX's layout: bmk_agentic_<name>/<…>.json, the harness's summary of the AIPerf run kept
    # beside it in agentic_<name>/aiperf_artifacts/ (the same runs as the shared AIPerf sweep).
    root = os.path.join(WORK, "inferencex-both")
    summaries = os.path.join(TEST_DATA, "inferencex", "kimik2.5-b200-lmcache-tp4")
    for folder in sorted(os.listdir(summaries)):
        if not any(f"_conc{c}_" in folder for c in (2, 8, 16)):
            continue
        shutil.copytree(os.path.join(summaries, folder), os.path.join(root, folder))
        aiperf = os.path.join(SHARED, "aiperf-inferencex-sweep-b200", folder[len("bmk_"):], "aiperf_artifacts")
        os.makedirs(os.path.join(root, folder[len("bmk_"):], "aiperf_artifacts"))
        for name in ("profile_export.jsonl", "profile_export_aiperf.json"):
            shutil.copy(os.path.join(aiperf, name), os.path.join(root, folder[len("bmk_"):], "aiperf_artifacts", name))
    data, stderr = stats_json(root)
    runs = data["runs"]
    check(len(runs) == 3 and all(r["source"]["format"] == "aiperf" for r in runs),
          f"one run per level, from the requests: {[(r['label'], r['source']['format']) for r in runs]} {stderr!r}")
    check([r["label"] for r in runs] == ["c=2", "c=8", "c=16"], f"named by concurrency: {[r['label'] for r in runs]}")
    one = [os.path.join(dp, f) for dp, _, fs in os.walk(root) for f in fs if f.endswith(".json") and "bmk_" in dp][0]
    alone, _ = stats_json(one)
    check(len(alone["runs"]) == 1 and alone["runs"][0]["kind"] == "summary", "named alone, the summary is a run")


def test_one_run_saved_twice_in_other_bytes_is_one_run():
    header = '{"servestat":"log","version":1,"run":{"label":"tuned","params":{"concurrency":4}}}'
    lines = ['{"id":"%d","t_sent":%d.0,"t_first":%d.25,"t_end":%d.5,"status":"ok","output_tokens":8}' % (i, i, i, i)
             for i in range(5)]
    spaced = [line.replace(",", ", ") for line in lines]
    write(os.path.join(WORK, "twice", "run.jsonl"), "\n".join([header, *lines]) + "\n")
    write(os.path.join(WORK, "twice", "export", "run-copy.jsonl"), "\n".join([header, *spaced]) + "\n")
    data, stderr = stats_json(os.path.join(WORK, "twice"))
    check(len(data["runs"]) == 1, f"one run: {[r['source']['path'] for r in data['runs']]}")
    check("run.jsonl (the same run as export/run-copy.jsonl: same requests and values)" in stderr,
          f"the copy is named: {stderr!r}")


def test_aggregates_on_no_sweep_still_lead_the_summary():
    # Two SGLang result lines (C=8 and C=32): no sweep, no per-request data; SOURCE.md's reported values.
    out = os.path.join(WORK, "sglang-report")
    r = servestat("report", "-o", out, os.path.join(SHARED, "sglang-bench-serving-tonyli15"))
    check(r.returncode == 0, f"report: {r.stderr}")
    if r.returncode == 0:
        summary = open(os.path.join(out, "report.md"), encoding="utf-8").read().split("## Summary")[1].split("\n|")[0]
        check("Highest throughput, as the tools reported it:" in summary and "c32 with 50.99 req/s (3151.4 tok/s output)"
              in summary, f"the peak as reported: {summary}")
        check("lowest e2e p99:" in summary and "c8 at 702 ms" in summary, f"the tightest tail as reported: {summary}")


def test_a_name_that_disagrees_with_the_file_is_a_note():
    path = os.path.join(WORK, "conflict", "run_c16.json")
    write(path, vllm_result(max_concurrency=8, num_prompts=80))
    data, _ = stats_json(path)
    run = data["runs"][0] if data["runs"] else {"params": {}, "notes": []}
    check(run["params"].get("max_concurrency") == 8 and "concurrency" not in run["params"],
          f"the file's value is used: {run['params']}")
    check(any("the file gives 8" in n and "path gives 16" in n for n in run.get("notes", [])),
          f"a note names both: {run.get('notes')}")


def test_a_folder_of_folders_and_readme_reads():
    root = os.path.join(WORK, "nested")
    for c in (1, 2, 4):
        write(os.path.join(root, f"c{c}", "results", "result.json"),
              vllm_result(max_concurrency=None, num_prompts=100, request_throughput=0.9 * c))
    write(os.path.join(root, "README.md"), "# my sweep\n")
    data, stderr = stats_json(root)
    check([r["label"] for r in data["runs"]] == ["c=1", "c=2", "c=4"], f"named by folder: {[r['label'] for r in data['runs']]}")
    check(len(data["sweeps"]) == 1, "one sweep from folder names")
    check("read 3 logs; passed over 1 file" in stderr and "README.md" in stderr, f"one note: {stderr!r}")


def test_inferencex_results_folder_is_one_concurrency_sweep():
    # tests/data/inferencex (README.md): the harness's per-run results of ten levels, and a folder
    # holding both the per-run files and agg_bmk.json, the list of the same records.
    data, stderr = stats_json(os.path.join(TEST_DATA, "inferencex", "kimik2.5-b200-lmcache-tp4"))
    levels = [1, 2, 4, 8, 16, 32, 40, 48, 56, 64]
    runs = data["runs"]
    check(sorted(r["label"] for r in runs) == sorted(f"c={c}" for c in levels), f"named by concurrency: {[r['label'] for r in runs]}")
    check(all(r["source"]["format"] == "inferencex-result" for r in runs), "read as inferencex-result")
    sweeps = data["sweeps"]
    check(len(sweeps) == 1, f"one sweep: {[s['group'] for s in sweeps]}")
    if sweeps:
        check(sweeps[0]["param"] == "concurrency" and [p["load"] for p in sweeps[0]["points"]] == levels,
              f"over concurrency in load order: {sweeps[0]}")
    c8 = [r for r in runs if r["label"] == "c=8"]
    reported = {v["name"]: v["value"] for v in c8[0].get("reported", [])} if c8 else {}
    check(reported.get("output_tps") == 198.56654043104038, f"c=8 output tok/s as the file has it: {reported.get('output_tps')}")
    data, stderr = stats_json(os.path.join(TEST_DATA, "inferencex", "glm5.1-mi355x-sglang-hicache"))
    check(len(data["runs"]) == 12, f"twelve runs, not 24: {len(data['runs'])}")
    check(len({r["label"] for r in data["runs"]}) == 12, f"named apart: {[r['label'] for r in data['runs']]}")
    check(all("bmk_agentic_" in r["source"]["path"] for r in data["runs"]), "each run from its own file")
    check("passed over 1 file" in stderr and "results_bmk/agg_bmk.json (gathered from the runs' own files: its 12 runs" in stderr,
          f"agg_bmk.json passed over as gathered from them: {stderr!r}")


sys.exit(run_tests(WORK, [test_aiperf_sweep_folder_is_one_concurrency_sweep,
                          test_appended_vllm_diagonal_is_a_sweep_not_a_grid,
                          test_result_files_named_by_tp_and_concurrency_in_model_folders,
                          test_inference_perf_configurations_in_folders,
                          test_phases_and_copies_are_one_run_and_warmup_is_never_data,
                          test_inferencex_summary_beside_its_aiperf_run_is_one_run,
                          test_one_run_saved_twice_in_other_bytes_is_one_run,
                          test_aggregates_on_no_sweep_still_lead_the_summary,
                          test_a_name_that_disagrees_with_the_file_is_a_note,
                          test_a_folder_of_folders_and_readme_reads,
                          test_inferencex_results_folder_is_one_concurrency_sweep]))
