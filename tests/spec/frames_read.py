#!/usr/bin/env python3
"""Reads a frame file (DIR/frames.rcf, format in src/ricochet_frames.h) and
prints it as JSON: {"version", "geometry": [...], "frames": [...], "end"}.
Used by tests/spec/view_spec.lua; an example of reading the format without
the viewer (docs/viewing.md).   frames_read.py FILE [--summary]"""
import json
import struct
import sys
import zlib


def read(path):
    data = open(path, "rb").read()
    if data[:8] != b"RCFRAMES":
        raise SystemExit("%s: not a ricochet frame file" % path)
    version, flags = struct.unpack_from("<II", data, 8)
    d = zlib.decompressobj()
    raw = d.decompress(data[16:])          # a killed run: a prefix (no end record)
    out = {"version": version, "flags": flags, "geometry": [], "frames": [], "end": None,
           "stream_complete": d.eof}
    at = 0
    while at + 8 <= len(raw):
        tag, n = struct.unpack_from("<4sI", raw, at)
        p = at + 8
        if p + n > len(raw):
            break
        if tag == b"GEOM":
            nb, ns, px0, px1 = struct.unpack_from("<IIdd", raw, p)
            p += 24
            bodies, shapes = [], []
            for _ in range(nb):
                kind, ln = struct.unpack_from("<II", raw, p)
                p += 8
                name = raw[p:p + ln].decode("utf-8")
                p += (ln + 3) // 4 * 4
                m, J = struct.unpack_from("<dd", raw, p)
                p += 16
                bodies.append({"kind": kind, "name": name, "mass": m, "inertia": J})
            for _ in range(ns):
                body, typ, m = struct.unpack_from("<iII", raw, p)
                p += 12
                vals = list(struct.unpack_from("<%dd" % m, raw, p))
                p += 8 * m
                shapes.append({"body": body, "type": typ, "values": vals})
            out["geometry"].append({"bodies": bodies, "shapes": shapes, "periodic": [px0, px1]})
        elif tag == b"FRAM":
            t, step, nb, nc = struct.unpack_from("<ddII", raw, p)
            p += 24
            arr = [list(struct.unpack_from("<%df" % nb, raw, p + 4 * nb * k)) for k in range(6)]
            p += 24 * nb
            a = list(struct.unpack_from("<%di" % nc, raw, p))
            b = list(struct.unpack_from("<%di" % nc, raw, p + 4 * nc))
            c = [list(struct.unpack_from("<%df" % nc, raw, p + 4 * nc * (2 + k))) for k in range(6)]
            out["frames"].append({"t": t, "step": int(step), "q": [[arr[0][i], arr[1][i], arr[2][i]] for i in range(nb)],
                                  "v": [[arr[3][i], arr[4][i], arr[5][i]] for i in range(nb)],
                                  "contacts": [{"a": a[j], "b": b[j], "point": [c[0][j], c[1][j]],
                                                "normal": [c[2][j], c[3][j]], "pN": c[4][j], "pT": c[5][j]}
                                               for j in range(nc)]})
        elif tag == b"END ":
            (ln,) = struct.unpack_from("<I", raw, p)
            out["end"] = raw[p + 4:p + 4 + ln].decode("utf-8", "replace")
        at = at + 8 + n
    return out


if __name__ == "__main__":
    r = read(sys.argv[1])
    if "--summary" in sys.argv[2:]:
        r = {"version": r["version"], "frames": len(r["frames"]), "geometry": len(r["geometry"]),
             "end": r["end"], "stream_complete": r["stream_complete"],
             "t": [f["t"] for f in r["frames"]], "contacts": [len(f["contacts"]) for f in r["frames"]]}
    json.dump(r, sys.stdout, allow_nan=True)
    print()
