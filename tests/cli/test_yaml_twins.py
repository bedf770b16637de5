"""A report saved as YAML and the same report saved as JSON give byte-identical `servestat stats --json`.
The twins are made here with PyYAML (Debian's python3-yaml, a dependency of python3-distributed), never
with servestat: GuideLLM's real YAML report read into JSON, a real GuideLLM JSON report dumped as GuideLLM
saves YAML (yaml.dump), and the committed llm-d and inference-perf twins. Each pair lies in two folders under
the same file name (detection reads content, not the extension), so the output names the same path.
Usage: test_yaml_twins.py SERVESTAT SHARED_DATA_DIR TEST_DATA_DIR WORK_DIR"""
import json
import os
import shutil
import subprocess
import sys

from checks import check, run_tests

SERVESTAT, SHARED, TEST_DATA, WORK = sys.argv[1:5]

try:
    import yaml
except ImportError:  # python3-yaml comes with python3-distributed; say so rather than fail obscurely
    yaml = None


def stats_json(folder, name):
    r = subprocess.run([SERVESTAT, "stats", "--json", name], cwd=folder, capture_output=True, text=True)
    check(r.returncode == 0, f"{folder}/{name}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def compare(name, yaml_text, json_text, expect_format):
    yaml_dir, json_dir = os.path.join(WORK, name, "yaml"), os.path.join(WORK, name, "json")
    for folder, text in ((yaml_dir, yaml_text), (json_dir, json_text)):
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "report"), "w", encoding="utf-8") as f:
            f.write(text)
    from_yaml, from_json = stats_json(yaml_dir, "report"), stats_json(json_dir, "report")
    check(from_yaml != "" and from_yaml == from_json, f"{name}: stats --json differs between YAML and JSON")
    formats = {run["source"]["format"] for run in json.loads(from_yaml or "{\"runs\": []}")["runs"]}
    check(formats == {expect_format}, f"{name}: formats {formats}")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_guidellm_yaml_report_reads_as_its_json_twin():
    if yaml is None:
        print("SKIP: no PyYAML")
        return
    source = os.path.join(SHARED, "guidellm-yaml-jhurlocker/llama-3-2-3b_20250721_003902/benchmark-results.yaml")
    if not os.path.exists(source):
        print("SKIP: no shared data")
        return
    text = read(source)
    compare("guidellm_v02", text, json.dumps(yaml.safe_load(text)), "guidellm")


def test_guidellm_json_report_reads_as_its_yaml_twin():
    if yaml is None:
        print("SKIP: no PyYAML")
        return
    source = os.path.join(SHARED, "guidellm-danielkorat/guidellm_sanity_results/20260302_1856/"
                                  "Qwen_Qwen3-4B-Thinking-2507_tp4_quant-fp8_benchmarks.json")
    if not os.path.exists(source):
        print("SKIP: no shared data")
        return
    text = read(source)
    compare("guidellm_current", yaml.dump(json.loads(text)), text, "guidellm")  # GuideLLM's save_file for .yaml


def test_committed_twins():
    for name, yaml_path, json_path, fmt in [
        ("llmd_v0_2", "llmd_report_yaml/br_v0_2_example.yaml", "llmd_report_yaml/br_v0_2_example.json",
         "llmd-benchmark-report"),
        ("llmd_v0_2_1", "llmd_report_yaml/br_v0_2_1_example.yaml", "llmd_report_yaml/br_v0_2_1_example.json",
         "llmd-benchmark-report"),
        ("llmd_stage_3", "llmd_report_yaml/br_inference_perf_stage_3.yaml", "llmd_report/br_inference_perf_stage_3.json",
         "llmd-benchmark-report"),
        ("guidellm_v02_fixture", "guidellm/benchmarks_v0.2.yaml", "guidellm/benchmarks_v0.2.json", "guidellm"),
    ]:
        compare(name, read(os.path.join(TEST_DATA, yaml_path)), read(os.path.join(TEST_DATA, json_path)), fmt)
    # inference-perf's partials are told by their file name: both twins keep it.
    for stage in range(4):
        base = f"inference-perf.partial.stage_{stage}"
        yaml_dir, json_dir = os.path.join(WORK, base, "yaml"), os.path.join(WORK, base, "json")
        os.makedirs(yaml_dir)
        os.makedirs(json_dir)
        shutil.copy(os.path.join(TEST_DATA, "inference_perf/partial", base + ".yaml"), os.path.join(yaml_dir, base))
        shutil.copy(os.path.join(TEST_DATA, "inference_perf/partial_json", base + ".json"), os.path.join(json_dir, base))
        from_yaml, from_json = stats_json(yaml_dir, base), stats_json(json_dir, base)
        check(from_yaml != "" and from_yaml == from_json, f"{base}: stats --json differs between YAML and JSON")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_guidellm_yaml_report_reads_as_its_json_twin,
                              test_guidellm_json_report_reads_as_its_yaml_twin, test_committed_twins]))
