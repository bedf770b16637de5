#!/usr/bin/env python3
"""Checks that the text of SVG charts is readable, by the layout a browser gives it.

usage: svg_layout_check.py PATH...

PATH: .svg files, HTML files with inline <svg> (reports), or directories searched for both.
Every SVG is drawn in headless Chromium, which measures each <text> in the page itself (getBBox,
mapped into the SVG's own coordinates with getScreenCTM, so rotation and CSS scaling are accounted
for) and reports:
  - a text running outside its own SVG's viewport (viewBox) by more than 1 px;
  - two texts of one SVG whose boxes overlap by more than 1 px (boxes of rotated texts are compared
    as rotated rectangles, not as their bounding boxes);
  - a chart title (the <text class="title"> lines, else the first text) that is clipped: outside the
    viewport, or showing less than the SVG's <title> without carrying the whole as a tooltip.
A text's <title> child (its tooltip) is not drawn and is not part of its box.

Exit status: 0 clean, 1 violations (listed as file, chart title, text and box), 2 usage error or
Chromium missing (set CHROMIUM to its path if it is not chromium on PATH).
"""

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOLERANCE = 1.0  # px: rounding in layout is not a violation

MEASURE_SCRIPT = r"""
(function () {
  const TOL = %TOLERANCE%;
  const results = [];
  // The drawn text of an element: its text nodes and tspans, not its <title> tooltip.
  function shown(el) {
    let s = '';
    for (const n of el.childNodes) {
      if (n.nodeType === Node.TEXT_NODE) s += n.textContent;
      else if (n.nodeType === Node.ELEMENT_NODE && n.localName !== 'title') s += shown(n);
    }
    return s;
  }
  function tooltip(el) {
    for (const n of el.children) if (n.localName === 'title') return n.textContent;
    return null;
  }
  // The text's box as four corners in the SVG's user units.
  function corners(svg, el) {
    const b = el.getBBox();
    const m = svg.getScreenCTM().inverse().multiply(el.getScreenCTM());
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].map(
      ([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  }
  // Separating axis test for two convex quadrilaterals: the smallest overlap over the edge normals
  // (0 when some axis separates them).
  function overlap(p, q) {
    let least = Infinity;
    for (const poly of [p, q]) {
      for (let i = 0; i < 4; i++) {
        const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
        let nx = y1 - y2, ny = x2 - x1;
        const len = Math.hypot(nx, ny);
        if (len === 0) continue;
        nx /= len; ny /= len;
        const proj = (pts) => pts.map(([x, y]) => x * nx + y * ny);
        const a = proj(p), b = proj(q);
        const o = Math.min(Math.max(...a), Math.max(...b)) - Math.max(Math.min(...a), Math.min(...b));
        if (o <= 0) return 0;
        least = Math.min(least, o);
      }
    }
    return least === Infinity ? 0 : least;
  }
  const fmt = (c) => {
    const xs = c.map((p) => p[0]), ys = c.map((p) => p[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)].map((v) => Math.round(v * 10) / 10);
  };
  document.querySelectorAll('div.chart').forEach((holder) => {
    const svg = holder.querySelector('svg');
    if (!svg) return;
    const file = holder.dataset.file;
    const titleEl = Array.from(svg.children).find((n) => n.localName === 'title');
    const chart = titleEl ? titleEl.textContent : '(untitled)';
    let vb = svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width > 0 ? svg.viewBox.baseVal : null;
    const view = vb ? {x: vb.x, y: vb.y, w: vb.width, h: vb.height}
                    : {x: 0, y: 0, w: svg.width.baseVal.value, h: svg.height.baseVal.value};
    const texts = [];
    svg.querySelectorAll('text').forEach((el) => {
      const content = shown(el);
      if (!content.trim()) return;
      let c;
      try { c = corners(svg, el); } catch (e) { return; }
      const box = fmt(c);
      if (box[2] - box[0] <= 0 && box[3] - box[1] <= 0) return; // not laid out (display: none)
      texts.push({el, content, c, box, tip: tooltip(el)});
    });
    const problems = [];
    for (const t of texts) {
      const [x0, y0, x1, y1] = t.box;
      if (x0 < view.x - TOL || y0 < view.y - TOL || x1 > view.x + view.w + TOL || y1 > view.y + view.h + TOL)
        problems.push({kind: 'outside the viewport', text: t.content, box: t.box});
    }
    for (let i = 0; i < texts.length; i++)
      for (let j = i + 1; j < texts.length; j++) {
        const o = overlap(texts[i].c, texts[j].c);
        if (o > TOL)
          problems.push({kind: 'overlapping texts (' + (Math.round(o * 10) / 10) + ' px)', text: texts[i].content,
                         box: texts[i].box, other: texts[j].content, other_box: texts[j].box});
      }
    // The title: its lines, together, are the chart's <title>, or carry it as their tooltip.
    let titleLines = texts.filter((t) => t.el.classList.contains('title'));
    if (!titleLines.length && texts.length) titleLines = [texts[0]];
    if (titleEl && titleLines.length) {
      const joined = titleLines.map((t) => t.content).join(' ').replace(/\s+/g, ' ').trim();
      const whole = chart.replace(/\s+/g, ' ').trim();
      const tipped = titleLines.every((t) => t.tip !== null && t.tip.replace(/\s+/g, ' ').trim() === whole);
      if (joined !== whole && !tipped)
        problems.push({kind: 'title shortened without a tooltip', text: joined, box: titleLines[0].box});
      const canvas = view;
      for (const t of titleLines) {
        const [x0, y0, x1, y1] = t.box;
        if (x0 < canvas.x - TOL || x1 > canvas.x + canvas.w + TOL || y0 < canvas.y - TOL || y1 > canvas.y + canvas.h + TOL)
          problems.push({kind: 'title clipped', text: t.content, box: t.box});
      }
    }
    results.push({file, chart, texts: texts.length, problems});
  });
  const pre = document.createElement('pre');
  pre.id = 'result';
  pre.textContent = JSON.stringify(results);
  document.body.innerHTML = '';
  document.body.appendChild(pre);
})();
"""

