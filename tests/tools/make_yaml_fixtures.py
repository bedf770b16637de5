#!/usr/bin/env python3
"""YAML fixtures and JSON twins for the YAML readers (deterministic: rerunning rewrites them byte for byte).

Made with PyYAML (Debian's python3-yaml), never with servestat:
- tests/data/llmd_report_yaml/br_v0_2_example.json, br_v0_2_1_example.json: the JSON twins of llm-d-benchmark's
  example reports (copied unmodified beside them), yaml.safe_load + json.dump as llm-d's export_json writes
  (indent=2). PyYAML reads YAML 1.1, which has a timestamp type: the twins keep timestamps as the text
  written (YAML 1.2's core schema, which servestat reads, has none), so both forms hold the same strings.
- tests/data/llmd_report_yaml/br_inference_perf_stage_3.yaml: ../llmd_report/br_inference_perf_stage_3.json through yaml.dump,
  as BenchmarkReport.export_yaml writes it (keys sorted).
- tests/data/guidellm/benchmarks_v0.2.yaml: benchmarks_v0.2.json through yaml.dump, as GuideLLM's
  save_file writes a .yaml report.
- tests/data/inference_perf/partial/inference-perf.partial.stage_N.yaml (N = 0..3): inference-perf's
  per-stage partial Benchmark Report (inference_perf/reportgen/br/v0_2/partial_report.py: version 0.2.1,
  run.uid "inference-perf-stage-N-<8 hex>", run.eid shared by the stages, run.time of the stage, the
  results block, no scenario) with the results of br_inference_perf_stage_N.json (the same simulated
  stages as ../sweep/), and their JSON twins in ../partial_json/.
"""
import json
import pathlib

import yaml

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"


class TextTimestamps(yaml.SafeLoader):
    """safe_load without YAML 1.1's timestamp type: timestamps stay the strings written."""


TextTimestamps.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def json_twin(yaml_path, json_path):
    with open(yaml_path, encoding="utf-8") as f:
        document = yaml.load(f, Loader=TextTimestamps)
    json_path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def main():
    v02 = json.loads((DATA / "guidellm" / "benchmarks_v0.2.json").read_text(encoding="utf-8"))
    (DATA / "guidellm" / "benchmarks_v0.2.yaml").write_text(yaml.dump(v02), encoding="utf-8")
    report, report_yaml = DATA / "llmd_report", DATA / "llmd_report_yaml"
    for name in ("br_v0_2_example", "br_v0_2_1_example"):
        json_twin(report_yaml / f"{name}.yaml", report_yaml / f"{name}.json")
    stage3 = json.loads((report / "br_inference_perf_stage_3.json").read_text(encoding="utf-8"))
    (report_yaml / "br_inference_perf_stage_3.yaml").write_text(yaml.dump(stage3), encoding="utf-8")

    eid = "inference-perf-experiment-5b2e9d17"
    uids = ["1f0a7c3e", "8d24b6a1", "c3e95f02", "47ab1d8e"]
    for stage, uid in enumerate(uids):
        br = json.loads((report / f"br_inference_perf_stage_{stage}.json").read_text(encoding="utf-8"))
        start = f"2026-05-20T14:{30 + stage:02d}:12.123000+00:00"
        end = f"2026-05-20T14:{30 + stage:02d}:27.456000+00:00"
        partial = {
            "version": "0.2.1",
            "run": {"uid": f"inference-perf-stage-{stage}-{uid}", "eid": eid,
                    "time": {"start": start, "end": end, "duration": "PT15.333S"}},
            "results": br["results"],
        }
        name = f"inference-perf.partial.stage_{stage}"
        (DATA / "inference_perf" / "partial" / f"{name}.yaml").write_text(yaml.dump(partial), encoding="utf-8")
        json_twin(DATA / "inference_perf" / "partial" / f"{name}.yaml",
                  DATA / "inference_perf" / "partial_json" / f"{name}.json")


if __name__ == "__main__":
    main()
