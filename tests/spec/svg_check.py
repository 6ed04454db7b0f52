#!/usr/bin/env python3
"""Parses an SVG written by ricochet.plot as XML (fails on malformed XML) and
prints JSON: the panels (their data-* axis ranges and pixel box), each with
its series (name, points as [x, y] pairs), x and y labels, legend texts.
Used by tests/spec/plot_spec.lua.   svg_check.py FILE"""
import json
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def main(path):
    root = ET.parse(path).getroot()
    assert root.tag == NS + "svg", "the root is not <svg>: %s" % root.tag
    panels = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "panel":
            continue
        p = {k[5:]: float(v) for k, v in g.attrib.items() if k.startswith("data-")}
        p["series"] = []
        for pl in g.iter(NS + "polyline"):
            pts = [[float(a) for a in xy.split(",")] for xy in pl.get("points").split()]
            p["series"].append({"name": pl.get("data-series"), "points": pts})
        texts = {}
        for t in g.iter(NS + "text"):
            texts.setdefault(t.get("class") or "tick", []).append(t.text)
        p["texts"] = texts
        panels.append(p)
    print(json.dumps({"panels": panels, "width": root.get("width"), "height": root.get("height")}))


if __name__ == "__main__":
    main(sys.argv[1])