SVG_RE = re.compile(r"<svg\b.*?</svg>", re.S | re.I)


def find_chromium():
    for name in [os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]:
        if name and (shutil.which(name) or os.path.isfile(name)):
            return shutil.which(name) or name
    return None


def collect(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                for n in names:
                    if n.lower().endswith((".svg", ".html", ".htm")):
                        files.append(os.path.join(root, n))
        elif os.path.isfile(p):
            files.append(p)
        else:
            print(f"svg_layout_check: no such file or directory: {p}", file=sys.stderr)
            sys.exit(2)
    return sorted(files)


def svgs_of(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # An .svg file is one chart; an HTML report inlines several (its CSS may scale them, which the
    # measurement undoes, so each is measured at its own size on a plain page).
    return SVG_RE.findall(text)


def page(charts):
    parts = ['<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0} div.chart{margin:4px}</style>'
             '</head><body>']
    for file, svg in charts:
        parts.append(f'<div class="chart" data-file="{html.escape(file, quote=True)}">{svg}</div>')
    parts.append("<script>" + MEASURE_SCRIPT.replace("%TOLERANCE%", str(TOLERANCE)) + "</script></body></html>")
    return "".join(parts)


def measure(chromium, charts):
    with tempfile.TemporaryDirectory(prefix="svg_layout_check.") as tmp:
        path = os.path.join(tmp, "charts.html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(page(charts))
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000",
               "--window-size=1200,900", f"--user-data-dir={os.path.join(tmp, 'profile')}", "--dump-dom",
               "file://" + path]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    found = re.search(r'<pre id="result">(.*?)</pre>', run.stdout, re.S)
    if not found:
        print("svg_layout_check: Chromium gave no result\n" + run.stderr[-2000:], file=sys.stderr)
        sys.exit(2)
    return json.loads(html.unescape(found.group(1)))


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2
    chromium = find_chromium()
    if not chromium:
        print("svg_layout_check: chromium not found (apt-get install chromium, or set CHROMIUM)", file=sys.stderr)
        return 2
    files = collect(argv[1:])
    charts = [(f, svg) for f in files for svg in svgs_of(f)]
    if not charts:
        print("svg_layout_check: no SVG found in " + " ".join(argv[1:]), file=sys.stderr)
        return 2
    results = measure(chromium, charts)
    if len(results) != len(charts):
        print(f"svg_layout_check: measured {len(results)} of {len(charts)} SVGs", file=sys.stderr)
        return 2
    violations = 0
    for r in results:
        for p in r["problems"]:
            violations += 1
            line = f"{r['file']}: \"{r['chart']}\": {p['kind']}: \"{p['text']}\" at {p['box']}"
            if "other" in p:
                line += f" and \"{p['other']}\" at {p['other_box']}"
            print(line)
    texts = sum(r["texts"] for r in results)
    print(f"svg_layout_check: {len(files)} files, {len(results)} SVGs, {texts} texts, {violations} violations")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
