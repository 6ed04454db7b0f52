"""output_check.py -- an independent reader of a run's files, for
output_end_spec.lua. Prints one "key=value" line per finding (values on one
line); exits 0 even when a file is bad: the finding says why.

  python3 output_check.py json DIR/run.json
      strict JSON: valid UTF-8, no NaN/Infinity, no duplicate keys. Prints
      valid=true|false (and error=...), then the top-level scalars
      (strings as they are, null, true, false, numbers) and params=<JSON text>.
  python3 output_check.py gz DIR/history.csv.gz
      the whole gzip stream (EOFError on a cut stream), as strict UTF-8.
      Prints gzip=ok|<error>, utf8=ok|<error>, lines, rows (data rows), the
      first and last data rows' t, steps_consecutive (every row's t is the
      previous one plus h, given as a third argument), header, last.
  python3 output_check.py xml FILE.pvd
      Python's XML parser; prints xml=ok|<error>, datasets, and comment=...
      for every comment.
"""
import gzip
import json
import sys


def one_line(s):
    return str(s).replace("\\", "\\\\").replace("\n", "\\n")


def check_json(path):
    def no_constant(c):
        raise ValueError("not strict JSON: " + c)

    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        for k in keys:
            if keys.count(k) > 1:
                raise ValueError("duplicate key " + k)
        return dict(pairs)

    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", errors="strict")
        obj = json.loads(text, parse_constant=no_constant, object_pairs_hook=no_duplicates)
    except Exception as e:  # noqa: BLE001 -- any failure is a finding
        print("valid=false")
        print("error=" + one_line(type(e).__name__ + ": " + str(e)))
        return
    print("valid=true")
    for k, v in obj.items():
        if v is None:
            print(k + "=null")
        elif v is True or v is False:
            print(k + "=" + ("true" if v else "false"))
        elif isinstance(v, (int, float, str)):
            print(k + "=" + one_line(v))
    print("params=" + json.dumps(obj.get("params"), sort_keys=True))


def check_gz(path, h):
    try:
        with gzip.open(path, "rb") as f:
            data = f.read()
        print("gzip=ok")
    except Exception as e:  # noqa: BLE001
        print("gzip=" + one_line(type(e).__name__ + ": " + str(e)))
        return
    try:
        text = data.decode("utf-8", errors="strict")
        print("utf8=ok")
    except UnicodeDecodeError as e:
        print("utf8=" + one_line(str(e)))
        text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    else:
        print("unterminated=true")
    print("lines=%d" % len(lines))
    if lines:
        print("header=" + one_line(lines[0]))
        print("last=" + one_line(lines[-1]))
    rows = [ln for ln in lines[1:] if not ln.startswith("#")]
    print("rows=%d" % len(rows))
    ts = []
    for r in rows:
        try:
            ts.append(float(r.split(",")[0]))
        except ValueError:
            ts.append(float("nan"))
    if ts:
        print("t_first=%.17g" % ts[0])
        print("t_last=%.17g" % ts[-1])
    if h is not None and ts:
        ok = all(abs(ts[i] - i * h) <= 1e-9 * max(1.0, i * h) for i in range(len(ts)))
        print("steps_consecutive=" + ("true" if ok else "false"))
    marks = [ln for ln in lines[1:] if ln.startswith("#")]
    print("marks=%d" % len(marks))


def check_xml(path):
    import xml.etree.ElementTree as ET

    try:
        parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
        with open(path, "rb") as f:
            root = ET.fromstring(f.read(), parser=parser)
        print("xml=ok")
    except Exception as e:  # noqa: BLE001
        print("xml=" + one_line(type(e).__name__ + ": " + str(e)))
        return
    print("datasets=%d" % len(root.findall(".//DataSet")))
    for el in root.iter():
        if el.tag is ET.Comment:
            print("comment=" + one_line(el.text.strip()))


if __name__ == "__main__":
    what, path = sys.argv[1], sys.argv[2]
    if what == "json":
        check_json(path)
    elif what == "gz":
        check_gz(path, float(sys.argv[3]) if len(sys.argv) > 3 else None)
    elif what == "xml":
        check_xml(path)
    else:
        sys.exit("unknown check " + what)
