#!/usr/bin/env python3
"""Read a ricochet VTK series with Python's standard library only (no VTK, no
ParaView): the .pvd index with xml.etree, one .vtp's arrays by hand (the
appended raw section, zlib blocks). docs/output-vtk.md shows this code;
vtk_spec.lua runs it.  Usage: vtp_plain.py DIR/grains.pvd"""
import os, re, struct, sys, zlib
import xml.etree.ElementTree as ET

TYPES = {"Float64": "d", "Float32": "f", "Int64": "q", "Int32": "i", "UInt8": "B", "UInt64": "Q"}

def read_pvd(path):   # [(time, file)] in frame order
    root = ET.parse(path).getroot()
    base = os.path.dirname(path)
    return [(float(d.get("timestep")), os.path.join(base, d.get("file"))) for d in root.iter("DataSet")]

def read_vtp(path):   # {name: [values]} of every DataArray (components flattened)
    data = open(path, "rb").read()
    start = data.index(b'<AppendedData encoding="raw">')
    raw = data[data.index(b"_", start) + 1:]
    arrays = {}
    for m in re.finditer(rb"<DataArray ([^>]*)>", data[:start]):
        attr = dict(re.findall(rb'(\w+)="([^"]*)"', m.group(1)))
        off = int(attr[b"offset"])
        nblocks, _, _ = struct.unpack_from("<3Q", raw, off)
        sizes = struct.unpack_from("<%dQ" % nblocks, raw, off + 24)
        p, body = off + 24 + 8 * nblocks, b""
        for s in sizes:
            body += zlib.decompress(raw[p:p + s])
            p += s
        code = TYPES[attr[b"type"].decode()]
        arrays[attr[b"Name"].decode()] = list(struct.unpack("<%d%s" % (len(body) // struct.calcsize(code), code), body))
    return arrays

if __name__ == "__main__":
    for t, f in read_pvd(sys.argv[1]):
        a = read_vtp(f)
        print("%r %s %d" % (t, os.path.basename(f), len(a["Points"]) // 3))
